import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { batchGetItems } from './batch-get';
import { resourcesConfig } from '../config';

/**
 * What an e-mail address agreed to, in the directory table:
 * - `SIDEMAIL#<clientId>#<address>`: a side address of a client's rules. Alerts go to it only once it confirmed
 *   the one-time link sent to it (`tokenHash`, `confirmedAt`); the link is sent once per client and address
 *   (`requestedAt`: when it went out). While one sender is sending it, `sendingUntil` keeps others off; a send
 *   that failed leaves no `requestedAt`, so the next attempt sends it (with a new token).
 *   Under the same key, `HOLD#<alertId>` items name the alerts held for the address until it confirms.
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
  /** Side addresses not confirmed yet: their alerts are held. */
  unconfirmed: Set<string>;
  /** Side addresses whose confirmation link has not gone out yet: it is due. */
  unasked: Set<string>;
}

/** The record of a side address, as read: is its confirmation link still to be sent? */
export function confirmationDue(item: Record<string, unknown> | undefined, now: number): boolean {
  if (!item) return true;
  if (item.confirmedAt || item.requestedAt) return false;
  return typeof item.sendingUntil !== 'number' || item.sendingUntil < now;
}

/** Side addresses of a client whose confirmation link is still to be sent (one batch read). */
export async function addressesToAsk(clientId: string, sideAddresses: readonly string[], now: number): Promise<string[]> {
  const sides = [...new Set(sideAddresses.map(normal))];
  const items = new Map((await batchGet(sides.map((address) => sideKey(clientId, address)))).map((item) => [String(item.pk), item]));
  return sides.filter((address) => confirmationDue(items.get(sideKey(clientId, address).pk), now));
}

/**
 * Reads, in one batch, what the addresses of one alert agreed to. `sideAddresses` must confirm; every address
 * may have unsubscribed from the rule or be suppressed.
 */
export async function emailStates(
  clientId: string,
  ruleId: number,
  addresses: readonly string[],
  sideAddresses: readonly string[],
  now: number,
): Promise<EmailStates> {
  const all = [...new Set(addresses.map(normal))];
  const sides = [...new Set(sideAddresses.map(normal))];
  const keys = [
    ...all.map((address) => optOutKey(ruleId, address)),
    ...all.map((address) => suppressedKey(address)),
    ...sides.map((address) => sideKey(clientId, address)),
  ];
  const items = new Map((await batchGet(keys)).map((item) => [String(item.pk), item]));
  const states: EmailStates = { blocked: new Map(), unsubscribeTokens: new Map(), unconfirmed: new Set(), unasked: new Set() };
  for (const address of sides) {
    const side = items.get(sideKey(clientId, address).pk);
    if (confirmationDue(side, now)) states.unasked.add(address);
    if (!side?.confirmedAt) states.unconfirmed.add(address);
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

/** How long one sender may take to send a confirmation link before another may try. */
const CONFIRMATION_SEND_LEASE_MS = 60_000;

/**
 * Takes the sending of a side address's confirmation link: returns the token to put in the link, or null when
 * the link already went out, the address is confirmed, or another sender is sending it right now.
 */
export async function claimConfirmation(clientId: string, address: string, now: number): Promise<string | null> {
  const token = `${clientId}.${encodeAddress(address)}.${secret()}`;
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: sideKey(clientId, address),
        UpdateExpression: 'SET tokenHash = :hash, sendingUntil = :until',
        ConditionExpression:
          'attribute_not_exists(requestedAt) AND attribute_not_exists(confirmedAt) AND (attribute_not_exists(sendingUntil) OR sendingUntil < :now)',
        ExpressionAttributeValues: { ':hash': sha256(token), ':until': now + CONFIRMATION_SEND_LEASE_MS, ':now': now },
      }),
    );
    return token;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return null;
    throw error;
  }
}

/** The claimed link went out (`sent`), or could not go out now and may be tried again (`released`). */
export async function settleConfirmation(clientId: string, address: string, outcome: 'sent' | 'released', now: number): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: sideKey(clientId, address),
      UpdateExpression: outcome === 'sent' ? 'SET requestedAt = :at REMOVE sendingUntil' : 'REMOVE sendingUntil',
      ...(outcome === 'sent' ? { ExpressionAttributeValues: { ':at': new Date(now).toISOString() } } : {}),
    }),
  );
}

/** Confirms a side address by the token of its link. Returns the client and address, or null for a wrong token. */
export async function confirmSideEmail(token: string, now: number): Promise<{ clientId: string; address: string } | null> {
  const parts = parseToken(token);
  if (!parts) return null;
  const key = sideKey(parts.scope, parts.address);
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: true }));
  if (typeof Item?.tokenHash !== 'string' || !sameText(Item.tokenHash, sha256(token))) return null;
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: key,
      UpdateExpression: 'SET confirmedAt = if_not_exists(confirmedAt, :now)',
      ExpressionAttributeValues: { ':now': new Date(now).toISOString() },
    }),
  );
  return { clientId: parts.scope, address: normal(parts.address) };
}

/** Whether a side address has confirmed, read consistently (to close the race with a confirmation). */
export async function isSideEmailConfirmed(clientId: string, address: string): Promise<boolean> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: sideKey(clientId, address), ConsistentRead: true }));
  return Boolean(Item?.confirmedAt);
}

const holdSortKey = (alertId: string) => `HOLD#${alertId}`;

/**
 * Notes that an alert waits for a side address to confirm, under the address's own key, so that confirming
 * finds exactly its held alerts. Kept (the directory's `ttl`) a day past the end of the hold.
 */
export async function recordHold(clientId: string, address: string, alertId: string, holdEnds: number): Promise<void> {
  await documentClient().send(
    new PutCommand({
      TableName: table(),
      Item: { pk: sideKey(clientId, address).pk, sk: holdSortKey(alertId), alertId, ttl: Math.floor(holdEnds / 1000) + 86_400 },
    }),
  );
}

/** The alerts held for a side address (a query of the address's own key). */
export async function heldAlertIds(clientId: string, address: string): Promise<string[]> {
  const ids: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :hold)',
        ExpressionAttributeValues: { ':pk': sideKey(clientId, address).pk, ':hold': 'HOLD#' },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) ids.push(String(item.alertId));
    start = page.LastEvaluatedKey;
  } while (start);
  return ids;
}

/** The held alert was handed back to delivery: its note goes. */
export async function forgetHold(clientId: string, address: string, alertId: string): Promise<void> {
  await documentClient().send(new DeleteCommand({ TableName: table(), Key: { pk: sideKey(clientId, address).pk, sk: holdSortKey(alertId) } }));
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
  await documentClient().send(new PutCommand({ TableName: table(), Item: { ...suppressedKey(address), reason, at: new Date(now).toISOString() } }));
}
