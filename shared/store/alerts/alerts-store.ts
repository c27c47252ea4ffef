import { UpdateCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import type { Alert } from '../../schemas/alert';
import type { RuleEvent } from '../../schemas/rule-event';
import { atLeast, type Severity } from '../../schemas/severity';
import type { StoredRule } from '../../schemas/notification';
import { documentClient } from '../../aws/dynamodb';
import { resourcesConfig } from '../../config';
import { alertIdFor, escalationIdFor } from '../alert-id';
import { ruleChain } from '../../rules/rule-chain';
import { nextStep } from '../../rules/escalation-chain';
import { commonSettings } from '../../rules/settings';
import { ESCALATED_KIND, FOLLOW_UP_KINDS } from '../../rules/event-kinds';
import { eventSeverity, severityOf } from '../../rules/severity';
import { conditionFailed } from '../dynamo';

/**
 * Write side of the alerts table: the item an event becomes, and the outbox (alerts still `pending`,
 * visible through the sparse `outbox` index until the deliver function settles them).
 */
export const ALERT_RETENTION_DAYS = 90;
/**
 * The outbox index is sharded so that no partition takes every new alert: an alert is born with
 * `outbox = pending#<0..15>` (from its id) and the sweep reads every shard.
 */
export const OUTBOX_SHARDS = 16;

export function outboxShardOf(alertId: string): string {
  let hash = 0;
  for (let index = 0; index < alertId.length; index++) hash = (hash * 31 + alertId.charCodeAt(index)) >>> 0;
  return `pending#${hash % OUTBOX_SHARDS}`;
}

/** The outbox shard of an alert held for a side address's confirmation (see holdAlert). */
export const heldShardOf = (alertId: string) => outboxShardOf(alertId).replace(/^pending#/, 'held#');

/** The shard of the sparse `byDue` index an alert with something due sits in (`due#0..15`). */
export const dueShardOf = (alertId: string) => outboxShardOf(alertId).replace(/^pending#/, 'due#');

export interface AlertItem extends Alert {
  timeKey: string;
  /** Epoch seconds; the table's time to live. */
  expiresAt: number;
  /** `pending#<shard>` while pending (see outboxShardOf). */
  outbox?: string;
  /** Epoch ms of the last re-enqueue by the outbox pass. */
  outboxEnqueuedAt?: number;
  outboxAttempts?: number;
  /** `due#<shard>` while something is due at `dueAt` (see alert-lifecycle). */
  dueShard?: string;
  dueAt?: string;
}

/**
 * How long past its `nextAttemptAt` the queue message holding an alert's retry may be late (visibility
 * timeout, a slow poll) before it counts as lost: then another copy may take over and the outbox may enqueue
 * the alert again.
 */
export const HOLDER_GRACE_MS = 10 * 60_000;

export function alertsTable(): string {
  return resourcesConfig().ALERTS_TABLE;
}

/**
 * Sort key of the history indexes: the event time in UTC (`YYYY-MM-DDTHH:MM:SS.sssZ`, which sorts as text in
 * time order), then the id. An event time written with an offset would otherwise sort, and be filtered, by its
 * local wall-clock time.
 */
export function alertTimeKey(eventTime: string, alertId: string): string {
  return `${new Date(eventTime).toISOString()}#${alertId}`;
}

/** When a stored alert of the rule raised at `now` closes by itself; undefined when it never does. */
function autoCloseAt(rule: StoredRule, now: number): string | undefined {
  const hours = commonSettings().autoCloseHours.safeParse(rule.settings.autoCloseHours);
  if (!rule.stored || !hours.success || !hours.data) return undefined;
  return new Date(now + hours.data * 3_600_000).toISOString();
}

/**
 * When a stored alert of the rule raised at `now` with `severity` is escalated if still open; undefined when it
 * never is, as when it is below the rule's `escalateMinSeverity`. Judged here, once: the alert's severity never
 * changes, and an alert without `escalateAt` never reaches the sweep's due index.
 */
function escalateAt(rule: StoredRule, severity: Severity, now: number): string | undefined {
  const chain = ruleChain(rule);
  const least = commonSettings().escalateMinSeverity.safeParse(rule.settings.escalateMinSeverity).data ?? 'info';
  const first = chain && nextStep(chain);
  if (!rule.stored || !first || !atLeast(severity, least)) return undefined;
  return new Date(now + first.after * 60_000).toISOString();
}

/** The earliest of the due times an alert has (ISO times compare as text). */
export function earliestDue(...times: (string | undefined)[]): string | undefined {
  return times.filter((time): time is string => time !== undefined).sort()[0];
}

/**
 * The pending alert an evaluator's event becomes: `open`, with its severity, due to be escalated (not a follow-up:
 * reminder, cleared, limit notice; at or above the rule's escalateMinSeverity) and to close by itself when its rule
 * says so (`dueAt` the earlier of the two).
 */
export function buildAlertItem(rule: StoredRule, vehicleId: number, event: RuleEvent, now: number): AlertItem {
  const alertId = alertIdFor(rule.id, vehicleId, event.kind, event.time);
  const severity = eventSeverity(rule, event);
  const closesAt = autoCloseAt(rule, now);
  const escalatesAt = (FOLLOW_UP_KINDS as readonly string[]).includes(event.kind) ? undefined : escalateAt(rule, severity, now);
  const dueAt = earliestDue(closesAt, escalatesAt);
  return {
    alertId,
    ruleId: rule.id,
    ruleType: rule.type,
    ruleName: rule.name,
    vehicleId,
    parentId: rule.parentId,
    event,
    createdAt: new Date(now).toISOString(),
    status: 'pending',
    deliveries: {},
    stored: rule.stored,
    severity,
    state: 'open',
    lifecycle: [],
    timeKey: alertTimeKey(event.time, alertId),
    expiresAt: Math.floor(now / 1000) + ALERT_RETENTION_DAYS * 86_400,
    outbox: outboxShardOf(alertId),
    ...(closesAt ? { autoCloseAt: closesAt } : {}),
    ...(escalatesAt ? { escalateAt: escalatesAt } : {}),
    ...(dueAt ? { dueShard: dueShardOf(alertId), dueAt } : {}),
    ...(event.values.afterSilence === true ? { afterSilence: true as const } : {}),
  };
}

/**
 * What a stored rule's event held back by a maintenance silence becomes: an alert kept in the history and never
 * delivered. It is born settled (`delivered`, with no target) and closed by fleetwatch, so it is in no outbox, is
 * never escalated or closed again, and asks nobody to acknowledge it.
 */
export function buildSilencedAlertItem(rule: StoredRule, vehicleId: number, event: RuleEvent, silenceId: string, now: number): AlertItem {
  const {
    outbox: _outbox,
    autoCloseAt: _close,
    escalateAt: _escalate,
    dueShard: _shard,
    dueAt: _due,
    ...alert
  } = buildAlertItem(rule, vehicleId, event, now);
  const at = new Date(now).toISOString();
  return {
    ...alert,
    status: 'delivered',
    state: 'closed',
    lifecycle: [{ state: 'closed', at, by: 'fleetwatch', via: 'system', comment: `silenced by ${silenceId}` }],
    silenced: { silenceId },
  };
}

/** One firing of a chain's level: which step, and who each of its rotas had on call then. */
export interface EscalationFiring {
  step: { level: number; round: number };
  onCall: { rotaId: string; userId: string }[];
}

const FIRST_LEVEL: EscalationFiring = { step: { level: 0, round: 0 }, onCall: [] };

/**
 * The escalation of a stored alert still open at its `escalateAt`: an `escalated` event carrying the alert's
 * own event (kind, time, position, values), severity and the minutes it waited, delivered to the rule's escalation
 * targets. Not stored in the history itself (the alert it escalates is, marked `escalatedAt`), and never
 * escalated or closed in turn.
 */
export function buildEscalationItem(alert: Alert, now: number, firing: EscalationFiring = FIRST_LEVEL): AlertItem {
  const alertId = escalationIdFor(alert.alertId, firing.step);
  const waited = Date.parse(alert.escalateAt ?? alert.createdAt) - Date.parse(alert.createdAt);
  const event: RuleEvent = {
    ...alert.event,
    kind: ESCALATED_KIND,
    values: {
      ...alert.event.values,
      escalatedKind: alert.event.kind,
      escalatedAlertId: alert.alertId,
      escalateAfter: Math.round(waited / 60_000),
      escalationLevel: firing.step.level,
      escalationRound: firing.step.round,
      // whoever each rota of the level had on call when it fired: delivery sends to them
      onCallUserIds: firing.onCall.map((entry) => entry.userId).join(','),
    },
  };
  return {
    alertId,
    ruleId: alert.ruleId,
    ruleType: alert.ruleType,
    ruleName: alert.ruleName,
    vehicleId: alert.vehicleId,
    parentId: alert.parentId,
    event,
    createdAt: new Date(now).toISOString(),
    status: 'pending',
    deliveries: {},
    stored: false,
    severity: severityOf(alert),
    state: 'open',
    lifecycle: [],
    timeKey: alertTimeKey(event.time, alertId),
    expiresAt: Math.floor(now / 1000) + ALERT_RETENTION_DAYS * 86_400,
    outbox: outboxShardOf(alertId),
  };
}

/** The transaction entry that creates an alert once: a second put of the same id is cancelled. */
export function alertPut(alert: AlertItem) {
  return {
    Put: {
      TableName: alertsTable(),
      Item: alert,
      ConditionExpression: 'attribute_not_exists(alertId)',
    },
  };
}

export interface PendingAlert {
  alertId: string;
  createdAt: string;
  outboxEnqueuedAt: number | null;
  /** Times the outbox has enqueued it again. */
  outboxAttempts: number;
}

/**
 * Alerts still pending that were created before `createdBefore` (epoch ms), shard by shard, oldest first in
 * each: those waiting for delivery (`pending`), or those held for a side address's confirmation (`held`).
 */
export async function* pendingAlertsOlderThan(createdBefore: number, kind: 'pending' | 'held' = 'pending'): AsyncGenerator<PendingAlert> {
  for (let shard = 0; shard < OUTBOX_SHARDS; shard++) yield* pendingInShard(`${kind}#${shard}`, createdBefore);
}

async function* pendingInShard(shard: string, createdBefore: number): AsyncGenerator<PendingAlert> {
  for await (const output of paginateQuery(
    { client: documentClient() },
    {
      TableName: alertsTable(),
      IndexName: 'outbox',
      KeyConditionExpression: '#outbox = :shard AND createdAt < :before',
      ExpressionAttributeNames: { '#outbox': 'outbox' },
      ExpressionAttributeValues: { ':shard': shard, ':before': new Date(createdBefore).toISOString() },
    },
  )) {
    for (const item of output.Items ?? []) {
      yield {
        alertId: String(item.alertId),
        createdAt: String(item.createdAt),
        outboxEnqueuedAt: typeof item.outboxEnqueuedAt === 'number' ? item.outboxEnqueuedAt : null,
        outboxAttempts: typeof item.outboxAttempts === 'number' ? item.outboxAttempts : 0,
      };
    }
  }
}

/**
 * Claims a pending alert for re-enqueueing: succeeds only if it is still pending and nobody re-enqueued it
 * since `previous` was read, so two overlapping sweeps enqueue it once.
 */
export async function claimForReenqueue(alert: PendingAlert, now: number): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: alertsTable(),
        Key: { alertId: alert.alertId },
        UpdateExpression: 'SET outboxEnqueuedAt = :now ADD outboxAttempts :one',
        // an alert whose next attempt is already waiting on the queue (deliver's retry) is not sent again
        ConditionExpression:
          (alert.outboxEnqueuedAt === null
            ? 'attribute_exists(#outbox) AND attribute_not_exists(outboxEnqueuedAt)'
            : 'attribute_exists(#outbox) AND outboxEnqueuedAt = :previous') + ' AND (attribute_not_exists(nextAttemptAt) OR nextAttemptAt < :stale)',
        ExpressionAttributeNames: { '#outbox': 'outbox' },
        ExpressionAttributeValues: {
          ':now': now,
          ':one': 1,
          ':stale': now - HOLDER_GRACE_MS,
          ...(alert.outboxEnqueuedAt === null ? {} : { ':previous': alert.outboxEnqueuedAt }),
        },
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}

/**
 * Gives up on an alert the outbox has enqueued `outboxAttempts` times without the deliver function settling
 * it: marked failed and taken out of the outbox, unless a delivery holds it right now (its lease).
 */
export async function abandonPending(alert: PendingAlert, now: number, reason: string): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: alertsTable(),
        Key: { alertId: alert.alertId },
        UpdateExpression: 'SET #status = :failed, outboxAbandonedAt = :now, outboxError = :reason REMOVE #outbox',
        ConditionExpression:
          'attribute_exists(#outbox) AND outboxAttempts = :attempts AND (attribute_not_exists(deliveryLease) OR deliveryLease < :now)',
        ExpressionAttributeNames: { '#outbox': 'outbox', '#status': 'status' },
        ExpressionAttributeValues: {
          ':failed': 'failed',
          ':now': now,
          ':reason': reason,
          ':attempts': alert.outboxAttempts,
        },
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}
