import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as z from 'zod';
import { documentClient } from '../../aws/dynamodb';
import { resourcesConfig } from '../../config';
import { HOLDER_GRACE_MS, heldShardOf, outboxShardOf } from './alerts-store';
import { dueClauses, updateExpression, type Clauses, type DueInputs } from '../alert-due';
import { alertSchema, deliveryRetrySchema, type Alert, type DeliveryRetry, type DeliveryStatus } from '../../schemas/alert';
import { conditionFailed } from '../dynamo';

/**
 * The deliver function's reads and writes of an alert item. Besides the agreed `deliveries` map it keeps:
 * - `deliveryLease` (epoch ms): while a deliver invocation works on the alert, a second copy of the same
 *   queue message (duplicate, re-enqueued by the outbox sweep) leaves it alone instead of sending twice;
 * - `deliveryRetries`: per target, the attempts that hit a passing problem, its last error and the next attempt;
 * - `retryHolder` and `nextAttemptAt` (epoch ms): the one queue message that carries the alert's next attempt,
 *   and when it is due, for a wait the queue can hold (up to 15 minutes). Any other copy of the request (the
 *   outbox's re-enqueue, a duplicate) that arrives meanwhile is dropped, so one alert never has more than one
 *   retry waiting. A holder that has not come back `HOLDER_GRACE_MS` after its time is taken as lost, and the
 *   next copy takes over;
 * - `retryAt` (ISO): for a longer wait, when the sweep's due pass hands the alert back (waitForDue); no message
 *   holds it meanwhile, and a copy that arrives finds its targets not due yet and sends nothing. `retryWokenAt`
 *   (epoch ms): when the due pass handed it back; the next write of its retry, or its finish, clears both.
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
    if (!conditionFailed(error)) throw error;
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
    if (!conditionFailed(error)) throw error;
  }
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
  { error, last, due }: { error?: string; last?: LastDelivery; due?: DueInputs } = {},
): Promise<void> {
  // an alert handed back by the due pass for its retry leaves the index for it in the same write
  const retry = due?.retryAt !== undefined ? dueClauses({ ...due, status, retryAt: undefined }) : { set: [], remove: [], values: {} };
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: { alertId },
        UpdateExpression: updateExpression({
          set: [
            '#status = :status',
            'deliveredAt = :at',
            ...(error ? ['deliveryError = :error'] : []),
            ...(last ? ['deliveries.#key = :delivery'] : []),
            ...retry.set,
          ],
          remove: [
            'outbox',
            'deliveryLease',
            'parkedAt',
            ...(error ? [] : ['deliveryError']),
            ...(due?.retryAt !== undefined ? ['retryAt', 'retryWokenAt'] : []),
            ...retry.remove,
          ],
        }),
        ConditionExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status', ...(last ? { '#key': last.key } : {}) },
        ExpressionAttributeValues: {
          ':status': status,
          ':at': new Date(now).toISOString(),
          ':pending': 'pending',
          ...(error ? { ':error': error } : {}),
          ...(last ? { ':delivery': last.status } : {}),
          ...retry.values,
        },
      }),
    );
  } catch (failure) {
    // already finished by another invocation: nothing left to do
    if (!conditionFailed(failure)) throw failure;
  }
}

/** The `deliveryRetries` entries of one settling write (`#retry<n>`, `:retry<n>`). */
function retryRecordClauses(records: Readonly<Record<string, RetryRecord>>): Clauses & { names: Record<string, string> } {
  const entries = Object.entries(records);
  return {
    set: entries.map((_, index) => `deliveryRetries.#retry${index} = :retry${index}`),
    remove: [],
    names: Object.fromEntries(entries.map(([key], index) => [`#retry${index}`, key])),
    values: Object.fromEntries(entries.map(([, record], index) => [`:retry${index}`, record])),
  };
}

/**
 * Hands the alert's next attempt to the queue message `messageId`, due at `nextAttemptAt` (epoch ms), records the
 * targets' new retry records, and lets go of the lease, in one write: until then (and its grace) other copies of
 * the request are dropped, and the outbox leaves the alert alone. The alert is in the outbox meanwhile (it
 * enqueues it again should the message be lost), and off the due index for a retry.
 */
export async function scheduleRetry(
  alert: DueInputs,
  messageId: string,
  nextAttemptAt: number,
  records: Readonly<Record<string, RetryRecord>>,
): Promise<void> {
  const retries = retryRecordClauses(records);
  // an alert woken by the due pass no longer has a retryAt; one whose long wait was cut short by another request does
  const due = alert.retryAt === undefined ? { set: [], remove: [], values: {} } : dueClauses({ ...alert, retryAt: undefined });
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: { alertId: alert.alertId },
      UpdateExpression: updateExpression({
        set: ['retryHolder = :message', 'nextAttemptAt = :at', '#outbox = if_not_exists(#outbox, :outbox)', ...retries.set, ...due.set],
        remove: ['deliveryLease', ...(alert.retryAt === undefined ? [] : ['retryAt', 'retryWokenAt']), ...due.remove],
      }),
      ExpressionAttributeNames: { '#outbox': 'outbox', ...retries.names },
      ExpressionAttributeValues: {
        ':message': messageId,
        ':at': nextAttemptAt,
        ':outbox': outboxShardOf(alert.alertId),
        ...retries.values,
        ...due.values,
      },
    }),
  );
}

/**
 * The alert's next attempt is further off than the deliveries queue holds a message (or its message was on its
 * last receive): it waits on the due index instead, at `retryAt` (epoch ms), out of the outbox, with no message
 * holding it; the targets' new retry records and the lease's release go in the same write. The sweep's due pass
 * hands it back then (shared/sweep/alert-due-pass.ts): waiting costs this write and that read.
 */
export async function waitForDue(alert: DueInputs, retryAt: number, records: Readonly<Record<string, RetryRecord>>): Promise<void> {
  const retries = retryRecordClauses(records);
  const at = new Date(retryAt).toISOString();
  const due = dueClauses({ ...alert, status: 'pending', retryAt: at });
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: { alertId: alert.alertId },
      UpdateExpression: updateExpression({
        set: ['retryAt = :retryAt', ...retries.set, ...due.set],
        remove: ['deliveryLease', 'retryHolder', 'nextAttemptAt', '#outbox', 'outboxEnqueuedAt', 'retryWokenAt', ...due.remove],
      }),
      ExpressionAttributeNames: { '#outbox': 'outbox', ...retries.names },
      ExpressionAttributeValues: { ':retryAt': at, ...retries.values, ...due.values },
    }),
  );
}

/**
 * Opens a target recorded `failed` again (its record on the deliveries DLQ was redriven): the alert is pending
 * and in the outbox again, the target's failure and retry record are gone, so it gets a fresh retry schedule.
 * - reopened: done;
 * - not-failed: nothing changed: the target is not failed (sent by an earlier copy of the redrive), or the alert is
 *   gone;
 * - busy: nothing changed: a delivery holds the alert now, and could finish it without the target; try later.
 */
export async function reopenTarget(alertId: string, key: string, now: number): Promise<'reopened' | 'not-failed' | 'busy'> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: { alertId },
        UpdateExpression:
          'SET #status = :pending, #outbox = :outbox REMOVE deliveries.#key, deliveryRetries.#key, deliveredAt, deliveryError, outboxEnqueuedAt, outboxAttempts',
        ConditionExpression: 'deliveries.#key.#status = :failed AND (attribute_not_exists(deliveryLease) OR deliveryLease < :now)',
        ExpressionAttributeNames: { '#status': 'status', '#outbox': 'outbox', '#key': key },
        ExpressionAttributeValues: { ':pending': 'pending', ':outbox': outboxShardOf(alertId), ':failed': 'failed', ':now': now },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return 'reopened';
  } catch (error) {
    if (!conditionFailed(error)) throw error;
    const item = error.Item ? unmarshall(error.Item) : {};
    const failed = (item.deliveries as Record<string, { status?: string }> | undefined)?.[key]?.status === 'failed';
    return failed ? 'busy' : 'not-failed';
  }
}

/** Lets the next attempt take the alert at once. */
export async function releaseAlert(alertId: string): Promise<void> {
  await documentClient().send(new UpdateCommand({ TableName: table(), Key: { alertId }, UpdateExpression: 'REMOVE deliveryLease' }));
}

/**
 * Some e-mail of the alert waits for its side address to confirm; everything else is settled. The alert moves
 * from the outbox's `pending#` shards to its `held#` ones (same index, sorted by creation time), where the
 * sweep finds it once its hold has run out; a confirmation enqueues it earlier. An alert the due pass handed
 * back for a retry leaves the due index for it in the same write.
 */
export async function holdAlert(alert: DueInputs): Promise<void> {
  const retry = alert.retryAt !== undefined ? dueClauses({ ...alert, retryAt: undefined }) : { set: [], remove: [], values: {} };
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: { alertId: alert.alertId },
      UpdateExpression: updateExpression({
        set: ['outbox = :held', ...retry.set],
        remove: [
          'deliveryLease',
          'outboxEnqueuedAt',
          'outboxAttempts',
          ...(alert.retryAt !== undefined ? ['retryAt', 'retryWokenAt'] : []),
          ...retry.remove,
        ],
      }),
      ConditionExpression: '#status = :pending',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':held': heldShardOf(alert.alertId), ':pending': 'pending', ...retry.values },
    }),
  );
}
