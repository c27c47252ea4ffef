import { closeDueAlert, dueAlertIds, escalateDueAlert, retireDueEntry } from '../store/alerts/alert-lifecycle';
import { escalationPending, handRetryToOutbox, readDueAlert, RETRY_WAKE_GRACE_MS, wakeForRetry } from '../store/alert-due';
import { onCallAt } from '../delivery/on-call';
import { nextStep } from '../rules/escalation-chain';
import { ruleChain } from '../rules/rule-chain';
import type { EscalationFiring } from '../store/alerts/alerts-store';
import { getRotas } from '../store/rotas-store';
import { getRule } from '../store/rules-store';
import type { Alert } from '../schemas/alert';
import { enqueueDeliveries } from '../queues/enqueue-deliveries';

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
 *   message) is marked handed back (`retryWokenAt`) and enqueued for delivery; it stays on the index until the
 *   deliver function moves its retry on or settles it, and one not taken up within RETRY_WAKE_GRACE_MS goes to
 *   the outbox;
 * - an entry whose work no longer applies (acknowledged, delivered meanwhile) is moved to its next reason or
 *   taken off.
 * Safe to repeat: a second sweep finds it moved, or its conditional write fails; an escalation whose request is
 * lost stays in the outbox, which enqueues it again, and so does a retry once its grace has passed.
 */
export async function runAlertDuePass(now: number, limit: number = DUE_ALERTS_PER_SWEEP): Promise<DuePassResult> {
  const result: DuePassResult = { closed: [], escalated: [], retried: [] };
  const at = new Date(now).toISOString();
  for await (const { alertId, dueAt } of dueAlertIds(now, limit)) {
    const due = await readDueAlert(alertId);
    if (!due) continue;
    let { alert } = due;
    let acted = false;
    if (escalationPending(alert) && alert.escalateAt! <= at && alert.state === 'open') {
      const { firing, next } = await chainFiring(alert, now);
      const escalation = await escalateDueAlert(alert, now, firing, next);
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
    if (retryIsDue(alert, at)) {
      if (due.wokenAt !== undefined && now - due.wokenAt < RETRY_WAKE_GRACE_MS) {
        // handed back already: its request is on the queue
        acted = true;
      } else if (due.wokenAt === undefined ? await wakeForRetry(alert, now) : await handRetryToOutbox(due, now)) {
        result.retried.push(alertId);
        acted = true;
      }
    }
    if (!acted) await retireDueEntry(alert, dueAt);
  }
  const enqueued = await enqueueDeliveries([...result.escalated, ...result.retried]);
  result.retried = result.retried.filter((alertId) => enqueued.has(alertId));
  return result;
}

const retryIsDue = (alert: Alert, at: string) => alert.retryAt !== undefined && alert.retryAt <= at && alert.status === 'pending';

/**
 * The step of the alert's chain due now, with who each of its rotas has on call, and the step after it (from the
 * rule as it is now: a level taken out meanwhile ends the chain there). A rule gone, or no longer escalating,
 * fires the step due without a next one.
 */
async function chainFiring(
  alert: Alert,
  now: number,
): Promise<{ firing: EscalationFiring; next: { at: string; level: number; round: number } | null }> {
  const step = alert.escalationStep ?? { level: 0, round: 0 };
  const rule = await getRule(alert.ruleId);
  const chain = rule && ruleChain(rule);
  const level = chain?.levels[step.level];
  if (!chain || !level) return { firing: { step, onCall: [] }, next: null };
  const rotas = await getRotas(level.rotaIds);
  const onCall = rotas.map((rota) => ({ rotaId: rota.id, userId: onCallAt(rota, now).userId }));
  const following = nextStep(chain, step);
  const next = following && {
    at: new Date(Date.parse(alert.createdAt) + following.after * 60_000).toISOString(),
    level: following.level,
    round: following.round,
  };
  return { firing: { step, onCall }, next };
}
