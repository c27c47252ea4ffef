import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { batchGetItems } from './batch-get';
import { resourcesConfig } from '../config';

/**
 * What an e-mail address agreed to, in the directory table:
 * - `SIDEMAIL#<clientId>#<address>`: a side address of a client's rules. Alerts go to it only once it confirmed
 *   the one-time link sent to it (`tokenHash`, `confirmedAt`); the link is sent once per client and address.
 * - `OPTOUT#<ruleId>#<address>`: the List-Unsubscribe token of one rule's alerts to one address, and whether
 *   the address used it (`optedOutAt`). The token is kept as is, since every alert e-mail carries it; it can
 *   do nothing but stop that rule's alerts to that address.
 * - `SUPPRESSED#<address>`: the address bounced or complained (SES events); nothing is sent to it any more.
 * Tokens carry their item's key (`<scope>.<base64url address>.<random>`), so checking one costs one read.
 */
const table = () => resourcesConfig().DIRECTORY_TABLE;
const normal = (address: string) => address.trim().toLowerCase();
const sideKey = (clientId: string, address: string) => ({ pk: `SIDEMAIL#${clientId}#${normal(address)}`, sk: 'SIDEMAIL' });
const optOutKey = (ruleId: number, address: string) => ({ pk: `OPTOUT#${ruleId}#${normal(address)}`, sk: 'OPTOUT' });
const suppressedKey = (address: string) => ({ pk: `SUPPRESSED#${normal(address)}`, sk: 'SUPPRESSED' });

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const secret = () => randomBytes(24).toString('base64url');
const encodeAddress = (address: string) => Buffer.from(normal(address), 'utf8').toString('base64url');

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

interface TokenParts {
  scope: string;
  address: string;
  secret: string;
}

function parseToken(token: string): TokenParts | null {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((part) => !/^[A-Za-z0-9_-]{1,400}$/.test(part))) return null;
  const address = Buffer.from(parts[1]!, 'base64url').toString('utf8');
  if (!address.includes('@') || address.length > 320) return null;
  return { scope: parts[0]!, address, secret: parts[2]! };
}

/** What stops alerts to an address, per address (lower-case); absent when nothing does. */
export type EmailBlock = 'not confirmed' | 'unsubscribed' | 'suppressed';

export interface EmailStates {
  blocked: Map<string, EmailBlock>;
  /** List-Unsubscribe tokens of the rule, per address that has one. */
  unsubscribeTokens: Map<string, string>;
  /** Side addresses never asked yet: a confirmation link is due. */
  unasked: Set<string>;
}

/**
 * Reads, in one batch, what the addresses of one alert agreed to. `sideAddresses` must confirm; every address
 * may have unsubscribed from the rule or be suppressed.
 */
export async function emailStates(clientId: string, ruleId: number, addresses: readonly string[], sideAddresses: readonly string[]): Promise<EmailStates> {
  const all = [...new Set(addresses.map(normal))];
  const sides = [...new Set(sideAddresses.map(normal))];
  const keys = [
    ...all.map((address) => optOutKey(ruleId, address)),
    ...all.map((address) => suppressedKey(address)),
    ...sides.map((address) => sideKey(clientId, address)),
  ];
  const items = new Map((await batchGet(keys)).map((item) => [String(item.pk), item]));
  const states: EmailStates = { blocked: new Map(), unsubscribeTokens: new Map(), unasked: new Set() };
  for (const address of sides) {
    const side = items.get(sideKey(clientId, address).pk);
    if (!side) states.unasked.add(address);
    if (!side?.confirmedAt) states.blocked.set(address, 'not confirmed');
  }
  for (const address of all) {
    const optOut = items.get(optOutKey(ruleId, address).pk);
    if (typeof optOut?.token === 'string') states.unsubscribeTokens.set(address, optOut.token);
    if (optOut?.optedOutAt) states.blocked.set(address, 'unsubscribed');
    if (items.has(suppressedKey(address).pk)) states.blocked.set(address, 'suppressed');
  }
  return states;
}

async function batchGet(keys: { pk: string; sk: string }[]): Promise<Record<string, unknown>[]> {
  return batchGetItems(table(), keys);
}

/**
 * Records that a confirmation link goes to a side address, once per client and address: returns the token to
 * put in the link, or null when one was already sent.
 */
export async function requestConfirmation(clientId: string, address: string, now: number): Promise<string | null> {
  const token = `${clientId}.${encodeAddress(address)}.${secret()}`;
  try {
    await documentClient().send(
      new PutCommand({
        TableName: table(),
        Item: { ...sideKey(clientId, address), tokenHash: sha256(token), requestedAt: new Date(now).toISOString() },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return token;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return null;
    throw error;
  }
}

/** Confirms a side address by the token of its link. Returns false for an unknown or wrong token. */
export async function confirmSideEmail(token: string, now: number): Promise<boolean> {
  const parts = parseToken(token);
  if (!parts) return false;
  const key = sideKey(parts.scope, parts.address);
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: true }));
  if (typeof Item?.tokenHash !== 'string' || !sameText(Item.tokenHash, sha256(token))) return false;
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: key,
      UpdateExpression: 'SET confirmedAt = if_not_exists(confirmedAt, :now)',
      ExpressionAttributeValues: { ':now': new Date(now).toISOString() },
    }),
  );
  return true;
}

/** For seeding and operators: an address the client's administrator vouches for, confirmed without a link. */
export async function markSideEmailConfirmed(clientId: string, address: string, now: number): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: sideKey(clientId, address),
      UpdateExpression: 'SET confirmedAt = if_not_exists(confirmedAt, :now)',
      ExpressionAttributeValues: { ':now': new Date(now).toISOString() },
    }),
  );
}

/** The List-Unsubscribe token of a rule's alerts to an address, created on first use. */
export async function unsubscribeToken(ruleId: number, address: string): Promise<string> {
  const token = `${ruleId}.${encodeAddress(address)}.${secret()}`;
  const { Attributes } = await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: optOutKey(ruleId, address),
      UpdateExpression: 'SET #token = if_not_exists(#token, :token)',
      ExpressionAttributeNames: { '#token': 'token' },
      ExpressionAttributeValues: { ':token': token },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return String(Attributes?.token ?? token);
}

/** One-click unsubscribe (RFC 8058): stops the rule's alerts to the address. Returns false for a wrong token. */
export async function unsubscribe(token: string, now: number): Promise<boolean> {
  const parts = parseToken(token);
  if (!parts || !/^\d{1,10}$/.test(parts.scope)) return false;
  const key = optOutKey(Number(parts.scope), parts.address);
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: true }));
  if (typeof Item?.token !== 'string' || !sameText(Item.token, token)) return false;
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: key,
      UpdateExpression: 'SET optedOutAt = if_not_exists(optedOutAt, :now)',
      ExpressionAttributeValues: { ':now': new Date(now).toISOString() },
    }),
  );
  return true;
}

/** An address that bounced permanently or complained: nothing more is sent to it. */
export async function suppressAddress(address: string, reason: string, now: number): Promise<void> {
  await documentClient().send(
    new PutCommand({ TableName: table(), Item: { ...suppressedKey(address), reason, at: new Date(now).toISOString() } }),
  );
}
