import { closeDueAlert, dueAlertIds } from '../../store/alert-lifecycle';

/**
 * Alerts whose auto-close time has come (the rule's `autoCloseHours`), found through the sparse keys-only
 * `byDue` index, never by reading the alerts table: each is closed by fleetwatch unless it was cleared or
 * closed meanwhile. Safe to repeat: a second sweep finds it off the index, or its conditional write fails.
 */
export async function runAlertDuePass(now: number): Promise<{ closed: string[] }> {
  const closed: string[] = [];
  for await (const alertId of dueAlertIds(now)) {
    if (await closeDueAlert(alertId, now)) closed.push(alertId);
  }
  return { closed };
}
