import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import pLimit from 'p-limit';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { batchGetItems } from './batch-get';
import { resourcesConfig } from '../config';
import { releaseUnconfirmed, reserveUnconfirmed } from './sender-guard';
import { conditionFailed, queryAll } from './dynamo';
import { emailConsentKeys } from './keys';

/**
 * What an e-mail address agreed to, in the directory table:
 * - `SIDEMAIL#<clientId>#<mailbox>`: a side mailbox of a client's rules (the address without a `+tag`, see
 *   mailboxOf). Alerts go to its addresses only once it confirmed the one-time link sent to it (`tokenHash`,
 *   `confirmedAt`); the link is sent once per client and mailbox (`requestedAt`: when it went out). While one
 *   sender is sending it, `sendingUntil` keeps others off; a send that failed leaves no `requestedAt`, so the
 *   next attempt sends it (with a new token); `waitsUntil`: the send waits for the client's daily budget.
 *   `registeredAt`/`counted`: a rule save registered it, and it counts against the client's unconfirmed cap
 *   until it confirms. `unsubscribedAt`: it unsubscribed, which stops every rule of the client and every new
 *   link, until it subscribes again with its unsubscribe token.
 *   Under the same key, `HOLD#<alertId>` items name the alerts held for the mailbox until it confirms.
 * - `OPTOUT#<ruleId>#<address>`: the List-Unsubscribe token of one rule's alerts to one address, and whether
 *   the address used it (`optedOutAt`). The token is kept as is, since every alert e-mail carries it; it can
 *   do nothing but stop that rule's alerts to that address.
 * - `SUPPRESSED#<address>`: the address bounced or complained (SES events); nothing is sent to it any more.
 * Tokens carry their item's key (`<scope>.<base64url address>.<random>`), so checking one costs one read.
 */
const table = () => resourcesConfig().DIRECTORY_TABLE;
const normal = (address: string) => address.trim().toLowerCase();
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
const sideKey = (clientId: string, address: string) => emailConsentKeys.side(clientId, mailboxOf(address));
const optOutKey = (ruleId: number, address: string) => emailConsentKeys.optOut(ruleId, normal(address));
const suppressedKey = (address: string) => emailConsentKeys.suppressed(normal(address));

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

/** The record of a side mailbox, as read: is its confirmation link still to be sent? */
export function confirmationDue(item: Record<string, unknown> | undefined, now: number): boolean {
  if (!item) return true;
  if (item.confirmedAt || item.requestedAt || item.unsubscribedAt) return false;
  if (typeof item.waitsUntil === 'number' && item.waitsUntil > now) return false;
  return typeof item.sendingUntil !== 'number' || item.sendingUntil < now;
}

/** The side addresses, one per mailbox (the first as written), lower-case. */
const onePerMailbox = (addresses: readonly string[]) => [...new Map(addresses.map((address) => [mailboxOf(address), normal(address)])).values()];

/** The records of side addresses, by address (lower-case), in one batch read. */
export async function sideRecords(clientId: string, sideAddresses: readonly string[]): Promise<Map<string, Record<string, unknown>>> {
  const sides = [...new Set(sideAddresses.map(normal))];
  const keys = [...new Map(sides.map((address) => [sideKey(clientId, address).pk, sideKey(clientId, address)])).values()];
  const items = new Map((await batchGet(keys)).map((item) => [String(item.pk), item]));
  const records = new Map<string, Record<string, unknown>>();
  for (const address of sides) {
    const item = items.get(sideKey(clientId, address).pk);
    if (item) records.set(address, item);
  }
  return records;
}

/** Side addresses of a client whose confirmation link is still to be sent, one per mailbox (one batch read). */
export async function addressesToAsk(clientId: string, sideAddresses: readonly string[], now: number): Promise<string[]> {
  const records = await sideRecords(clientId, sideAddresses);
  return onePerMailbox(sideAddresses).filter((address) => confirmationDue(records.get(address), now));
}

/** Registrations of one save written at the same time. */
const PARALLEL_REGISTRATIONS = 10;

/**
 * Registers the side mailboxes a rule save names that the client never had, counting them against `cap`
 * unconfirmed mailboxes per client. Returns false, registering none, when they would pass it. A mailbox two
 * concurrent saves both register is counted once (the second save's conditional put fails, and gives it back).
 */
export async function registerSideAddresses(clientId: string, sideAddresses: readonly string[], cap: number, now: number): Promise<boolean> {
  const records = await sideRecords(clientId, sideAddresses);
  const fresh = [...new Set(sideAddresses.filter((address) => !records.has(normal(address))).map(mailboxOf))];
  if (fresh.length === 0) return true;
  if (!(await reserveUnconfirmed(clientId, fresh.length, cap))) return false;
  const limit = pLimit(PARALLEL_REGISTRATIONS);
  const created = await Promise.all(
    fresh.map((mailbox) =>
      limit(async () => {
        try {
          await documentClient().send(
            new PutCommand({
              TableName: table(),
              Item: { ...sideKey(clientId, mailbox), registeredAt: new Date(now).toISOString(), counted: true },
              ConditionExpression: 'attribute_not_exists(pk)',
            }),
          );
          return true;
        } catch (error) {
          if (!conditionFailed(error)) throw error;
          return false;
        }
      }),
    ),
  );
  const already = created.filter((done) => !done).length;
  if (already > 0) await releaseUnconfirmed(clientId, already);
  return true;
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
  const sideKeys = new Map(sides.map((address) => [sideKey(clientId, address).pk, sideKey(clientId, address)]));
  const keys = [...all.map((address) => optOutKey(ruleId, address)), ...all.map((address) => suppressedKey(address)), ...sideKeys.values()];
  const items = new Map((await batchGet(keys)).map((item) => [String(item.pk), item]));
  const states: EmailStates = { blocked: new Map(), unsubscribeTokens: new Map(), unconfirmed: new Set(), unasked: new Set() };
  const asked = new Set<string>();
  for (const address of sides) {
    const side = items.get(sideKey(clientId, address).pk);
    // one link per mailbox: its first address on the rule is sent it
    if (confirmationDue(side, now) && !asked.has(mailboxOf(address))) states.unasked.add(address);
    asked.add(mailboxOf(address));
    if (!side?.confirmedAt) states.unconfirmed.add(address);
    if (side?.unsubscribedAt) states.blocked.set(address, 'unsubscribed');
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
          'attribute_not_exists(requestedAt) AND attribute_not_exists(confirmedAt) AND attribute_not_exists(unsubscribedAt) AND ' +
          '(attribute_not_exists(sendingUntil) OR sendingUntil < :now) AND (attribute_not_exists(waitsUntil) OR waitsUntil <= :now)',
        ExpressionAttributeValues: { ':hash': sha256(token), ':until': now + CONFIRMATION_SEND_LEASE_MS, ':now': now },
      }),
    );
    return token;
  } catch (error) {
    if (conditionFailed(error)) return null;
    throw error;
  }
}

/**
 * The claimed link went out (`sent`), could not go out now and may be tried again (`released`), or waits for
 * the client's daily budget until the given time (`{ waitsUntil }`, epoch ms).
 */
export async function settleConfirmation(
  clientId: string,
  address: string,
  outcome: 'sent' | 'released' | { waitsUntil: number },
  now: number,
): Promise<void> {
  const update =
    outcome === 'sent'
      ? {
          UpdateExpression: 'SET requestedAt = :at REMOVE sendingUntil, waitsUntil',
          ExpressionAttributeValues: { ':at': new Date(now).toISOString() },
        }
      : outcome === 'released'
        ? { UpdateExpression: 'REMOVE sendingUntil' }
        : { UpdateExpression: 'SET waitsUntil = :until REMOVE sendingUntil', ExpressionAttributeValues: { ':until': outcome.waitsUntil } };
  await documentClient().send(new UpdateCommand({ TableName: table(), Key: sideKey(clientId, address), ...update }));
}

/**
 * Sets `confirmedAt` on a side mailbox once; a mailbox that counted against the client's unconfirmed cap stops
 * counting (the update is atomic, so only the first confirmation gives it back).
 */
async function markConfirmed(clientId: string, address: string, now: number, extra = ''): Promise<void> {
  const { Attributes } = await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: sideKey(clientId, address),
      UpdateExpression: `SET confirmedAt = if_not_exists(confirmedAt, :now)${extra}`,
      ExpressionAttributeValues: { ':now': new Date(now).toISOString() },
      ReturnValues: 'ALL_OLD',
    }),
  );
  if (Attributes?.counted && !Attributes.confirmedAt) await releaseUnconfirmed(clientId, 1);
}

/** Confirms a side address by the token of its link. Returns the client and address, or null for a wrong token. */
export async function confirmSideEmail(token: string, now: number): Promise<{ clientId: string; address: string } | null> {
  const parts = parseToken(token);
  if (!parts) return null;
  const key = sideKey(parts.scope, parts.address);
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: true }));
  if (typeof Item?.tokenHash !== 'string' || !sameText(Item.tokenHash, sha256(token))) return null;
  await markConfirmed(parts.scope, parts.address, now);
  return { clientId: parts.scope, address: normal(parts.address) };
}

/** Whether a side address has confirmed, read consistently (to close the race with a confirmation). */
export async function isSideEmailConfirmed(clientId: string, address: string): Promise<boolean> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: sideKey(clientId, address), ConsistentRead: true }));
  return Boolean(Item?.confirmedAt);
}

const holdKey = (clientId: string, address: string, alertId: string) => emailConsentKeys.hold(clientId, mailboxOf(address), alertId);

/**
 * Notes that an alert waits for a side address to confirm, under the address's own key, so that confirming
 * finds exactly its held alerts. Kept (the directory's `ttl`) a day past the end of the hold.
 */
export async function recordHold(clientId: string, address: string, alertId: string, holdEnds: number): Promise<void> {
  await documentClient().send(
    new PutCommand({
      TableName: table(),
      Item: { ...holdKey(clientId, address, alertId), alertId, ttl: Math.floor(holdEnds / 1000) + 86_400 },
    }),
  );
}

/** The alerts held for a side address (a query of the address's own key). */
export async function heldAlertIds(clientId: string, address: string): Promise<string[]> {
  const holds = await queryAll({
    TableName: table(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :hold)',
    ExpressionAttributeValues: { ':pk': sideKey(clientId, address).pk, ':hold': emailConsentKeys.holdPrefix },
  });
  return holds.map((item) => String(item.alertId));
}

/** The held alert was handed back to delivery: its note goes. */
export async function forgetHold(clientId: string, address: string, alertId: string): Promise<void> {
  await documentClient().send(new DeleteCommand({ TableName: table(), Key: holdKey(clientId, address, alertId) }));
}

/** For seeding and operators: an address the client's administrator vouches for, confirmed without a link. */
export async function markSideEmailConfirmed(clientId: string, address: string, now: number): Promise<void> {
  await markConfirmed(clientId, address, now);
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

/** What a List-Unsubscribe token names: the rule, the address, and whether the address used it. */
export interface UnsubscribeLink {
  ruleId: number;
  address: string;
  optedOut: boolean;
}

/** The rule and address of a List-Unsubscribe token, or null for a wrong token (one consistent read). */
export async function unsubscribeLink(token: string): Promise<UnsubscribeLink | null> {
  const parts = parseToken(token);
  if (!parts || !/^\d{1,10}$/.test(parts.scope)) return null;
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: table(), Key: optOutKey(Number(parts.scope), parts.address), ConsistentRead: true }),
  );
  if (typeof Item?.token !== 'string' || !sameText(Item.token, token)) return null;
  return { ruleId: Number(parts.scope), address: normal(parts.address), optedOut: Boolean(Item.optedOutAt) };
}

/** One-click unsubscribe (RFC 8058): stops the rule's alerts to the address. Returns null for a wrong token. */
export async function unsubscribe(token: string, now: number): Promise<UnsubscribeLink | null> {
  const link = await unsubscribeLink(token);
  if (!link) return null;
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: optOutKey(link.ruleId, link.address),
      UpdateExpression: 'SET optedOutAt = if_not_exists(optedOutAt, :now)',
      ExpressionAttributeValues: { ':now': new Date(now).toISOString() },
    }),
  );
  return { ...link, optedOut: true };
}

/** Subscribes the address to the rule's alerts again, by the token it unsubscribed with. Null for a wrong token. */
export async function resubscribe(token: string): Promise<UnsubscribeLink | null> {
  const link = await unsubscribeLink(token);
  if (!link) return null;
  await documentClient().send(
    new UpdateCommand({ TableName: table(), Key: optOutKey(link.ruleId, link.address), UpdateExpression: 'REMOVE optedOutAt' }),
  );
  return { ...link, optedOut: false };
}

/**
 * A side mailbox unsubscribed: no rule of the client mails it, and no confirmation link goes to it, until it
 * subscribes again (unblockSideEmail).
 */
export async function blockSideEmail(clientId: string, address: string, now: number): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: sideKey(clientId, address),
      UpdateExpression: 'SET unsubscribedAt = if_not_exists(unsubscribedAt, :now)',
      ExpressionAttributeValues: { ':now': new Date(now).toISOString() },
    }),
  );
}

/**
 * The side mailbox subscribed again from a link only it received: the client's rules may mail it, and this
 * counts as its confirmation.
 */
export async function unblockSideEmail(clientId: string, address: string, now: number): Promise<void> {
  await markConfirmed(clientId, address, now, ' REMOVE unsubscribedAt');
}

/** An address that bounced permanently or complained: nothing more is sent to it. */
export async function suppressAddress(address: string, reason: string, now: number): Promise<void> {
  await documentClient().send(new PutCommand({ TableName: table(), Item: { ...suppressedKey(address), reason, at: new Date(now).toISOString() } }));
}
