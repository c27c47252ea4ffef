import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { directoryKeys } from '../schemas/directory';

/**
 * How many rules or geozones each client owns, kept on one counter item per client and kind in the directory
 * table (`COUNTS#<clientId>` / `RULES` or `GEOZONES`). Every write that creates, deletes or moves a record changes
 * the counter in the same transaction, conditioned on the limit, so parallel requests can never store more than
 * the limit. A counter that does not exist yet (a client whose records predate counters) is made from the
 * table's `byParent` index the first time a write needs it: every write needs it, so nothing can change the
 * client's records between that count and the counter's creation.
 */
export type CountedKind = 'rules' | 'geozones';

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

const tableOf = (kind: CountedKind) => (kind === 'rules' ? resourcesConfig().RULES_TABLE : resourcesConfig().GEOZONES_TABLE);

function countItem(change: CountChange): TransactItem {
  const limited = change.delta > 0 && change.limit !== undefined;
  return {
    Update: {
      TableName: resourcesConfig().DIRECTORY_TABLE,
      Key: directoryKeys.count(change.clientId, change.kind),
      UpdateExpression: 'ADD #count :delta',
      ConditionExpression: limited ? 'attribute_exists(pk) AND #count < :limit' : 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':delta': change.delta, ...(limited ? { ':limit': change.limit } : {}) },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/** The client's records of this kind, counted on the table's `byParent` index (keys only). */
async function countByParent(kind: CountedKind, clientId: string): Promise<number> {
  let count = 0;
  for await (const page of paginateQuery(
    { client: documentClient() },
    {
      TableName: tableOf(kind),
      IndexName: 'byParent',
      KeyConditionExpression: 'parentId = :parent',
      ExpressionAttributeValues: { ':parent': clientId },
      Select: 'COUNT',
    },
  )) {
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
        Item: { ...directoryKeys.count(clientId, kind), count },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
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
    try {
      await documentClient().send(new TransactWriteCommand({ TransactItems: [...items, ...changes.map(countItem)] }));
      return;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      const failed = changes.filter((_, index) => reasons[items.length + index]?.Code === 'ConditionalCheckFailed');
      if (failed.length === 0) throw error;
      const missing = failed.filter((change) => reasons[items.length + changes.indexOf(change)]?.Item === undefined);
      const full = failed.find((change) => !missing.includes(change));
      if (full) throw new ClientLimitError(full.kind, full.limit ?? 0);
      if (attempt >= 2) throw error;
      for (const change of missing) await initializeCount(change.kind, change.clientId);
    }
  }
}
