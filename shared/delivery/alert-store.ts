import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { heldShardOf } from '../store/alerts-store';
import { alertSchema, type Alert, type DeliveryStatus } from '../schemas/alert';

/**
 * The deliver function's reads and writes of an alert item. Besides the agreed `deliveries` map it keeps:
 * - `deliveryLease` (epoch ms): while a deliver invocation works on the alert, a second copy of the same
 *   queue message (duplicate, re-enqueued by the outbox sweep) leaves it alone instead of sending twice;
 * - `deliveryRetries`: per target, the attempts that hit a passing problem and its last error.
 */
export const retryRecordSchema = z.object({ attempts: z.number().int().min(0), error: z.string(), at: z.string() });
export type RetryRecord = z.infer<typeof retryRecordSchema>;

export interface ClaimedAlert {
  alert: Alert;
  retries: Record<string, RetryRecord>;
}

export type ClaimResult =
  | { outcome: 'claimed'; claimed: ClaimedAlert }
  | { outcome: 'finished' }
  | { outcome: 'busy' }
  | { outcome: 'missing' }
  | { outcome: 'invalid'; error: string };

function table(): string {
  return resourcesConfig().ALERTS_TABLE;
}

function parseItem(item: Record<string, unknown>): ClaimedAlert | string {
  const alert = alertSchema.safeParse(item);
  if (!alert.success) return alert.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
  const retries = z.record(z.string(), retryRecordSchema).catch({}).parse(item.deliveryRetries ?? {});
  return { alert: alert.data, retries };
}

/** Takes the alert for `leaseMs` if it is still pending and nobody else holds it. */
export async function claimAlert(alertId: string, now: number, leaseMs: number): Promise<ClaimResult> {
  try {
    const { Attributes } = await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: { alertId },
        UpdateExpression:
          'SET deliveryLease = :until, deliveries = if_not_exists(deliveries, :empty), deliveryRetries = if_not_exists(deliveryRetries, :empty)',
        ConditionExpression:
          'attribute_exists(alertId) AND #status = :pending AND (attribute_not_exists(deliveryLease) OR deliveryLease < :now)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':until': now + leaseMs, ':now': now, ':pending': 'pending', ':empty': {} },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const parsed = parseItem(Attributes ?? {});
    if (typeof parsed === 'string') {
      await releaseAlert(alertId);
      return { outcome: 'invalid', error: parsed };
    }
    return { outcome: 'claimed', claimed: parsed };
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: { alertId }, ConsistentRead: true }));
  if (!Item) return { outcome: 'missing' };
  if (Item.status !== 'pending') return { outcome: 'finished' };
  return { outcome: 'busy' };
}

/** Records the final status of one target at once, so a later retry skips it. */
export async function recordDelivery(alertId: string, key: string, status: DeliveryStatus): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: { alertId },
      UpdateExpression: 'SET deliveries.#key = :status',
      ExpressionAttributeNames: { '#key': key },
      ExpressionAttributeValues: { ':status': status },
    }),
  );
}

/** Records an attempt that hit a passing problem; the target stays open for the next attempt. */
export async function recordRetry(alertId: string, key: string, record: RetryRecord): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: { alertId },
      UpdateExpression: 'SET deliveryRetries.#key = :record',
      ExpressionAttributeNames: { '#key': key },
      ExpressionAttributeValues: { ':record': record },
    }),
  );
}

/** Every target is settled: the alert leaves the outbox. */
export async function finishAlert(
  alertId: string,
  status: 'delivered' | 'failed',
  now: number,
  error?: string,
): Promise<void> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: { alertId },
        UpdateExpression: `SET #status = :status, deliveredAt = :at${error ? ', deliveryError = :error' : ''} REMOVE outbox, deliveryLease, parkedAt${error ? '' : ', deliveryError'}`,
        ConditionExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':status': status,
          ':at': new Date(now).toISOString(),
          ':pending': 'pending',
          ...(error ? { ':error': error } : {}),
        },
      }),
    );
  } catch (failure) {
    // already finished by another invocation: nothing left to do
    if ((failure as Error).name !== 'ConditionalCheckFailedException') throw failure;
  }
}

/**
 * Takes an alert whose delivery request goes to the DLQ out of the outbox, so the sweep stops re-sending it,
 * and records why. It stays `pending` with its unsent targets open: redriving the request from the DLQ sends
 * exactly what has not gone out yet.
 */
export async function parkAlert(alertId: string, now: number, reason: string): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: { alertId },
      UpdateExpression: 'SET deliveryError = :reason, parkedAt = :at REMOVE outbox, deliveryLease',
      ConditionExpression: '#status = :pending',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':reason': reason, ':at': new Date(now).toISOString(), ':pending': 'pending' },
    }),
  );
}

/** Lets the next attempt take the alert at once. */
export async function releaseAlert(alertId: string): Promise<void> {
  await documentClient().send(
    new UpdateCommand({ TableName: table(), Key: { alertId }, UpdateExpression: 'REMOVE deliveryLease' }),
  );
}

/**
 * Some e-mail of the alert waits for its side address to confirm; everything else is settled. The alert moves
 * from the outbox's `pending#` shards to its `held#` ones (same index, sorted by creation time), where the
 * sweep finds it once its hold has run out; a confirmation enqueues it earlier.
 */
export async function holdAlert(alertId: string): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: { alertId },
      UpdateExpression: 'SET outbox = :held REMOVE deliveryLease, outboxEnqueuedAt, outboxAttempts',
      ConditionExpression: '#status = :pending',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':held': heldShardOf(alertId), ':pending': 'pending' },
    }),
  );
}
