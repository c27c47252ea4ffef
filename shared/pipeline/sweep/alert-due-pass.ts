import { closeDueAlert, dueAlertIds, escalateDueAlert, getAlert, retireDueEntry } from '../../store/alert-lifecycle';
import { wakeForRetry } from '../../store/alert-due';
import type { Alert } from '../../schemas/alert';
import { enqueueDeliveries } from '../enqueue-deliveries';

/**
 * Due entries one sweep handles, oldest first across the shards; the rest wait for the next minute, in order.
 * 1,000 a minute is six times the alerts of 10,000 vehicles at one alert per vehicle-hour, so a backlog of
 * retries that came due together (a receiver back after a long outage) drains within the hour without flooding
 * the deliveries queue, and each entry costs one read of its alert.
 */
export const DUE_ALERTS_PER_SWEEP = 1_000;

export interface DuePassResult {
  closed: string[];
  escalated: string[];
  /** Alerts whose delivery retry came due, handed back to the deliver function. */
  retried: string[];
}

/**
 * Alerts with something due, found through the sparse keys-only `byDue` index, never by reading the alerts
 * table; an entry may have several reasons (shared/store/alert-due.ts), each handled in turn:
 * - an alert still open at its `escalateAt` (the rule's `escalateAfter`) is escalated, once, and its escalation
 *   enqueued for delivery;
 * - an alert at its auto-close time (`autoCloseHours`) is closed by fleetwatch unless it was cleared or closed
 *   meanwhile;
 * - a pending alert at its `retryAt` (a target waited for a retry longer than the deliveries queue holds a
 *   message) goes back to the outbox and is enqueued for delivery;
 * - an entry whose work no longer applies (acknowledged, delivered meanwhile) is moved to its next reason or
 *   taken off.
 * Safe to repeat: a second sweep finds it moved, or its conditional write fails; an escalation or a retry whose
 * request is lost stays in the outbox, which enqueues it again.
 */
export async function runAlertDuePass(now: number, limit: number = DUE_ALERTS_PER_SWEEP): Promise<DuePassResult> {
  const result: DuePassResult = { closed: [], escalated: [], retried: [] };
  const at = new Date(now).toISOString();
  for await (const { alertId, dueAt } of dueAlertIds(now, limit)) {
    let alert = await getAlert(alertId);
    if (!alert) continue;
    let acted = false;
    if (alert.escalateAt !== undefined && alert.escalatedAt === undefined && alert.escalateAt <= at && alert.state === 'open') {
      const escalation = await escalateDueAlert(alert, now);
      if (escalation !== null) {
        result.escalated.push(escalation);
        alert = { ...alert, escalatedAt: at };
        acted = true;
      }
    }
    if (alert.autoCloseAt !== undefined && alert.autoCloseAt <= at && (alert.state === 'open' || alert.state === 'acknowledged')) {
      if (await closeDueAlert(alert, now)) {
        result.closed.push(alertId);
        alert = { ...alert, state: 'closed' };
        acted = true;
      }
    }
    if (retryIsDue(alert, at) && (await wakeForRetry(alert, now))) {
      result.retried.push(alertId);
      acted = true;
    }
    if (!acted) await retireDueEntry(alert, dueAt);
  }
  const enqueued = await enqueueDeliveries([...result.escalated, ...result.retried]);
  result.retried = result.retried.filter((alertId) => enqueued.has(alertId));
  return result;
}

const retryIsDue = (alert: Alert, at: string) => alert.retryAt !== undefined && alert.retryAt <= at && alert.status === 'pending';
