import { randomBytes } from 'node:crypto';
import type { WebhookAnswer } from '../channels/webhook/send-webhook';
import { signingSecrets } from '../channels/webhook/signing-secrets';
import { webhookMessageId } from '../channels/webhook/standard-signature';
import type { StoredWebhook } from '../schemas/webhook';
import { sendLoggedWebhook } from './logged-webhook';

/**
 * Sends one signed `{"type":"ping"}` delivery to the endpoint now, through the one webhook sender and its address
 * policy, and answers what the receiver said. Nothing is recorded and nothing is retried.
 */
export async function pingWebhook(endpoint: StoredWebhook, now: number): Promise<WebhookAnswer> {
  const pingId = `ping_${randomBytes(12).toString('base64url')}`;
  const body = JSON.stringify({ type: 'ping', pingId, webhookId: endpoint.id, parentId: endpoint.parentId, createdAt: new Date(now).toISOString() });
  return sendLoggedWebhook(
    {
      url: endpoint.url,
      secrets: signingSecrets(endpoint, now),
      scheme: endpoint.signatureScheme,
      body,
      idempotencyKey: pingId,
      messageId: webhookMessageId(pingId, endpoint.id),
    },
    now,
  );
}
