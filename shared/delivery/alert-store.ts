import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { HOLDER_GRACE_MS, heldShardOf } from '../store/alerts-store';
import { alertSchema, deliveryRetrySchema, type Alert, type DeliveryRetry, type DeliveryStatus } from '../schemas/alert';

/**
 * The deliver function's reads and writes of an alert item. Besides the agreed `deliveries` map it keeps:
 * - `deliveryLease` (epoch ms): while a deliver invocation works on the alert, a second copy of the same
 *   queue message (duplicate, re-enqueued by the outbox sweep) leaves it alone instead of sending twice;
 * - `deliveryRetries`: per target, the attempts that hit a passing problem, its last error and the next attempt;
 * - `retryHolder` and `nextAttemptAt` (epoch ms): the one queue message that carries the alert's next attempt,
 *   and when it is due. Any other copy of the request (the outbox's re-enqueue, a duplicate) that arrives
 *   meanwhile is dropped, so one alert never has more than one retry waiting. A holder that has not come back
 *   `HOLDER_GRACE_MS` after its time is taken as lost, and the next copy takes over.
 */
export const retryRecordSchema = deliveryRetrySchema;
export type RetryRecord = DeliveryRetry;

export interface ClaimedAlert {
  alert: Alert;
  retries: Record<string, RetryRecord>;
}

export type ClaimResult =
  | { outcome: 'claimed'; claimed: ClaimedAlert }
  | { outcome: 'finished' }
  | { outcome: 'busy' }
  | { outcome: 'duplicate'; nextAttemptAt: number }
  | { outcome: 'missing' }
  | { outcome: 'invalid'; error: string };

function table(): string {
  return resourcesConfig().ALERTS_TABLE;
}

function parseItem(item: Record<string, unknown>): ClaimedAlert | string {
  const alert = alertSchema.safeParse(item);
  if (!alert.success) return alert.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
  const retries = z
    .record(z.string(), retryRecordSchema)
    .catch({})
    .parse(item.deliveryRetries ?? {});
  return { alert: alert.data, retries };
}

/**
 * Takes the alert for `leaseMs` if it is still pending, nobody else works on it, and no other message (than
 * `messageId`) holds its next attempt.
 */
export async function claimAlert(alertId: string, now: number, leaseMs: number, messageId: string): Promise<ClaimResult> {
  try {
    const { Attributes } = await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: { alertId },
        UpdateExpression:
          'SET deliveryLease = :until, deliveries = if_not_exists(deliveries, :empty), deliveryRetries = if_not_exists(deliveryRetries, :empty)',
        ConditionExpression:
          'attribute_exists(alertId) AND #status = :pending AND (attribute_not_exists(deliveryLease) OR deliveryLease < :now)' +
          ' AND (attribute_not_exists(retryHolder) OR retryHolder = :message OR nextAttemptAt < :stale)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':until': now + leaseMs,
          ':now': now,
          ':pending': 'pending',
          ':empty': {},
          ':message': messageId,
          ':stale': now - HOLDER_GRACE_MS,
        },
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
  if (typeof Item.deliveryLease === 'number' && Item.deliveryLease >= now) return { outcome: 'busy' };
  if (typeof Item.retryHolder === 'string' && Item.retryHolder !== messageId && typeof Item.nextAttemptAt === 'number') {
    return { outcome: 'duplicate', nextAttemptAt: Item.nextAttemptAt };
  }
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

/**
 * Records how a digest settled an alert's e-mail. The alert may be finished, or gone (expired) meanwhile: a
 * gone one is left alone rather than written back as a stub.
 */
export async function recordDigestOutcome(alertId: string, key: string, status: DeliveryStatus): Promise<void> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: { alertId },
        UpdateExpression: 'SET deliveries.#key = :status',
        ConditionExpression: 'attribute_exists(alertId)',
        ExpressionAttributeNames: { '#key': key },
        ExpressionAttributeValues: { ':status': status },
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
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

/** The outcome of the alert's last open target, recorded by the write that finishes the alert. */
export interface LastDelivery {
  key: string;
  status: DeliveryStatus;
}

/**
 * Every target is settled: the alert leaves the outbox. With `last`, that target's outcome is recorded in the
 * same write: one rewrite of the alert fewer, for the common alert with one target.
 */
export async function finishAlert(
  alertId: string,
  status: 'delivered' | 'failed',
  now: number,
  { error, last }: { error?: string; last?: LastDelivery } = {},
): Promise<void> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: { alertId },
        UpdateExpression: `SET #status = :status, deliveredAt = :at${error ? ', deliveryError = :error' : ''}${last ? ', deliveries.#key = :delivery' : ''} REMOVE outbox, deliveryLease, parkedAt${error ? '' : ', deliveryError'}`,
        ConditionExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status', ...(last ? { '#key': last.key } : {}) },
        ExpressionAttributeValues: {
          ':status': status,
          ':at': new Date(now).toISOString(),
          ':pending': 'pending',
          ...(error ? { ':error': error } : {}),
          ...(last ? { ':delivery': last.status } : {}),
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
      UpdateExpression: 'SET deliveryError = :reason, parkedAt = :at REMOVE outbox, deliveryLease, retryHolder, nextAttemptAt',
      ConditionExpression: '#status = :pending',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':reason': reason, ':at': new Date(now).toISOString(), ':pending': 'pending' },
    }),
  );
}

/**
 * Hands the alert's next attempt to the queue message `messageId`, due at `nextAttemptAt` (epoch ms), and lets
 * go of the lease: until then (and its grace) other copies of the request are dropped, and the outbox leaves
 * the alert alone.
 */
export async function scheduleRetry(alertId: string, messageId: string, nextAttemptAt: number): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: { alertId },
      UpdateExpression: 'SET retryHolder = :message, nextAttemptAt = :at REMOVE deliveryLease',
      ExpressionAttributeValues: { ':message': messageId, ':at': nextAttemptAt },
    }),
  );
}

/** Lets the next attempt take the alert at once. */
export async function releaseAlert(alertId: string): Promise<void> {
  await documentClient().send(new UpdateCommand({ TableName: table(), Key: { alertId }, UpdateExpression: 'REMOVE deliveryLease' }));
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
