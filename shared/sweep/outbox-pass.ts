import { outboxSchema, readConfig } from '../config';
import { abandonPending, claimForReenqueue, pendingAlertsOlderThan, type PendingAlert } from '../store/alerts/alerts-store';
import { logger } from '../observability/logger';
import { enqueueDeliveries } from '../queues/enqueue-deliveries';
import { CONSENT_HOLD_MS } from '../delivery/consent-hold';

/**
 * The outbox: an alert is committed before its delivery request is sent, so a crash in between leaves it
 * `pending` with nobody to deliver it. Alerts pending for longer than `minAgeMs` are enqueued again, each at
 * most once per `minAgeMs` (claimed with a conditional update, so overlapping sweeps do not both send it).
 * After `maxAttempts` re-enqueues the alert is given up on (marked failed, logged as an error): a delivery
 * that keeps failing that long is no longer news to the operator it was meant for.
 */
export { DEFAULT_OUTBOX_AGE_MS, DEFAULT_OUTBOX_MAX_ATTEMPTS } from '../config';

export function outboxAgeMs(env?: Record<string, string | undefined>): number {
  return readConfig(outboxSchema(), env).OUTBOX_AGE_MS;
}

export function outboxMaxAttempts(env?: Record<string, string | undefined>): number {
  return readConfig(outboxSchema(), env).OUTBOX_MAX_ATTEMPTS;
}

export interface OutboxResult {
  reenqueued: string[];
  abandoned: string[];
}

export async function runOutboxPass(now: number, minAgeMs: number = outboxAgeMs(), maxAttempts: number = outboxMaxAttempts()): Promise<OutboxResult> {
  const pending = await reenqueue(pendingAlertsOlderThan(now - minAgeMs), now, minAgeMs, maxAttempts);
  // alerts held for a side address's confirmation come back once their hold has run out, to be settled
  const held = await reenqueue(pendingAlertsOlderThan(now - CONSENT_HOLD_MS, 'held'), now, minAgeMs, maxAttempts);
  return { reenqueued: [...pending.reenqueued, ...held.reenqueued], abandoned: [...pending.abandoned, ...held.abandoned] };
}

async function reenqueue(alerts: AsyncIterable<PendingAlert>, now: number, minAgeMs: number, maxAttempts: number): Promise<OutboxResult> {
  const claimed: string[] = [];
  const abandoned: string[] = [];
  for await (const alert of alerts) {
    if (alert.outboxEnqueuedAt !== null && now - alert.outboxEnqueuedAt < minAgeMs) continue;
    if (alert.outboxAttempts >= maxAttempts) {
      const reason = `not delivered after ${alert.outboxAttempts} re-enqueues by the outbox`;
      if (await abandonPending(alert, now, reason)) {
        abandoned.push(alert.alertId);
        logger.error('pending alert given up', { alertId: alert.alertId, createdAt: alert.createdAt, attempts: alert.outboxAttempts });
      }
      continue;
    }
    if (await claimForReenqueue(alert, now)) claimed.push(alert.alertId);
  }
  const enqueued = await enqueueDeliveries(claimed);
  for (const alertId of enqueued) logger.info('pending alert enqueued again', { alertId });
  return { reenqueued: [...enqueued], abandoned };
}
