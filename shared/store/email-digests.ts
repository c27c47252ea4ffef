import { createHash } from 'node:crypto';
import { DeleteCommand, paginateQuery, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import type { DeliveryStatus } from '../schemas/alert';
import { languageSchema } from '../schemas/language';
import { cancellation, conditionFailed } from './dynamo';
import { digestKeys } from './keys';

/**
 * Notifications held for one digest each recipient receives later, in the directory table. Two kinds:
 * - `quota`: alert e-mails held while the account's SES quota is nearly used, keyed by the client the alerts
 *   belong to (a rule's client) and the address, so one tenant's held mail is never listed with another's:
 *   `DIGEST#<clientId>#<address>` / `<alertId>` and `DIGESTDUE#<0..7>` / `<clientId>#<address>`; due an interval
 *   after the first e-mail held.
 * - `quietHours`: e-mails and Telegram messages held for a user during its quiet hours, keyed by the user, the
 *   target (`email:<address>`, `telegram:<chat id>`) and the end of that night's quiet hours (`until`), so each
 *   night is a digest of its own: `DIGEST#Q#<userId>#<until>#<target>` / `<alertId>` and
 *   `DIGESTDUE#<0..7>` / `~<until>#<userId>#<target>`. In their shard they sort after the quota digests and by
 *   their end, so the sweep's one query per shard reads only those whose quiet hours have ended (a key
 *   condition), never the nights still running.
 * Each `DIGEST#…` item is one held alert, rendered as its recipient reads it (subject and text), with the alert's
 * delivery key, so the digest can record it sent. The `DIGESTDUE#…` item is the digest: where it goes, its
 * language, how many alerts it holds (`pending`), when it is due (`dueAt`, epoch ms), and while one sender sends
 * it, `sendingUntil`; it exists only while something is held.
 * An alert is added with its digest's count in one transaction, and taken out the same way, so a digest is
 * deleted only when no alert is left in it (a condition on `pending`), however the two race.
 * Both expire (`ttl`) three days after they were last due to go out (the last e-mail held and its interval, or the
 * end of the quiet hours), long after the 24-hour quota returned.
 */
const table = () => resourcesConfig().DIRECTORY_TABLE;
const SHARDS = 8;
const KEEP_SECONDS = 3 * 86_400;
/** Alerts taken out of a digest per transaction (DynamoDB takes 100 actions; one is the count). */
const PER_TRANSACTION = 99;

export const digestIdSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('quota'), clientId: z.string().min(1).max(100), address: z.email().max(320) }).strict(),
  z
    .object({
      kind: z.literal('quietHours'),
      userId: z.string().min(1).max(100),
      /** The alert's delivery key of the target: `email:<address>` or `telegram:<chat id>`. */
      targetKey: z.string().min(1).max(400),
      /** When the quiet hours end, epoch ms. */
      until: z.number().int(),
    })
    .strict(),
]);
export type DigestId = z.infer<typeof digestIdSchema>;

/** Where a digest goes. */
export const digestDestinationSchema = z.discriminatedUnion('channel', [
  z.object({ channel: z.literal('email'), address: z.string().min(1) }),
  z.object({ channel: z.literal('telegram'), chatId: z.string().min(1) }),
]);
export type DigestDestination = z.infer<typeof digestDestinationSchema>;

/**
 * Starts the sort key of a quiet-hours digest: `~` sorts after every character of a quota digest's key (a client
 * id, which is a UUID, then `#`), so one range of a shard, up to `~<now>`, holds every quota digest and exactly the
 * quiet-hours digests whose night has ended.
 */
const QUIET_PREFIX = '~';
const normal = (address: string) => address.trim().toLowerCase();
const shardOf = (recipient: string) => createHash('sha256').update(recipient).digest().readUInt8(0) % SHARDS;
const isoOf = (epochMs: number) => new Date(epochMs).toISOString();

function keysOf(id: DigestId): { entriesPk: string; due: { pk: string; sk: string } } {
  if (id.kind === 'quota') {
    const recipient = `${id.clientId}#${normal(id.address)}`;
    return { entriesPk: digestKeys.quotaEntries(recipient), due: { pk: digestKeys.duePartition(shardOf(recipient)), sk: recipient } };
  }
  const until = isoOf(id.until);
  const recipient = `${id.userId}#${until}#${id.targetKey}`;
  return {
    entriesPk: digestKeys.quietEntries(recipient),
    due: { pk: digestKeys.duePartition(shardOf(recipient)), sk: `${QUIET_PREFIX}${until}#${id.userId}#${id.targetKey}` },
  };
}

export const heldEmailSchema = z.object({
  alertId: z.string().min(1),
  /** The alert's `deliveries` key of this e-mail (or message). */
  targetKey: z.string().min(1),
  subject: z.string(),
  text: z.string(),
  /** ISO time the e-mail was held. */
  heldAt: z.string(),
});
export type HeldEmail = z.infer<typeof heldEmailSchema>;

const quotaItemSchema = z.object({
  clientId: z.string().min(1),
  address: z.string().min(1),
  language: languageSchema,
  pending: z.number(),
  dueAt: z.number(),
});
const quietItemSchema = z.object({
  kind: z.literal('quietHours'),
  userId: z.string().min(1),
  targetKey: z.string().min(1),
  until: z.number(),
  destination: digestDestinationSchema,
  language: languageSchema,
  pending: z.number(),
  dueAt: z.number(),
});

/** A digest as stored: which, where it goes, in which language, and when it is due. */
export interface Digest {
  id: DigestId;
  destination: DigestDestination;
  language: z.infer<typeof languageSchema>;
  pending: number;
  dueAt: number;
}

function digestOf(item: unknown): Digest | null {
  const quiet = quietItemSchema.safeParse(item);
  if (quiet.success) {
    const { userId, targetKey, until, destination, language, pending, dueAt } = quiet.data;
    return { id: { kind: 'quietHours', userId, targetKey, until }, destination, language, pending, dueAt };
  }
  const quota = quotaItemSchema.safeParse(item);
  if (!quota.success) return null;
  const { clientId, address, language, pending, dueAt } = quota.data;
  return { id: { kind: 'quota', clientId, address }, destination: { channel: 'email', address }, language, pending, dueAt };
}

const isCancelledByCondition = (error: unknown) => (cancellation(error)?.failedIndex ?? -1) >= 0;

/** What a hold writes to the alert in the same transaction: the target's delivery status. */
export interface AlertRecord {
  alertId: string;
  key: string;
  status: DeliveryStatus;
}

/** The digest item's attributes besides its count, set by the first alert held. */
function digestAttributes(id: DigestId, destination: DigestDestination): Record<string, unknown> {
  if (id.kind === 'quota') return { clientId: id.clientId, address: normal(id.address) };
  return { kind: id.kind, userId: id.userId, targetKey: id.targetKey, until: id.until, destination };
}

/**
 * Holds one alert for a digest, due at `dueAt` if it is the first alert the digest holds. With `record`, the
 * alert's delivery status is written in the same transaction, so an alert is never held without the alert saying
 * so, nor the other way round. Returns false when the alert was already held (a redelivered request): it is
 * listed once, and the status is recorded again.
 */
export async function holdForDigest(
  id: DigestId,
  destination: DigestDestination,
  language: Digest['language'],
  email: HeldEmail,
  now: number,
  dueAt: number,
  record?: AlertRecord,
): Promise<boolean> {
  const { entriesPk, due } = keysOf(id);
  const ttl = Math.floor(Math.max(now, dueAt) / 1000) + KEEP_SECONDS;
  const attributes = Object.entries(digestAttributes(id, destination));
  try {
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: table(),
              Item: { pk: entriesPk, sk: email.alertId, ...email, ttl },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Update: {
              TableName: table(),
              Key: due,
              UpdateExpression:
                `ADD pending :one SET ${attributes.map(([name]) => `#${name} = :${name}`).join(', ')}, ` +
                '#language = if_not_exists(#language, :language), dueAt = if_not_exists(dueAt, :due), #ttl = :ttl',
              ExpressionAttributeNames: {
                '#language': 'language',
                '#ttl': 'ttl',
                ...Object.fromEntries(attributes.map(([name]) => [`#${name}`, name])),
              },
              ExpressionAttributeValues: {
                ':one': 1,
                ':language': language,
                ':due': dueAt,
                ':ttl': ttl,
                ...Object.fromEntries(attributes.map(([name, value]) => [`:${name}`, value])),
              },
            },
          },
          ...(record
            ? [
                {
                  Update: {
                    TableName: resourcesConfig().ALERTS_TABLE,
                    Key: { alertId: record.alertId },
                    UpdateExpression: 'SET deliveries.#key = :status',
                    ExpressionAttributeNames: { '#key': record.key },
                    ExpressionAttributeValues: { ':status': record.status },
                  },
                },
              ]
            : []),
        ],
      }),
    );
    return true;
  } catch (error) {
    if (isCancelledByCondition(error)) return false;
    throw error;
  }
}

/**
 * The digests due at `now`: one query per shard, over the recipients with held quota mail and the quiet-hours
 * digests whose quiet hours have ended; a night still running sorts after the range, so it is not read.
 */
export async function dueDigests(now: number): Promise<Digest[]> {
  const due: Digest[] = [];
  // a quiet-hours key whose end is at or before `now` sorts before the next millisecond's
  const before = `${QUIET_PREFIX}${isoOf(now + 1)}`;
  for (let shard = 0; shard < SHARDS; shard++) {
    const pages = paginateQuery(
      { client: documentClient() },
      {
        TableName: table(),
        KeyConditionExpression: 'pk = :pk AND sk < :before',
        FilterExpression: 'dueAt <= :now',
        ExpressionAttributeValues: { ':pk': digestKeys.duePartition(shard), ':before': before, ':now': now },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        const digest = digestOf(item);
        if (digest) due.push(digest);
      }
    }
  }
  return due;
}

/**
 * Moves a due digest's time to `nextDueAt`, if nobody moved it since it was read: the one sweep that does
 * enqueues it, and if that request is lost the digest is due again then.
 */
export async function postponeDueDigest(digest: Digest, nextDueAt: number): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: keysOf(digest.id).due,
        UpdateExpression: 'SET dueAt = :next',
        ConditionExpression: 'dueAt = :due',
        ExpressionAttributeValues: { ':next': nextDueAt, ':due': digest.dueAt },
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}

/** Takes the sending of a digest for `leaseMs`; null when there is none or another sender has it. */
export async function claimDigest(id: DigestId, now: number, leaseMs: number): Promise<Digest | null> {
  try {
    const { Attributes } = await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: keysOf(id).due,
        UpdateExpression: 'SET sendingUntil = :until',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(sendingUntil) OR sendingUntil < :now)',
        ExpressionAttributeValues: { ':until': now + leaseMs, ':now': now },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const digest = digestOf(Attributes);
    if (!digest) throw new Error(`digest item ${JSON.stringify(keysOf(id).due)} does not match its schema`);
    return digest;
  } catch (error) {
    if (conditionFailed(error)) return null;
    throw error;
  }
}

/** The alerts a digest holds, oldest first (one consistent query, paged). */
export async function heldEmails(id: DigestId): Promise<HeldEmail[]> {
  const held: HeldEmail[] = [];
  const pages = paginateQuery(
    { client: documentClient() },
    {
      TableName: table(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keysOf(id).entriesPk },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) for (const item of page.Items ?? []) held.push(heldEmailSchema.parse(item));
  return held.sort((a, b) => a.heldAt.localeCompare(b.heldAt) || a.alertId.localeCompare(b.alertId));
}

/** The digest could not go out now: it is due again at `nextDueAt`, and free for the next sender. */
export async function releaseDigest(id: DigestId, nextDueAt: number): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: keysOf(id).due,
      UpdateExpression: 'SET dueAt = :next REMOVE sendingUntil',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':next': nextDueAt },
    }),
  );
}

/**
 * Takes the alerts that went out (or failed for good) out of the digest. The digest itself goes when nothing
 * is left in it; an alert held meanwhile keeps it, due again at `nextDueAt`.
 */
export async function settleDigest(id: DigestId, settled: readonly HeldEmail[], nextDueAt: number): Promise<void> {
  const { entriesPk, due } = keysOf(id);
  for (let start = 0; start < settled.length; start += PER_TRANSACTION) {
    const chunk = settled.slice(start, start + PER_TRANSACTION);
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          ...chunk.map((email) => ({ Delete: { TableName: table(), Key: { pk: entriesPk, sk: email.alertId } } })),
          {
            Update: {
              TableName: table(),
              Key: due,
              UpdateExpression: 'ADD pending :minus',
              ExpressionAttributeValues: { ':minus': -chunk.length },
            },
          },
        ],
      }),
    );
  }
  try {
    await documentClient().send(
      new DeleteCommand({ TableName: table(), Key: due, ConditionExpression: 'pending <= :zero', ExpressionAttributeValues: { ':zero': 0 } }),
    );
  } catch (error) {
    if (!conditionFailed(error)) throw error;
    await releaseDigest(id, nextDueAt);
  }
}
