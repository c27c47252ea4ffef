import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { resourcesConfig } from '../../config';
import { batchGetItems } from '../batch-get';

/** What the consent records share: the table, how an address is keyed, and the tokens that carry an item's key. */
export const table = () => resourcesConfig().DIRECTORY_TABLE;
export const normal = (address: string) => address.trim().toLowerCase();

/**
 * The mailbox an address reaches, the key of what it agreed to: lower-case, without a `+tag` in its local part
 * (`A+x@D` and `a+y@d` are the mailbox `a@d`), so that aliases of one mailbox are asked once.
 */
export function mailboxOf(address: string): string {
  const lowered = normal(address);
  const at = lowered.lastIndexOf('@');
  const plus = lowered.indexOf('+');
  return plus > 0 && plus < at ? `${lowered.slice(0, plus)}${lowered.slice(at)}` : lowered;
}

export const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
export const secret = () => randomBytes(24).toString('base64url');
export const encodeAddress = (address: string) => Buffer.from(normal(address), 'utf8').toString('base64url');

export function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

interface TokenParts {
  scope: string;
  address: string;
  secret: string;
}

/** A token is `<scope>.<base64url address>.<random>`: it carries its item's key, so checking one costs one read. */
export function parseToken(token: string): TokenParts | null {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((part) => !/^[A-Za-z0-9_-]{1,400}$/.test(part))) return null;
  const address = Buffer.from(parts[1]!, 'base64url').toString('utf8');
  if (!address.includes('@') || address.length > 320) return null;
  return { scope: parts[0]!, address, secret: parts[2]! };
}

export async function batchGet(keys: { pk: string; sk: string }[]): Promise<Record<string, unknown>[]> {
  return batchGetItems(table(), keys);
}
