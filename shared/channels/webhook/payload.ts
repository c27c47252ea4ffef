import type { Alert } from '../../schemas/alert';
import type { WebhookAlertPayload } from '../../schemas/webhook';
import { severityOf } from '../../rules/severity';

/** The JSON body a webhook receives for one alert. */
export function webhookPayload(alert: Alert, vehicleName: string): WebhookAlertPayload {
  return {
    type: 'alert',
    alertId: alert.alertId,
    createdAt: alert.createdAt,
    parentId: alert.parentId,
    severity: severityOf(alert),
    rule: { id: alert.ruleId, type: alert.ruleType, name: alert.ruleName },
    vehicle: { id: alert.vehicleId, name: vehicleName },
    event: {
      kind: alert.event.kind,
      time: alert.event.time,
      latitude: alert.event.latitude,
      longitude: alert.event.longitude,
      speed: alert.event.speed,
      values: alert.event.values,
    },
    ...(alert.afterSilence ? { afterSilence: true as const } : {}),
  };
}
