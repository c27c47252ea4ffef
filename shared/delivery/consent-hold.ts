import type { Alert, DeliveryStatus } from '../schemas/alert';
import { isSideEmailConfirmed } from '../store/email-consent/confirmation';
import { recordHold } from '../store/email-consent/holds';
import type { DueInputs } from '../store/alert-due';
import { holdAlert, recordDelivery } from '../store/alerts/alert-store';
import type { DeliveryPlan, EmailTarget } from './targets';

/** How long an alert's e-mail waits for a side address to confirm, counted from the alert's creation. */
export const CONSENT_HOLD_MS = 24 * 3_600_000;

const EXPIRED_REASON = 'the address did not confirm within 24 hours of the alert';

/**
 * Settles what the plan holds: an e-mail whose hold has run out is skipped with the reason; the others are
 * recorded `held` on the alert (once) and noted under their address, for the confirmation to find. A `held`
 * entry the plan no longer names (the address left the rule) is skipped. Returns the targets still held.
 */
export async function settleHeldTargets(
  alert: Alert,
  clientId: string,
  plan: DeliveryPlan,
  statuses: Record<string, DeliveryStatus>,
  now: number,
): Promise<EmailTarget[]> {
  const at = new Date(now).toISOString();
  const holdEnds = Date.parse(alert.createdAt) + CONSENT_HOLD_MS;
  const record = async (key: string, status: DeliveryStatus) => {
    await recordDelivery(alert.alertId, key, status);
    statuses[key] = status;
  };
  const planned = new Set([...plan.targets, ...plan.skipped, ...plan.held].map((target) => target.key));
  for (const [key, status] of Object.entries(statuses)) {
    if (status.status === 'held' && !planned.has(key))
      await record(key, { status: 'skipped', at, attempts: 0, error: 'the address is no longer on the rule' });
  }
  if (now >= holdEnds) {
    for (const target of plan.held) await record(target.key, { status: 'skipped', at, attempts: 0, error: EXPIRED_REASON });
    return [];
  }
  for (const target of plan.held) {
    await recordHold(clientId, target.address, alert.alertId, holdEnds);
    if (statuses[target.key]?.status !== 'held') {
      await record(target.key, {
        status: 'held',
        at,
        attempts: 0,
        error: `waiting for the address to confirm, until ${new Date(holdEnds).toISOString()}`,
      });
    }
  }
  return plan.held;
}

/**
 * Everything else is settled: the alert waits in the outbox's held shards. An address that confirmed between
 * the plan and the hold would find no hold to release, so its confirmation is read again after the hold is
 * noted; then the alert is tried again instead.
 */
export async function holdUntilConfirmed(alert: DueInputs, clientId: string, held: readonly EmailTarget[]): Promise<'held' | 'confirmed'> {
  await holdAlert(alert);
  for (const target of held) if (await isSideEmailConfirmed(clientId, target.address)) return 'confirmed';
  return 'held';
}
