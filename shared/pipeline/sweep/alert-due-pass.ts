import { closeDueAlert, dueAlertIds, escalateDueAlert, getStoredAlert, retireDueEntry } from '../../store/alert-lifecycle';
import { enqueueDeliveries } from '../enqueue-deliveries';

/**
 * Alerts with something due, found through the sparse keys-only `byDue` index, never by reading the alerts
 * table: an alert still open at its `escalateAt` (the rule's `escalateAfter`) is escalated, once, and its
 * escalation enqueued for delivery; an alert at its auto-close time (`autoCloseHours`) is closed by fleetwatch
 * unless it was cleared or closed meanwhile; an entry whose work no longer applies (acknowledged meanwhile) is
 * moved to the auto-close or taken off. Safe to repeat: a second sweep finds it off the index, or its
 * conditional write fails; an escalation whose request is lost stays in the outbox, which enqueues it again.
 */
export async function runAlertDuePass(now: number): Promise<{ closed: string[]; escalated: string[] }> {
  const closed: string[] = [];
  const escalated: string[] = [];
  const at = new Date(now).toISOString();
  for await (const { alertId, dueAt } of dueAlertIds(now)) {
    const alert = await getStoredAlert(alertId);
    if (!alert) continue;
    const escalates = alert.escalateAt !== undefined && alert.escalatedAt === undefined && alert.escalateAt <= at && alert.state === 'open';
    const closes = alert.autoCloseAt !== undefined && alert.autoCloseAt <= at;
    if (escalates) {
      const escalation = await escalateDueAlert(alert, now);
      if (escalation !== null) escalated.push(escalation);
    }
    if (closes) {
      if (await closeDueAlert(alertId, now)) closed.push(alertId);
    } else if (!escalates) await retireDueEntry(alert, dueAt);
  }
  await enqueueDeliveries(escalated);
  return { closed, escalated };
}
