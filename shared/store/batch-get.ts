import { BatchGetCommand, type BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';

/**
 * BatchGetItem over any number of keys: 100 keys per request, UnprocessedKeys retried with one backoff policy
 * (exponential from 25 ms, capped at 1 s, half jitter) for at most MAX_UNPROCESSED_ROUNDS rounds, after which
 * the read fails as a whole. Every multi-key read of the project goes through here.
 */
export const BATCH_GET_LIMIT = 100;
export const MAX_UNPROCESSED_ROUNDS = 8;

export interface BatchGetOptions {
  consistentRead?: boolean;
  projectionExpression?: string;
  expressionAttributeNames?: Record<string, string>;
}

export function unprocessedBackoffMs(round: number, random: () => number = Math.random): number {
  return Math.min(1_000, 25 * 2 ** round) * (0.5 + random() / 2);
}

export async function batchGetItems(
  tableName: string,
  keys: readonly Record<string, unknown>[],
  options: BatchGetOptions = {},
): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  for (let start = 0; start < keys.length; start += BATCH_GET_LIMIT) {
    let pending: Record<string, unknown>[] = keys.slice(start, start + BATCH_GET_LIMIT);
    for (let round = 0; pending.length > 0; round++) {
      if (round >= MAX_UNPROCESSED_ROUNDS) throw new Error(`${tableName}: ${pending.length} keys still unprocessed after ${round} rounds`);
      if (round > 0) await new Promise((resolve) => setTimeout(resolve, unprocessedBackoffMs(round)));
      const output: BatchGetCommandOutput = await documentClient().send(
        new BatchGetCommand({
          RequestItems: {
            [tableName]: {
              Keys: pending,
              ...(options.consistentRead ? { ConsistentRead: true } : {}),
              ...(options.projectionExpression ? { ProjectionExpression: options.projectionExpression } : {}),
              ...(options.expressionAttributeNames ? { ExpressionAttributeNames: options.expressionAttributeNames } : {}),
            },
          },
        }),
      );
      found.push(...(output.Responses?.[tableName] ?? []));
      pending = output.UnprocessedKeys?.[tableName]?.Keys ?? [];
    }
  }
  return found;
}
