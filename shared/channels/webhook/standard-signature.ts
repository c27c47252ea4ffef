import { createHash } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * The `webhook-id` of an alert's delivery to one endpoint: derived from both, so every redelivery of that alert
 * to that endpoint carries the same id (the receiver drops copies by it) and no two endpoints share one.
 */
export function webhookMessageId(alertId: string, endpointId: string): string {
  return `msg_${createHash('sha256').update(`${alertId}\n${endpointId}`).digest('base64url').slice(0, 32)}`;
}

/**
 * The Standard Webhooks headers of one delivery. Each secret (`whsec_…`) adds one `v1,<signature>` entry to
 * `webhook-signature`, space-separated: during a rotation's overlap both the new and the previous secret verify.
 */
export function standardSignatureHeaders(secrets: readonly string[], messageId: string, now: number, body: string): Record<string, string> {
  const timestamp = new Date(now);
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(now / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(messageId, timestamp, body)).join(' '),
  };
}

/** Whether the secret is `whsec_` and standard padded base64, as Standard Webhooks libraries read it. */
export function isStandardSecret(secret: string): boolean {
  return /^whsec_(?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(secret);
}
