import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { conditionFailed, queryAll } from './dynamo';
import { senderKeys } from './keys';

/**
 * What keeps one client from using the shared sender against strangers, in the directory table:
 * - `SENDER#<clientId>` / `BUDGET#<day>`: confirmation e-mails sent on one UTC day, one conditional ADD each.
 * - `SENDER#<clientId>` / `FEEDBACK#<day>`: permanent bounces and complaints SES reported that day on the
 *   client's confirmation e-mails.
 * - `SENDER#<clientId>` / `UNCONFIRMED`: the client's side mailboxes registered and not confirmed yet.
 * - `CONFIRMSTOPS` / `<clientId>`: the client's confirmations are stopped, until an operator clears it.
 * - `CONFIRMWAIT#<day>` / `<clientId>#<mailbox>`: a confirmation that waits for the client's budget of that
 *   day; the sweep hands it back to the deliveries queue once the day has begun.
 * Every counter is one item per client, so each check costs one write whatever the size of the platform.
 */
const table = () => resourcesConfig().DIRECTORY_TABLE;
const DAY_MS = 86_400_000;
const STOPS_PK = senderKeys.stops;
const waitPk = senderKeys.waitPartition;

/** The UTC day of an instant, as a day number. */
export const dayOf = (now: number) => Math.floor(now / DAY_MS);
/** When the UTC day after `now` begins (epoch ms). */
export const nextDayStart = (now: number) => (dayOf(now) + 1) * DAY_MS;

/**
 * Takes one confirmation e-mail from the client's budget of the day. Returns null when it may go out, else
 * when the next day's budget begins (epoch ms).
 */
export async function takeConfirmationBudget(clientId: string, now: number, perDay: number): Promise<number | null> {
  const day = dayOf(now);
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: senderKeys.budget(clientId, day),
        UpdateExpression: 'ADD sent :one SET #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(sent) OR sent < :limit',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':limit': perDay, ':ttl': ((day + 2) * DAY_MS) / 1000 },
      }),
    );
    return null;
  } catch (error) {
    if (conditionFailed(error)) return nextDayStart(now);
    throw error;
  }
}

/** Notes that a client's confirmation to `address` waits until `resumesAt` (the start of a UTC day). */
export async function noteConfirmationWait(clientId: string, mailbox: string, address: string, resumesAt: number): Promise<void> {
  await documentClient().send(
    new PutCommand({
      TableName: table(),
      Item: { pk: waitPk(dayOf(resumesAt)), sk: `${clientId}#${mailbox}`, clientId, address, ttl: resumesAt / 1000 + (2 * DAY_MS) / 1000 },
    }),
  );
}

export interface ConfirmationWait {
  day: number;
  clientId: string;
  mailbox: string;
  address: string;
}

/**
 * The confirmations whose wait is over: those noted for today and for yesterday (in case the sweep did not
 * run over midnight). One query per day, over that day's waits only.
 */
export async function dueConfirmationWaits(now: number): Promise<ConfirmationWait[]> {
  const waits: ConfirmationWait[] = [];
  for (const day of [dayOf(now) - 1, dayOf(now)]) {
    const items = await queryAll({ TableName: table(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': waitPk(day) } });
    for (const item of items) {
      const sk = String(item.sk);
      waits.push({ day, clientId: String(item.clientId), mailbox: sk.slice(sk.indexOf('#') + 1), address: String(item.address) });
    }
  }
  return waits;
}

/** The wait was handed back to the deliveries queue. */
export async function forgetConfirmationWait(wait: Pick<ConfirmationWait, 'day' | 'clientId' | 'mailbox'>): Promise<void> {
  await documentClient().send(new DeleteCommand({ TableName: table(), Key: { pk: waitPk(wait.day), sk: `${wait.clientId}#${wait.mailbox}` } }));
}

/** Counts one permanent bounce or complaint on a confirmation e-mail of the client; returns the day's count. */
export async function countConfirmationFeedback(clientId: string, now: number): Promise<number> {
  const day = dayOf(now);
  const { Attributes } = await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: senderKeys.feedback(clientId, day),
      UpdateExpression: 'ADD events :one SET #ttl = :ttl',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':one': 1, ':ttl': ((day + 2) * DAY_MS) / 1000 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(Attributes?.events ?? 1);
}

export interface ConfirmationStop {
  clientId: string;
  since: string;
  reason: string;
}

/** Stops the client's confirmations. Returns false when they were already stopped. */
export async function stopConfirmations(clientId: string, reason: string, now: number): Promise<boolean> {
  try {
    await documentClient().send(
      new PutCommand({
        TableName: table(),
        Item: { pk: STOPS_PK, sk: clientId, since: new Date(now).toISOString(), reason },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}

const toStop = (item: Record<string, unknown>): ConfirmationStop => ({
  clientId: String(item.sk),
  since: String(item.since),
  reason: String(item.reason),
});

/** Whether the client's confirmations are stopped, and since when. */
export async function confirmationStop(clientId: string): Promise<ConfirmationStop | null> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: { pk: STOPS_PK, sk: clientId } }));
  return Item ? toStop(Item) : null;
}

/** Every client whose confirmations are stopped (one partition: only stopped clients are in it). */
export async function listConfirmationStops(): Promise<ConfirmationStop[]> {
  const items = await queryAll({ TableName: table(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': STOPS_PK } });
  return items.map(toStop);
}

/** An operator lets the client's confirmations go out again; the day's count of bounces starts over. */
export async function clearConfirmationStop(clientId: string, now: number): Promise<boolean> {
  const { Attributes } = await documentClient().send(
    new DeleteCommand({ TableName: table(), Key: { pk: STOPS_PK, sk: clientId }, ReturnValues: 'ALL_OLD' }),
  );
  await documentClient().send(new DeleteCommand({ TableName: table(), Key: senderKeys.feedback(clientId, dayOf(now)) }));
  return Attributes !== undefined;
}

/**
 * Counts `count` new unconfirmed mailboxes of the client, unless that would pass `cap`. One conditional ADD:
 * concurrent saves cannot pass the cap together.
 */
export async function reserveUnconfirmed(clientId: string, count: number, cap: number): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: senderKeys.unconfirmed(clientId),
        UpdateExpression: 'ADD unconfirmed :count',
        ConditionExpression: 'attribute_not_exists(unconfirmed) OR unconfirmed <= :room',
        ExpressionAttributeValues: { ':count': count, ':room': cap - count },
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}

/** Mailboxes counted by reserveUnconfirmed that confirmed (or were counted twice by a concurrent save). */
export async function releaseUnconfirmed(clientId: string, count: number): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: senderKeys.unconfirmed(clientId),
      UpdateExpression: 'ADD unconfirmed :minus',
      ExpressionAttributeValues: { ':minus': -count },
    }),
  );
}

/** The client's unconfirmed mailboxes, as counted. */
export async function unconfirmedCount(clientId: string): Promise<number> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: senderKeys.unconfirmed(clientId) }));
  return Number(Item?.unconfirmed ?? 0);
}
