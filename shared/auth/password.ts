import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { passwordSchema, readConfig } from '../config';

/**
 * Password hashes in the directory's format `scrypt$N$r$p$salt$hash` (salt and hash base64), at OWASP's current
 * recommendation N=2^17, r=8, p=1 (128 MiB per hash; N is `PASSWORD_SCRYPT_N`). Parameters are stored with each
 * hash, so they can be raised without breaking existing users: a hash below the current cost is replaced at the
 * next login.
 */
const currentParams = () => ({ N: readConfig(passwordSchema()).PASSWORD_SCRYPT_N, r: 8, p: 1 });
/** What N=2^18, r=8 needs (256 MiB) with room for scrypt's own bookkeeping, and the bound for hashes read from the table. */
const MAX_MEMORY = 257 * 1024 * 1024;
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, options: ScryptOptions, keyLength: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, keyLength, { ...options, maxmem: MAX_MEMORY }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p } = currentParams();
  const hash = await derive(password, salt, { N, r, p }, KEY_LENGTH);
  return ['scrypt', N, r, p, salt.toString('base64'), hash.toString('base64')].join('$');
}

/** A well-formed hash of a random password: compared against when the login is unknown, so timing does not tell. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('base64'));
  return decoy;
}

/** A well-formed hash made with less work than the current parameters ask for. */
export function needsRehash(encoded: string): boolean {
  const [scheme, N, r, p] = encoded.split('$');
  if (scheme !== 'scrypt') return true;
  const current = currentParams();
  return Number(N) < current.N || Number(r) < current.r || Number(p) < current.p;
}

export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const parts = encoded.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every((value) => Number.isInteger(value) && value > 0)) return false;
  if (128 * N * r * p > MAX_MEMORY) return false;
  const salt = Buffer.from(parts[4]!, 'base64');
  const expected = Buffer.from(parts[5]!, 'base64');
  if (expected.length === 0) return false;
  const actual = await derive(password, salt, { N, r, p }, expected.length);
  return timingSafeEqual(actual, expected);
}
