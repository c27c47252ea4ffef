import { connectionLossSettingsSchema } from '../rules/connection-loss';
import { logger } from '../observability/logger';
import type { Alert } from '../schemas/alert';
import type { StoredRule } from '../schemas/notification';
import { alertIdFor } from '../store/alert-id';
import { clearAlert } from '../store/alerts/alert-lifecycle';

/**
 * Alerts whose episode another alert ends: `cleared` when that alert is delivered. Today one pair is known at
 * delivery: a connection restored (type 7 with notifyRestored) ends the connectionLost alert of the same
 * silence, whose id follows from the silence's start and the rule's minutes. Other episode ends call
 * `clearAlert` where they are known. Clearing is conditional, so a redelivered alert clears once.
 */
function endedAlertId(alert: Alert, rule: StoredRule): string | null {
  if (alert.event.kind !== 'connectionRestored' || typeof alert.event.values.silentSince !== 'string') return null;
  const settings = connectionLossSettingsSchema.safeParse(rule.settings);
  if (!settings.success) return null;
  const lostAt = Date.parse(alert.event.values.silentSince) + settings.data.minutes * 60_000;
  return Number.isFinite(lostAt) ? alertIdFor(rule.id, alert.vehicleId, 'connectionLost', new Date(lostAt).toISOString()) : null;
}

export async function clearEndedEpisode(alert: Alert, rule: StoredRule, now: number): Promise<void> {
  const ended = endedAlertId(alert, rule);
  if (ended === null) return;
  try {
    await clearAlert(ended, now);
  } catch (error) {
    // the notification matters more than the state of the alert it follows; the lost alert stays as it was
    logger.warn('could not clear the alert whose episode ended', { alertId: ended, error });
  }
}
