import type { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { conditionFailed, conditionFailedAt, transactOrConflict } from './dynamo';
import { directoryKeys, silenceKeys } from './keys';

/**
 * How many rules or geozones each client owns, kept on one counter item per client and kind in the directory
 * table (`COUNTS#<clientId>` / `RULES` or `GEOZONES`). Every write that creates, deletes or moves a record changes
 * the counter in the same transaction, conditioned on the limit, so parallel requests can never store more than
 * the limit. A counter that does not exist yet (a client whose records predate counters) is made from the
 * table's `byParent` index the first time a write needs it: every write needs it, so nothing can change the
 * client's records between that count and the counter's creation.
 *
 * The counter also hands out the ids of the client's new records (`createCounted`): it holds a block of ids
 * `[next, end)` drawn from the kind's global sequence (`lastRuleId` / `lastGeozoneId` on the table's meta item
 * `id = 0`), so a create takes its id in the same conditional update that counts it, with no write of its own.
 *
 * A client's maintenance silences are counted the same way, on `SILENCE#<clientId>` / `COUNT` in the silences'
 * own partition (keys.ts), from the live silences of that partition. Silences expire (time to live), which
 * no write counts down: a counter found full is counted again from the live ones (`recount`) before a create is refused.
 */
export type CountedKind = 'rules' | 'geozones' | 'silences';
/** The kinds whose counter also hands out integer ids. */
type NumberedKind = Exclude<CountedKind, 'silences'>;

export type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

/** One change of a client's count: +1 for a record created in or moved to it (within `limit`), -1 for one leaving. */
export interface CountChange {
  kind: CountedKind;
  clientId: string;
  delta: 1 | -1;
  limit?: number;
}

/** The client already owns `limit` records of this kind: the write did not happen. */
export class ClientLimitError extends Error {
  constructor(
    readonly kind: CountedKind,
    readonly limit: number,
  ) {
    super(`the client already has ${limit} ${kind}, the most allowed`);
    this.name = 'ClientLimitError';
  }
}

/** Too many creates for the client raced for its counter at once: none of this one's writes happened. */
export class ClientCounterBusyError extends Error {
  constructor(readonly kind: CountedKind) {
    super(`too many ${kind} of the client are being created at once; try again`);
    this.name = 'ClientCounterBusyError';
  }
}

const tableOf = (kind: NumberedKind) => (kind === 'rules' ? resourcesConfig().RULES_TABLE : resourcesConfig().GEOZONES_TABLE);

const counterKey = (clientId: string, kind: CountedKind) => (kind === 'silences' ? silenceKeys.count(clientId) : directoryKeys.count(clientId, kind));

/** The meta item (`id = 0`) of the kind's table and the attribute on it that holds the last id handed out. */
const SEQUENCES = { rules: 'lastRuleId', geozones: 'lastGeozoneId' } as const;
const SEQUENCE_ITEM_ID = 0;

/**
 * Ids a counter draws from the global sequence at once. Each draw is one write shared by this many creates of
 * the client (1/20 of a unit each), while ids left in a block are never used: gaps stay small next to the ids'
 * range, and a client that creates one record seldom wastes at most 19 ids.
 */
export const ID_BLOCK_SIZE = 20;

/** Creates racing for one client's counter that a create outlasts before giving up with ClientCounterBusyError. */
const CREATE_ATTEMPTS = 10;

function countItem(change: CountChange): TransactItem {
  const limited = change.delta > 0 && change.limit !== undefined;
  return {
    Update: {
      TableName: resourcesConfig().DIRECTORY_TABLE,
      Key: counterKey(change.clientId, change.kind),
      UpdateExpression: 'ADD #count :delta',
      ConditionExpression: limited ? 'attribute_exists(pk) AND #count < :limit' : 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':delta': change.delta, ...(limited ? { ':limit': change.limit } : {}) },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/** The client's records of this kind, counted on the table's `byParent` index (keys only), or its live silences. */
async function countByParent(kind: CountedKind, clientId: string, now = Date.now()): Promise<number> {
  let count = 0;
  const query =
    kind === 'silences'
      ? {
          TableName: resourcesConfig().DIRECTORY_TABLE,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          // time to live deletes late: an expired silence counts as gone
          FilterExpression: '#ttl > :now',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':pk': silenceKeys.partition(clientId),
            ':prefix': silenceKeys.sortPrefix,
            ':now': Math.floor(now / 1000),
          },
        }
      : {
          TableName: tableOf(kind),
          IndexName: 'byParent',
          KeyConditionExpression: 'parentId = :parent',
          ExpressionAttributeValues: { ':parent': clientId },
        };
  for await (const page of paginateQuery({ client: documentClient() }, { ...query, Select: 'COUNT' })) {
    count += page.Count ?? 0;
  }
  return count;
}

/** Creates the client's counter from its records, unless another write created it first. */
export async function initializeCount(kind: CountedKind, clientId: string): Promise<void> {
  const count = await countByParent(kind, clientId);
  try {
    await documentClient().send(
      new PutCommand({
        TableName: resourcesConfig().DIRECTORY_TABLE,
        Item: { ...counterKey(clientId, kind), count },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (!conditionFailed(error)) throw error;
  }
}

/** One write costs half as much outside a transaction. */
async function writeAlone(item: TransactItem): Promise<void> {
  if (item.Put) await documentClient().send(new PutCommand(item.Put));
  else if (item.Delete) await documentClient().send(new DeleteCommand(item.Delete));
  else if (item.Update) await documentClient().send(new UpdateCommand(item.Update));
  else throw new Error('a lone condition check writes nothing');
}

/**
 * Runs `items` and the count changes as one transaction, or a lone item as a plain write (whose failed
 * condition is a ConditionalCheckFailedException). A counter at its limit throws ClientLimitError; a missing
 * counter is created and the transaction run again. Any other cancellation is rethrown as it came, its reasons
 * indexed as `items` (the counters follow them).
 */
export async function transactCounted(items: TransactItem[], changes: readonly CountChange[] = []): Promise<void> {
  if (items.length === 1 && changes.length === 0) return writeAlone(items[0]!);
  for (let attempt = 0; ; attempt++) {
    const outcome = await transactOrConflict({ TransactItems: [...items, ...changes.map(countItem)] });
    if (outcome.ok) return;
    const { reasons, error } = outcome;
    const failed = changes.filter((_, index) => conditionFailedAt(reasons, items.length + index));
    if (failed.length === 0) throw error;
    const missing = failed.filter((change) => reasons[items.length + changes.indexOf(change)]?.Item === undefined);
    const full = failed.find((change) => !missing.includes(change));
    if (full) throw new ClientLimitError(full.kind, full.limit ?? 0);
    if (attempt >= 2) throw error;
    for (const change of missing) await initializeCount(change.kind, change.clientId);
  }
}

/** Takes the next block of ids from the kind's global sequence: `[next, end)`. */
async function drawIdBlock(kind: NumberedKind): Promise<{ next: number; end: number }> {
  const { Attributes } = await documentClient().send(
    new UpdateCommand({
      TableName: tableOf(kind),
      Key: { id: SEQUENCE_ITEM_ID },
      UpdateExpression: 'ADD #last :block',
      ExpressionAttributeNames: { '#last': SEQUENCES[kind] },
      ExpressionAttributeValues: { ':block': ID_BLOCK_SIZE },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const end = Number(Attributes?.[SEQUENCES[kind]]) + 1;
  return { next: end - ID_BLOCK_SIZE, end };
}

interface SeenCounter {
  count: number;
  next?: number;
  end?: number;
}

async function readCounter(kind: NumberedKind, clientId: string): Promise<SeenCounter | null> {
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: resourcesConfig().DIRECTORY_TABLE, Key: directoryKeys.count(clientId, kind), ConsistentRead: true }),
  );
  if (!Item) return null;
  const number = (value: unknown) => (typeof value === 'number' ? value : undefined);
  return { count: number(Item.count) ?? 0, next: number(Item.next), end: number(Item.end) };
}

/**
 * The counter's update that counts one more record and hands out `id`: from the block it holds (`next` moves
 * on), or from `drawn`, a fresh block that replaces an exhausted or missing one. Conditioned on the counter
 * still being as `seen`, so that two creates never take one id, and on the limit.
 */
function takeId(
  kind: NumberedKind,
  clientId: string,
  seen: SeenCounter,
  limit: number | undefined,
  drawn?: { next: number; end: number },
): TransactItem {
  const limited = limit === undefined ? '' : ' AND #count < :limit';
  const values = { ...(limit === undefined ? {} : { ':limit': limit }), ':one': 1 };
  const common = {
    TableName: resourcesConfig().DIRECTORY_TABLE,
    Key: directoryKeys.count(clientId, kind),
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
  if (!drawn) {
    return {
      Update: {
        ...common,
        UpdateExpression: 'SET #count = #count + :one, #next = #next + :one',
        ConditionExpression: `#next = :seen AND #next < #end${limited}`,
        ExpressionAttributeNames: { '#count': 'count', '#next': 'next', '#end': 'end' },
        ExpressionAttributeValues: { ...values, ':seen': seen.next },
      },
    };
  }
  const unchanged = seen.next === undefined ? 'attribute_not_exists(#next)' : '#next = :seen AND #end = :seenEnd';
  return {
    Update: {
      ...common,
      UpdateExpression: 'SET #count = #count + :one, #next = :next, #end = :end',
      ConditionExpression: `attribute_exists(pk) AND ${unchanged}${limited}`,
      ExpressionAttributeNames: { '#count': 'count', '#next': 'next', '#end': 'end' },
      ExpressionAttributeValues: {
        ...values,
        ':next': drawn.next + 1,
        ':end': drawn.end,
        ...(seen.next === undefined ? {} : { ':seen': seen.next, ':seenEnd': seen.end }),
      },
    },
  };
}

/**
 * Creates one record of `kind` for the client, under an id its counter hands out, counted within `limit` (when
 * given): one consistent read of the counter, then one transaction of `items(id)` (the record's conditional put
 * first) and the counter's update. A create that raced another for the counter reads it again and retries; a
 * counter at its limit throws ClientLimitError. Any other cancellation is rethrown as it came, its reasons
 * indexed as `items(id)` (the counter follows them).
 */
export async function createCounted(
  kind: NumberedKind,
  clientId: string,
  limit: number | undefined,
  items: (id: number) => TransactItem[],
): Promise<number> {
  for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
    const seen = await readCounter(kind, clientId);
    if (!seen) {
      await initializeCount(kind, clientId);
      continue;
    }
    if (limit !== undefined && seen.count >= limit) throw new ClientLimitError(kind, limit);
    const exhausted = seen.next === undefined || seen.end === undefined || seen.next >= seen.end;
    const drawn = exhausted ? await drawIdBlock(kind) : undefined;
    const id = drawn ? drawn.next : seen.next!;
    const writes = items(id);
    const outcome = await transactOrConflict({ TransactItems: [...writes, takeId(kind, clientId, seen, limit, drawn)] });
    if (outcome.ok) return id;
    const counter = outcome.reasons[writes.length];
    const raced = counter?.Code === 'ConditionalCheckFailed' || counter?.Code === 'TransactionConflict';
    if (!raced) throw outcome.error;
    const old = counter.Item ? unmarshall(counter.Item) : undefined;
    if (limit !== undefined && typeof old?.count === 'number' && old.count >= limit) throw new ClientLimitError(kind, limit);
  }
  throw new ClientCounterBusyError(kind);
}

/**
 * Counts the client's records of `kind` again and sets the counter to that while it is still at `limit` or over:
 * true when the count came out below `limit` (a create may try again). Silences that expired are counted down this way.
 */
export async function recount(kind: CountedKind, clientId: string, limit: number, now: number): Promise<boolean> {
  const count = await countByParent(kind, clientId, now);
  if (count >= limit) return false;
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: resourcesConfig().DIRECTORY_TABLE,
        Key: counterKey(clientId, kind),
        UpdateExpression: 'SET #count = :count',
        ConditionExpression: '#count >= :limit',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':count': count, ':limit': limit },
      }),
    );
    return true;
  } catch (error) {
    if (!conditionFailed(error)) throw error;
    return true;
  }
}
