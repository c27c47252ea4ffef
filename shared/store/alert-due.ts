import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { alertSchema, type Alert } from '../schemas/alert';
import { alertsTable, dueShardOf, outboxShardOf } from './alerts/alerts-store';
import { conditionFailed } from './dynamo';

/**
 * Why an alert sits on the sparse keys-only `byDue` index (`dueShard`, `dueAt`), each reason with its time:
 * - escalation: `escalateAt`, while the alert is open and its chain's step due then has not fired (`escalatedAt`,
 *   the last firing, is before it);
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

/** Whether the chain's step at `escalateAt` is still to fire: nothing fired yet, or the last firing came before it. */
export const escalationPending = (alert: Pick<Alert, 'escalateAt' | 'escalatedAt'>): boolean =>
  alert.escalateAt !== undefined && (alert.escalatedAt === undefined || alert.escalatedAt < alert.escalateAt);

export interface DueReasons {
  escalation?: string;
  autoClose?: string;
  retry?: string;
}

export function dueReasons(alert: DueInputs): DueReasons {
  return {
    ...(escalationPending(alert) && alert.state === 'open' ? { escalation: alert.escalateAt! } : {}),
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
 * How long after the due pass handed an alert back for its retry the deliver function has to take it up (move
 * its retry on, or settle it) before the request counts as lost: then the alert goes back to the outbox, which
 * enqueues it again and gives up on it after its own number of tries (OUTBOX_MAX_ATTEMPTS).
 */
export const RETRY_WAKE_GRACE_MS = 15 * 60_000;

/** An alert on the due index as the due pass reads it, with when it was last handed back for its retry (epoch ms). */
export interface DueAlert {
  alert: Alert;
  wokenAt: number | undefined;
}

export async function readDueAlert(alertId: string): Promise<DueAlert | null> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: alertsTable(), Key: { alertId } }));
  const parsed = alertSchema.safeParse(Item);
  if (!parsed.success) return null;
  return { alert: parsed.data, wokenAt: typeof Item?.retryWokenAt === 'number' ? Item.retryWokenAt : undefined };
}

/**
 * The retry of a pending alert has come (`retryAt` ≤ now): marks it handed back (`retryWokenAt`), for the caller
 * to enqueue. Only that attribute changes, so neither index is written: the alert stays on the due index, as
 * its own outbox, until the deliver function moves its retry on or settles it. Conditioned on the `retryAt` read
 * and on no earlier hand-back, so that of two overlapping sweeps one wakes it. Returns whether this call did.
 */
export async function wakeForRetry(alert: Pick<Alert, 'alertId' | 'retryAt'>, now: number): Promise<boolean> {
  return conditionalUpdate({
    TableName: alertsTable(),
    Key: { alertId: alert.alertId },
    UpdateExpression: 'SET retryWokenAt = :now',
    ConditionExpression: 'retryAt = :seenRetryAt AND #status = :pending AND attribute_not_exists(retryWokenAt)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':now': now, ':seenRetryAt': alert.retryAt, ':pending': 'pending' },
  });
}

/**
 * An alert handed back for its retry `RETRY_WAKE_GRACE_MS` ago that the deliver function never took up (its
 * request was lost, or the function fails on it): it goes back to the outbox, whose re-enqueues are counted and
 * bounded, and its retry leaves the due index. Conditioned on the hand-back read. Returns whether this call did.
 */
export async function handRetryToOutbox(due: DueAlert, now: number): Promise<boolean> {
  const { alert } = due;
  const clauses = dueClauses({ ...alert, retryAt: undefined });
  return conditionalUpdate({
    TableName: alertsTable(),
    Key: { alertId: alert.alertId },
    UpdateExpression: updateExpression({
      set: ['#outbox = :outbox', 'outboxEnqueuedAt = :now', ...clauses.set],
      remove: ['retryAt', 'retryWokenAt', ...clauses.remove],
    }),
    ConditionExpression: 'retryWokenAt = :wokenAt AND #status = :pending',
    ExpressionAttributeNames: { '#outbox': 'outbox', '#status': 'status' },
    ExpressionAttributeValues: {
      ':outbox': outboxShardOf(alert.alertId),
      ':now': now,
      ':wokenAt': due.wokenAt,
      ':pending': 'pending',
      ...clauses.values,
    },
  });
}

async function conditionalUpdate(input: ConstructorParameters<typeof UpdateCommand>[0]): Promise<boolean> {
  try {
    await documentClient().send(new UpdateCommand(input));
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}
