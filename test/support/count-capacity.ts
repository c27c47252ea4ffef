import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/dynamodb';

/**
 * Counts the DynamoDB capacity units a piece of code consumes, as DynamoDB bills them: a middleware on the
 * client asks every request for ReturnConsumedCapacity INDEXES and adds up what the answers report (indexes and
 * the double price of transactions included). It also counts the items read.
 */
export interface CapacityCounter {
  readUnits(): number;
  writeUnits(): number;
  /** The part of writeUnits that DynamoDB Local reports for index writes made by transactions (which it doubles). */
  transactionIndexWriteUnits(): number;
  total(): number;
  /** Items returned by reads (GetItem, BatchGetItem, Query, Scan, TransactGetItems). */
  itemsRead(): number;
  /** Items written: one per PutItem, UpdateItem and DeleteItem, one per request of a BatchWriteItem or TransactWriteItems. */
  itemsWritten(): number;
  /** Units and items read per `${command} ${table}`. */
  byTable(): Record<string, { units: number; items: number }>;
  reset(): void;
  detach(): void;
}

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
const SUPPORTED = new Set([...READS, 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

interface Consumed {
  TableName?: string;
  CapacityUnits?: number;
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
}

let counters = 0;

export function countCapacity(client: DynamoDBDocumentClient = documentClient()): CapacityCounter {
  const name = `fleetwatchCapacityCounter${++counters}`;
  let read = 0;
  let write = 0;
  let transactionIndexWrite = 0;
  let items = 0;
  let written = 0;
  let tables: Record<string, { units: number; items: number }> = {};
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName ?? '').replace(/Command$/, '');
      if (!SUPPORTED.has(command)) return next(args);
      (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'INDEXES';
      written += READS.has(command) ? 0 : writesIn(command, args.input as Record<string, unknown>);
      const result = await next(args);
      const output = result.output as Record<string, unknown>;
      const consumed = ([] as Consumed[]).concat((output.ConsumedCapacity as Consumed | Consumed[] | undefined) ?? []);
      const returned = countItems(output);
      items += READS.has(command) ? returned.total : 0;
      for (const entry of consumed) {
        const units = entry.CapacityUnits ?? 0;
        if (READS.has(command)) read += units;
        else write += units;
        if (command === 'TransactWriteItems') {
          for (const index of Object.values(entry.GlobalSecondaryIndexes ?? {})) transactionIndexWrite += index.CapacityUnits ?? 0;
        }
        const key = `${command} ${entry.TableName ?? '?'}`;
        const row = (tables[key] ??= { units: 0, items: 0 });
        row.units += units;
        if (READS.has(command)) row.items += returned.byTable[entry.TableName ?? ''] ?? 0;
      }
      return result;
    },
    { step: 'initialize', name },
  );
  return {
    readUnits: () => read,
    writeUnits: () => write,
    transactionIndexWriteUnits: () => transactionIndexWrite,
    total: () => read + write,
    itemsRead: () => items,
    itemsWritten: () => written,
    byTable: () => structuredClone(tables),
    reset: () => {
      read = 0;
      write = 0;
      transactionIndexWrite = 0;
      items = 0;
      written = 0;
      tables = {};
    },
    detach: () => {
      client.middlewareStack.remove(name);
    },
  };
}

function writesIn(command: string, input: Record<string, unknown>): number {
  if (command === 'TransactWriteItems') return (input.TransactItems as unknown[] | undefined)?.length ?? 0;
  if (command === 'BatchWriteItem')
    return Object.values((input.RequestItems as Record<string, unknown[]> | undefined) ?? {}).reduce((sum, list) => sum + list.length, 0);
  return 1;
}

function countItems(output: Record<string, unknown>): { total: number; byTable: Record<string, number> } {
  const byTable: Record<string, number> = {};
  let total = 0;
  if (output.Item) total += 1;
  if (Array.isArray(output.Items)) total += output.Items.length;
  if (Array.isArray(output.Responses)) total += output.Responses.filter((response) => (response as { Item?: unknown }).Item).length;
  else if (output.Responses && typeof output.Responses === 'object') {
    for (const [table, list] of Object.entries(output.Responses as Record<string, unknown[]>)) {
      byTable[table] = list.length;
      total += list.length;
    }
  }
  return { total, byTable };
}
