import pLimit from 'p-limit';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../aws/dynamodb';
import { releaseUnconfirmed, reserveUnconfirmed } from '../sender-guard';
import { conditionFailed } from '../dynamo';
import { emailConsentKeys } from '../keys';
import { batchGet, encodeAddress, mailboxOf, normal, parseToken, sameText, secret, sha256, table } from './address';

/**
 * The side mailboxes of a client's rules (`SIDEMAIL#…` / `SIDEMAIL`, keyed by the address without a `+tag`, see
 * mailboxOf). Alerts go to its addresses only once it confirmed the one-time link sent to it (`tokenHash`,
 * `confirmedAt`); the link is sent once per client and mailbox (`requestedAt`: when it went out). While one
 * sender is sending it, `sendingUntil` keeps others off; a send that failed leaves no `requestedAt`, so the
 * next attempt sends it (with a new token); `waitsUntil`: the send waits for the client's daily budget.
 * `registeredAt`/`counted`: a rule save registered it, and it counts against the client's unconfirmed cap
 * until it confirms. `unsubscribedAt`: it unsubscribed, which stops every rule of the client and every new
 * link, until it subscribes again with its unsubscribe token.
 */
export const sideKey = (clientId: string, address: string) => emailConsentKeys.side(clientId, mailboxOf(address));

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

/** For seeding and operators: an address the client's administrator vouches for, confirmed without a link. */
export async function markSideEmailConfirmed(clientId: string, address: string, now: number): Promise<void> {
  await markConfirmed(clientId, address, now);
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
