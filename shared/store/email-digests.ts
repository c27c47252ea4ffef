import { createHash } from 'node:crypto';
import { DeleteCommand, paginateQuery, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { languageSchema } from '../schemas/directory';

/**
 * Alert e-mails held for a recipient's digest while the account's SES quota is nearly used, in the directory
 * table. Everything is keyed by the client the alerts belong to (a rule's client) and the address, so one
 * tenant's held mail is never listed with another's:
 * - `DIGEST#<clientId>#<address>` / `<alertId>`: one held alert, rendered as its recipient reads it (subject and
 *   text), with the alert's delivery key (`email:<address>`), so the digest can record it sent.
 * - `DIGESTDUE#<0..7>` / `<clientId>#<address>`: the recipient's digest: its language, how many alerts it holds
 *   (`pending`), when it is due (`dueAt`, epoch ms), and while one sender sends it, `sendingUntil`. The sweep
 *   reads the eight shards for digests due; the items exist only while mail is held.
 * An alert is added with its digest's count in one transaction, and taken out the same way, so a digest is
 * deleted only when no alert is left in it (a condition on `pending`), however the two race.
 * Both kinds expire (`ttl`) three days after the last alert was held, long after the 24-hour quota returned.
 */
const table = () => resourcesConfig().DIRECTORY_TABLE;
const SHARDS = 8;
const KEEP_SECONDS = 3 * 86_400;
/** Alerts taken out of a digest per transaction (DynamoDB takes 100 actions; one is the count). */
const PER_TRANSACTION = 99;

const normal = (address: string) => address.trim().toLowerCase();
const recipient = (clientId: string, address: string) => `${clientId}#${normal(address)}`;
const shardOf = (clientId: string, address: string) => createHash('sha256').update(recipient(clientId, address)).digest().readUInt8(0) % SHARDS;
const digestKey = (clientId: string, address: string) => ({ pk: `DIGESTDUE#${shardOf(clientId, address)}`, sk: recipient(clientId, address) });
const entriesPk = (clientId: string, address: string) => `DIGEST#${recipient(clientId, address)}`;

export const heldEmailSchema = z.object({
  alertId: z.string().min(1),
  /** The alert's `deliveries` key of this e-mail. */
  targetKey: z.string().min(1),
  subject: z.string(),
  text: z.string(),
  /** ISO time the e-mail was held. */
  heldAt: z.string(),
});
export type HeldEmail = z.infer<typeof heldEmailSchema>;

const digestSchema = z.object({
  clientId: z.string().min(1),
  address: z.string().min(1),
  language: languageSchema,
  pending: z.number(),
  dueAt: z.number(),
});
export type Digest = z.infer<typeof digestSchema>;

const isCancelledByCondition = (error: unknown) =>
  (error as Error).name === 'TransactionCanceledException' &&
  ((error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).some((reason) => reason.Code === 'ConditionalCheckFailed');

/**
 * Holds one alert's e-mail for the recipient's digest, due `intervalMs` after the first alert it holds.
 * Returns false when the alert was already held (a redelivered request): it is listed once.
 */
export async function holdForDigest(
  clientId: string,
  address: string,
  language: Digest['language'],
  email: HeldEmail,
  now: number,
  intervalMs: number,
): Promise<boolean> {
  const ttl = Math.floor(now / 1000) + KEEP_SECONDS;
  try {
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: table(),
              Item: { pk: entriesPk(clientId, address), sk: email.alertId, ...email, ttl },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Update: {
              TableName: table(),
              Key: digestKey(clientId, address),
              UpdateExpression:
                'ADD pending :one SET clientId = :client, address = :address, #language = if_not_exists(#language, :language), ' +
                'dueAt = if_not_exists(dueAt, :due), #ttl = :ttl',
              ExpressionAttributeNames: { '#language': 'language', '#ttl': 'ttl' },
              ExpressionAttributeValues: {
                ':one': 1,
                ':client': clientId,
                ':address': normal(address),
                ':language': language,
                ':due': now + intervalMs,
                ':ttl': ttl,
              },
            },
          },
        ],
      }),
    );
    return true;
  } catch (error) {
    if (isCancelledByCondition(error)) return false;
    throw error;
  }
}

/** The digests due at `now`: one query per shard, over recipients with held mail only. */
export async function dueDigests(now: number): Promise<Digest[]> {
  const due: Digest[] = [];
  for (let shard = 0; shard < SHARDS; shard++) {
    const pages = paginateQuery(
      { client: documentClient() },
      {
        TableName: table(),
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: 'dueAt <= :now',
        ExpressionAttributeValues: { ':pk': `DIGESTDUE#${shard}`, ':now': now },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        const digest = digestSchema.safeParse(item);
        if (digest.success) due.push(digest.data);
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
        Key: digestKey(digest.clientId, digest.address),
        UpdateExpression: 'SET dueAt = :next',
        ConditionExpression: 'dueAt = :due',
        ExpressionAttributeValues: { ':next': nextDueAt, ':due': digest.dueAt },
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/** Takes the sending of a recipient's digest for `leaseMs`; null when there is none or another sender has it. */
export async function claimDigest(clientId: string, address: string, now: number, leaseMs: number): Promise<Digest | null> {
  try {
    const { Attributes } = await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: digestKey(clientId, address),
        UpdateExpression: 'SET sendingUntil = :until',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(sendingUntil) OR sendingUntil < :now)',
        ExpressionAttributeValues: { ':until': now + leaseMs, ':now': now },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return digestSchema.parse(Attributes);
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return null;
    throw error;
  }
}

/** The alerts a recipient's digest holds, oldest first (one consistent query, paged). */
export async function heldEmails(clientId: string, address: string): Promise<HeldEmail[]> {
  const held: HeldEmail[] = [];
  const pages = paginateQuery(
    { client: documentClient() },
    {
      TableName: table(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': entriesPk(clientId, address) },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) for (const item of page.Items ?? []) held.push(heldEmailSchema.parse(item));
  return held.sort((a, b) => a.heldAt.localeCompare(b.heldAt) || a.alertId.localeCompare(b.alertId));
}

/** The digest could not go out now: it is due again at `nextDueAt`, and free for the next sender. */
export async function releaseDigest(clientId: string, address: string, nextDueAt: number): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: digestKey(clientId, address),
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
export async function settleDigest(clientId: string, address: string, settled: readonly HeldEmail[], nextDueAt: number): Promise<void> {
  const key = digestKey(clientId, address);
  for (let start = 0; start < settled.length; start += PER_TRANSACTION) {
    const chunk = settled.slice(start, start + PER_TRANSACTION);
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          ...chunk.map((email) => ({ Delete: { TableName: table(), Key: { pk: entriesPk(clientId, address), sk: email.alertId } } })),
          {
            Update: {
              TableName: table(),
              Key: key,
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
      new DeleteCommand({ TableName: table(), Key: key, ConditionExpression: 'pending <= :zero', ExpressionAttributeValues: { ':zero': 0 } }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    await releaseDigest(clientId, address, nextDueAt);
  }
}
