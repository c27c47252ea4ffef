import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import type { Alert } from '../schemas/alert';
import { alertsTable, dueShardOf, outboxShardOf } from './alerts-store';

/**
 * Why an alert sits on the sparse keys-only `byDue` index (`dueShard`, `dueAt`), each reason with its time:
 * - escalation: `escalateAt`, while the alert is open and not escalated yet;
 * - auto-close: `autoCloseAt`, while it is open or acknowledged;
 * - retry: `retryAt`, while it is pending and a target waits for an attempt further off than the deliveries
 *   queue can hold a message (shared/delivery/retry-backoff.ts).
 * `dueAt` is the earliest of them; an alert with none is off the index. Every write that changes one of these
 * writes `dueAt` again from the reasons it leaves. Writers of the lifecycle (escalation, close, acknowledgement)
 * are conditioned on the `retryAt` they read, so that they never drop a retry the deliver function set meanwhile;
 * the deliver function needs no such condition, since the lifecycle only ever takes reasons away: a `dueAt`
 * computed from an older state is at worst early, and the due pass then writes it again (retireDueEntry).
 */
export type DueInputs = Pick<Alert, 'alertId' | 'status' | 'state' | 'escalateAt' | 'escalatedAt' | 'autoCloseAt' | 'retryAt'>;

export interface DueReasons {
  escalation?: string;
  autoClose?: string;
  retry?: string;
}

export function dueReasons(alert: DueInputs): DueReasons {
  return {
    ...(alert.escalateAt !== undefined && alert.escalatedAt === undefined && alert.state === 'open' ? { escalation: alert.escalateAt } : {}),
    ...(alert.autoCloseAt !== undefined && (alert.state === 'open' || alert.state === 'acknowledged') ? { autoClose: alert.autoCloseAt } : {}),
    ...(alert.retryAt !== undefined && alert.status === 'pending' ? { retry: alert.retryAt } : {}),
  };
}

/** The earliest reason's time (ISO times compare as text); undefined with none. */
export function dueAtOf(alert: DueInputs): string | undefined {
  return Object.values(dueReasons(alert)).sort()[0];
}

/** Parts of an UpdateExpression. */
export interface Clauses {
  set: string[];
  remove: string[];
  values: Record<string, unknown>;
}

/** Puts the alert where its reasons say: on the index at `dueAt` (`:dueShard`, `:dueAt`), or off it. */
export function dueClauses(alert: DueInputs): Clauses {
  const dueAt = dueAtOf(alert);
  if (dueAt === undefined) return { set: [], remove: ['dueShard', 'dueAt'], values: {} };
  return { set: ['dueShard = :dueShard', 'dueAt = :dueAt'], remove: [], values: { ':dueShard': dueShardOf(alert.alertId), ':dueAt': dueAt } };
}

/** The condition that `retryAt` is still what `alert` says (`:seenRetryAt`). */
export function retryUnchanged(alert: Pick<Alert, 'retryAt'>): { condition: string; values: Record<string, unknown> } {
  return alert.retryAt === undefined
    ? { condition: 'attribute_not_exists(retryAt)', values: {} }
    : { condition: 'retryAt = :seenRetryAt', values: { ':seenRetryAt': alert.retryAt } };
}

/** `SET a, b REMOVE c`, leaving out an empty part. */
export function updateExpression({ set, remove }: Pick<Clauses, 'set' | 'remove'>): string {
  return [set.length ? `SET ${set.join(', ')}` : '', remove.length ? `REMOVE ${remove.join(', ')}` : ''].filter(Boolean).join(' ');
}

/**
 * The retry of a pending alert has come (`retryAt` ≤ now): it goes back to the outbox, as a new alert is, so
 * that the sweep enqueues it again should the delivery request the caller sends next be lost; its retry leaves
 * the due index (its other reasons stay). Conditioned on the `retryAt` read, so that of two overlapping sweeps
 * one wakes it. Returns whether this call did.
 */
export async function wakeForRetry(alert: DueInputs & Pick<Alert, 'retryAt'>, now: number): Promise<boolean> {
  const due = dueClauses({ ...alert, retryAt: undefined });
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: alertsTable(),
        Key: { alertId: alert.alertId },
        UpdateExpression: updateExpression({
          set: ['#outbox = :outbox', 'outboxEnqueuedAt = :now', ...due.set],
          remove: ['retryAt', ...due.remove],
        }),
        ConditionExpression: 'retryAt = :seenRetryAt AND #status = :pending',
        ExpressionAttributeNames: { '#outbox': 'outbox', '#status': 'status' },
        ExpressionAttributeValues: {
          ':outbox': outboxShardOf(alert.alertId),
          ':now': now,
          ':seenRetryAt': alert.retryAt,
          ':pending': 'pending',
          ...due.values,
        },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}
