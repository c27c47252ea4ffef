import { ConditionalCheckFailedException, TransactionCanceledException, type CancellationReason } from '@aws-sdk/client-dynamodb';
import {
  TransactWriteCommand,
  paginateQuery,
  paginateScan,
  type QueryCommandInput,
  type QueryCommandOutput,
  type ScanCommandInput,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';

export type { CancellationReason };
export type StoredItem = NonNullable<QueryCommandOutput['Items']>[number];

const CONDITION_FAILED = 'ConditionalCheckFailed';

// by name too: an error can come from another copy of the SDK (tests, bundles), where instanceof fails
const isNamed = (error: unknown, name: string) => (error as Error | undefined)?.name === name;

/** A single write's condition failed (ConditionalCheckFailedException). */
export function conditionFailed(error: unknown): error is ConditionalCheckFailedException {
  return error instanceof ConditionalCheckFailedException || isNamed(error, 'ConditionalCheckFailedException');
}

/** A cancelled transaction: its reasons, indexed as its items, and the index of the first failed condition (-1 when none failed). */
export interface Cancellation {
  error: TransactionCanceledException;
  reasons: CancellationReason[];
  failedIndex: number;
}

/** The cancellation `error` is, or null when it is no TransactionCanceledException. */
export function cancellation(error: unknown): Cancellation | null {
  if (!(error instanceof TransactionCanceledException || isNamed(error, 'TransactionCanceledException'))) return null;
  const cancelled = error as TransactionCanceledException;
  const reasons = cancelled.CancellationReasons ?? [];
  return { error: cancelled, reasons, failedIndex: reasons.findIndex((reason) => reason.Code === CONDITION_FAILED) };
}

/** The reason at `index` is a failed condition. */
export const conditionFailedAt = (reasons: readonly CancellationReason[], index: number): boolean => reasons[index]?.Code === CONDITION_FAILED;

/** Runs the transaction; a cancellation is answered (which items failed, and the error to rethrow), any other error thrown. */
export async function transactOrConflict(input: TransactWriteCommandInput): Promise<{ ok: true } | ({ ok: false } & Cancellation)> {
  try {
    await documentClient().send(new TransactWriteCommand(input));
    return { ok: true };
  } catch (error) {
    const cancelled = cancellation(error);
    if (!cancelled) throw error;
    return { ok: false, ...cancelled };
  }
}

/** Every item the query matches, over all its pages. */
export async function queryAll(input: QueryCommandInput): Promise<StoredItem[]> {
  const items: StoredItem[] = [];
  for await (const page of paginateQuery({ client: documentClient() }, input)) items.push(...(page.Items ?? []));
  return items;
}

/** How many items the query matches, over all its pages. */
export async function countAll(input: QueryCommandInput): Promise<number> {
  let count = 0;
  for await (const page of paginateQuery({ client: documentClient() }, { ...input, Select: 'COUNT' })) count += page.Count ?? 0;
  return count;
}

/** Every item the scan reads, over all its pages. */
export async function scanAll(input: ScanCommandInput): Promise<StoredItem[]> {
  const items: StoredItem[] = [];
  for await (const page of paginateScan({ client: documentClient() }, input)) items.push(...(page.Items ?? []));
  return items;
}
