import { describeError } from '../channels/outcome';
import { privateTargetsAllowed } from '../channels/webhook/address-policy';
import { answerWebhook, type WebhookAnswer, type WebhookDelivery } from '../channels/webhook/send-webhook';
import { logger } from '../observability/logger';
import { recordWebhookAttempt } from '../store/webhook-deliveries';

// a module of its own, apart from senders.ts: the API pings and redelivers webhooks, and must not bundle the
// Telegram, SES and push clients it never uses (grammy alone brings some 400 KB)

/**
 * The one webhook sender of alerts, test alerts, pings and redeliveries: sends one delivery under the address
 * policy (`privateTargetsAllowed`) and records the attempt in its endpoint's delivery log when it has one; a
 * failed record only warns. `now` signs the delivery (a ping passes the API's clock).
 */
export async function sendLoggedWebhook(delivery: WebhookDelivery, now = Date.now()): Promise<WebhookAnswer> {
  const answer = await answerWebhook(delivery, { allowPrivate: privateTargetsAllowed(), now });
  if (delivery.log) {
    const { endpointId, alertId, event } = delivery.log;
    const failure = answer.outcome.status === 'sent' ? null : answer.outcome.error;
    await recordWebhookAttempt(endpointId, {
      alertId,
      event,
      at: new Date(now).toISOString(),
      status: failure === null ? 'succeeded' : 'failed',
      httpStatus: answer.httpStatus,
      latencyMs: answer.latencyMs,
      error: failure,
    }).catch((error: unknown) => logger.warn('could not record a webhook attempt', { endpointId, alertId, error: describeError(error) }));
  }
  return answer;
}
