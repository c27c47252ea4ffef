import { createHash, randomBytes } from 'node:crypto';
import { GetCommand, UpdateCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { logger } from '../observability/logger';
import { silenceIdClient, storedSilenceSchema, type StoredSilence } from '../schemas/silence';
import { ClientLimitError, recount, transactCounted } from './client-counts';
import { parseRecord } from './record-schema';
import { cancellation, conditionFailed, conditionFailedAt } from './dynamo';
import { silenceKeys } from './keys';

/**
 * The maintenance silences of each client (schemas/silence.ts for the layout). A silence is kept
 * SILENCE_KEEP_DAYS after it ended (its `to`, or when it was ended early) for the API and the rules' suppressed
 * logs to name, then expires (the directory's `ttl`); an expired silence is as good as gone everywhere.
 */
export const SILENCE_KEEP_DAYS = 7;

const table = () => resourcesConfig().DIRECTORY_TABLE;

/** A new silence's id: its client, then 128 random bits. */
export const newSilenceId = (clientId: string) => `${clientId}.${randomBytes(16).toString('base64url')}`;

/** The id of a silence made from an alert's button or link: one per alert and action, so a second press makes none. */
export const derivedSilenceId = (clientId: string, alertId: string, action: string) =>
  `${clientId}.${createHash('sha256').update(`${alertId}|${action}`).digest().subarray(0, 16).toString('base64url')}`;

/** When the silence stops: its `to`, or when it was ended, if earlier (epoch ms). */
export const silenceEnd = (silence: Pick<StoredSilence, 'to' | 'endedAt'>) =>
  Math.min(Date.parse(silence.to), silence.endedAt === null ? Number.POSITIVE_INFINITY : Date.parse(silence.endedAt));

const expiresAt = (silence: Pick<StoredSilence, 'to' | 'endedAt'>) => Math.floor(silenceEnd(silence) / 1000) + SILENCE_KEEP_DAYS * 86_400;

const live = (item: Record<string, unknown>, now: number) => typeof item.ttl !== 'number' || item.ttl * 1000 > now;

function parseItem(item: Record<string, unknown>): StoredSilence | null {
  const parsed = storedSilenceSchema.safeParse(item);
  if (parsed.success) return parsed.data;
  logger.error('unreadable silence skipped', { silenceId: item.id, issues: parsed.error.issues.slice(0, 5) });
  return null;
}

export type SilenceCreation = { created: true; silence: StoredSilence } | { created: false; silence: StoredSilence };

/**
 * Stores a new silence, counted against the client's `limit` in the same transaction. A counter found full is
 * counted again from the live silences once (expired ones free their places). A silence whose id is taken (a
 * button pressed twice) is not written again: the one stored is answered.
 */
export async function createSilence(input: StoredSilence, limit: number): Promise<SilenceCreation> {
  const silence = parseRecord(storedSilenceSchema, input, 'silence');
  const put = {
    Put: {
      TableName: table(),
      Item: { ...silenceKeys.silence(silence.parentId, silence.id), ...silence, ttl: expiresAt(silence) },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
  const count = { kind: 'silences' as const, clientId: silence.parentId, delta: 1 as const, limit };
  for (let attempt = 0; ; attempt++) {
    try {
      await transactCounted([put], [count]);
      return { created: true, silence };
    } catch (error) {
      const taken = conditionFailedAt(cancellation(error)?.reasons ?? [], 0);
      if (!taken && !(error instanceof ClientLimitError)) throw error;
      // a silence already stored under this id is the answer, whether or not the client is at its limit
      const stored = await getSilence(silence.id, Date.parse(silence.createdAt));
      if (stored) return { created: false, silence: stored };
      if (error instanceof ClientLimitError && attempt === 0 && (await recount('silences', silence.parentId, limit, Date.parse(silence.createdAt))))
        continue;
      throw error;
    }
  }
}

/** The silence with this id, or null when there is none (or it expired). */
export async function getSilence(silenceId: string, now: number): Promise<StoredSilence | null> {
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: table(), Key: silenceKeys.silence(silenceIdClient(silenceId), silenceId), ConsistentRead: true }),
  );
  return Item && live(Item, now) ? parseItem(Item) : null;
}

/** The stored items of a client's silences, unparsed (evaluation's cache parses them), expired ones left out. */
export async function silenceItemsOfClient(
  clientId: string,
  now: number,
  options: { consistent?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of paginateQuery(
    { client: documentClient() },
    {
      TableName: table(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': silenceKeys.partition(clientId), ':prefix': silenceKeys.sortPrefix },
      ConsistentRead: options.consistent ?? false,
    },
  )) {
    items.push(...(page.Items ?? []).filter((item) => live(item, now)));
  }
  return items;
}

/** A client's silences, oldest first. */
export async function listSilences(clientId: string, now: number): Promise<StoredSilence[]> {
  const silences = (await silenceItemsOfClient(clientId, now, { consistent: true })).map(parseItem).filter((silence) => silence !== null);
  return silences.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

/**
 * Ends a silence now, unless it already ended (or its `to` passed): then it is answered as it was. Null when there
 * is no such silence.
 */
export async function endSilence(silenceId: string, by: string, now: number): Promise<StoredSilence | null> {
  const current = await getSilence(silenceId, now);
  if (!current || silenceEnd(current) <= now) return current;
  const endedAt = new Date(now).toISOString();
  try {
    const { Attributes } = await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: silenceKeys.silence(current.parentId, silenceId),
        UpdateExpression: 'SET endedAt = :ended, endedBy = :by, #ttl = :ttl',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(endedAt) OR endedAt = :none)',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':ended': endedAt, ':by': by, ':ttl': expiresAt({ to: current.to, endedAt }), ':none': null },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes ? parseItem(Attributes) : null;
  } catch (error) {
    if (!conditionFailed(error)) throw error;
    return getSilence(silenceId, now);
  }
}

/** Deletes a silence and frees its place in the client's count: false when there was none. */
export async function deleteSilence(silence: Pick<StoredSilence, 'id' | 'parentId'>): Promise<boolean> {
  try {
    await transactCounted(
      [{ Delete: { TableName: table(), Key: silenceKeys.silence(silence.parentId, silence.id), ConditionExpression: 'attribute_exists(pk)' } }],
      [{ kind: 'silences', clientId: silence.parentId, delta: -1 }],
    );
    return true;
  } catch (error) {
    if (conditionFailedAt(cancellation(error)?.reasons ?? [], 0)) return false;
    throw error;
  }
}
