import pLimit from 'p-limit';
import { webhookPayload } from '../channels/webhook/payload';
import { signingSecrets } from '../channels/webhook/signing-secrets';
import { webhookMessageId } from '../channels/webhook/standard-signature';
import type { Alert } from '../schemas/alert';
import type { StoredWebhook } from '../schemas/webhook';
import type { WebhookAttempt } from '../store/webhook-deliveries';
import { loadVehicle } from '../store/recipients';
import { sendLoggedWebhook } from './logged-webhook';

/** Redeliveries sent at the same time: twenty answering in 5 s each stay well inside the API's 25 s. */
const PARALLEL_SENDS = 10;

export type Redelivery = Omit<WebhookAttempt, 'event' | 'at'>;

/** Whether the alert was sent to the endpoint: one of its client's with an attempt recorded for the endpoint. */
export function wasDeliveredTo(alert: Alert, endpoint: StoredWebhook): boolean {
  const key = `webhook:${endpoint.id}`;
  const status = alert.deliveries[key]?.status;
  const attempted = (status !== undefined && status !== 'skipped') || alert.deliveryRetries?.[key] !== undefined;
  return alert.parentId === endpoint.parentId && attempted;
}

/**
 * Sends the alerts to the endpoint again, each once, with the body and `webhook-id` of the original delivery
 * (the receiver drops a copy it already has by that id), through the one webhook sender; each attempt is
 * recorded in the endpoint's delivery log. The alerts' own delivery records are left as they are.
 */
export async function redeliverWebhook(endpoint: StoredWebhook, alerts: readonly Alert[], now: number): Promise<Redelivery[]> {
  const limit = pLimit(PARALLEL_SENDS);
  return Promise.all(
    alerts.map((alert) =>
      limit(async (): Promise<Redelivery> => {
        const vehicle = await loadVehicle(alert.vehicleId);
        const answer = await sendLoggedWebhook({
          url: endpoint.url,
          secrets: signingSecrets(endpoint, now),
          scheme: endpoint.signatureScheme,
          body: JSON.stringify(webhookPayload(alert, vehicle?.name ?? String(alert.vehicleId))),
          idempotencyKey: alert.alertId,
          messageId: webhookMessageId(alert.alertId, endpoint.id),
          log: { endpointId: endpoint.id, alertId: alert.alertId, event: alert.event.kind },
        });
        const failure = answer.outcome.status === 'sent' ? null : answer.outcome.error;
        return {
          alertId: alert.alertId,
          status: failure === null ? 'succeeded' : 'failed',
          httpStatus: answer.httpStatus,
          latencyMs: answer.latencyMs,
          error: failure,
        };
      }),
    ),
  );
}
