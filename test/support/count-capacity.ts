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
  /**
   * Write units as DynamoDB bills them, where DynamoDB Local reports otherwise: a transaction's index writes
   * count once (DynamoDB doubles the item's own prepare and commit; the index update follows the commit), and a
   * table a transaction writes several items of costs 2 units per started KB of each item (Local prices them
   * together). Those items are priced from the request: a Put at its item's size, an Update, Delete or
   * ConditionCheck at 1 KB, which holds for the small counter and URL-set items written next to a record.
   */
  billedWriteUnits(): number;
  /**
   * Read units as DynamoDB bills them, where DynamoDB Local reports otherwise: a GetItem, Query or Scan costs at
   * least one read of an item up to 4 KB (half a unit eventually consistent) even when it finds nothing, which
   * DynamoDB Local reports as 0.
   */
  billedReadUnits(): number;
  total(): number;
  /** Items returned by reads (GetItem, BatchGetItem, Query, Scan, TransactGetItems). */
  itemsRead(): number;
  /** Items written: one per PutItem, UpdateItem and DeleteItem, one per request of a BatchWriteItem or TransactWriteItems. */
  itemsWritten(): number;
  /** Units and items read per `${command} ${table}`. */
  byTable(): Record<string, { units: number; items: number }>;
  /**
   * Write units per table and index as DynamoDB bills them (a transaction's index writes once, see
   * billedWriteUnits), keyed `${table}` for the table's own share and `${table}/${index}` for each index.
   */
  writeUnitsByIndex(): Record<string, number>;
  reset(): void;
  detach(): void;
}

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
/** Reads of one request each, billed at least one item's read. */
const SINGLE_READS = new Set(['GetItem', 'Query', 'Scan']);
const SUPPORTED = new Set([...READS, 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

interface Consumed {
  TableName?: string;
  CapacityUnits?: number;
  Table?: { CapacityUnits?: number };
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
}

let counters = 0;

export interface CountOptions {
  /** Counts only the requests this accepts (by command, `UpdateItem`, and input); every supported one without it. */
  only?: (command: string, input: Record<string, unknown>) => boolean;
}

export function countCapacity(client: DynamoDBDocumentClient = documentClient(), options: CountOptions = {}): CapacityCounter {
  const name = `fleetwatchCapacityCounter${++counters}`;
  let read = 0;
  let write = 0;
  let transactionIndexWrite = 0;
  let billedCorrection = 0;
  let readFloor = 0;
  let items = 0;
  let written = 0;
  let tables: Record<string, { units: number; items: number }> = {};
  let indexes: Record<string, number> = {};
  const addIndexUnits = (key: string, units: number) => {
    indexes[key] = (indexes[key] ?? 0) + units;
  };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName ?? '').replace(/Command$/, '');
      if (!SUPPORTED.has(command) || (options.only && !options.only(command, args.input as Record<string, unknown>))) return next(args);
      (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'INDEXES';
      written += READS.has(command) ? 0 : writesIn(command, args.input as Record<string, unknown>);
      const result = await next(args);
      const output = result.output as Record<string, unknown>;
      const consumed = ([] as Consumed[]).concat((output.ConsumedCapacity as Consumed | Consumed[] | undefined) ?? []);
      const returned = countItems(output);
      items += READS.has(command) ? returned.total : 0;
      if (SINGLE_READS.has(command)) {
        const minimum = (args.input as { ConsistentRead?: boolean }).ConsistentRead ? 1 : 0.5;
        const reported = consumed.reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);
        readFloor += Math.max(0, minimum - reported);
      }
      for (const entry of consumed) {
        const units = entry.CapacityUnits ?? 0;
        if (READS.has(command)) read += units;
        else write += units;
        if (command === 'TransactWriteItems') {
          const indexUnits = Object.values(entry.GlobalSecondaryIndexes ?? {}).reduce((sum, index) => sum + (index.CapacityUnits ?? 0), 0);
          transactionIndexWrite += indexUnits;
          billedCorrection -= indexUnits / 2;
          const sharing = transactionItemUnits(args.input as Record<string, unknown>, entry.TableName ?? '');
          if (sharing.length > 1) billedCorrection += sharing.reduce((sum, itemUnits) => sum + 2 * itemUnits, 0) - (units - indexUnits);
        }
        if (!READS.has(command)) {
          const table = entry.TableName ?? '?';
          addIndexUnits(table, entry.Table?.CapacityUnits ?? 0);
          for (const [index, consumedByIndex] of Object.entries(entry.GlobalSecondaryIndexes ?? {})) {
            addIndexUnits(`${table}/${index}`, (consumedByIndex.CapacityUnits ?? 0) / (command === 'TransactWriteItems' ? 2 : 1));
          }
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
    billedWriteUnits: () => write + billedCorrection,
    billedReadUnits: () => read + readFloor,
    total: () => read + write,
    itemsRead: () => items,
    itemsWritten: () => written,
    byTable: () => structuredClone(tables),
    writeUnitsByIndex: () => ({ ...indexes }),
    reset: () => {
      read = 0;
      write = 0;
      transactionIndexWrite = 0;
      billedCorrection = 0;
      readFloor = 0;
      items = 0;
      written = 0;
      tables = {};
      indexes = {};
    },
    detach: () => {
      client.middlewareStack.remove(name);
    },
  };
}

/** Write units of each item a transaction writes to `table` (priced as billedWriteUnits describes). */
function transactionItemUnits(input: Record<string, unknown>, table: string): number[] {
  const actions = (input.TransactItems as Record<string, { TableName?: string; Item?: Record<string, unknown> }>[] | undefined) ?? [];
  return actions
    .map((action) => Object.values(action)[0])
    .filter((action) => action?.TableName === table)
    .map((action) => Math.max(1, Math.ceil((action!.Item ? itemBytes(action!.Item) : 0) / 1024)));
}

/** An item's size as DynamoDB counts it: attribute names and values in bytes (numbers by their digits). */
function itemBytes(item: Record<string, unknown>): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueBytes(value), 0);
}

function valueBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number') return Math.ceil(String(value).replace(/[-.]/g, '').length / 2) + 1;
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...(value as Set<unknown>)].reduce<number>((sum, element) => sum + valueBytes(element), 0);
  if (Array.isArray(value)) return value.reduce<number>((sum, element) => sum + 1 + valueBytes(element), 3);
  return Object.entries(value as Record<string, unknown>).reduce(
    (sum, [name, element]) => sum + 1 + Buffer.byteLength(name) + valueBytes(element),
    3,
  );
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
