import { emailQuotaSchema, readConfig } from '../config';
import { countIfAny, MetricName } from '../observability/metrics';
import type { Alert, DeliveryStatus } from '../schemas/alert';
import { holdForDigest, type DigestDestination } from '../store/email-digests';
import { recordDelivery } from '../store/alerts/alert-store';
import type { RenderedNotification } from './render';
import type { EmailTarget, TelegramTarget } from './targets';

/** How long a recipient's first held e-mail waits for its digest (EMAIL_DIGEST_INTERVAL_MINUTES). */
export function digestIntervalMs(): number {
  return readConfig(emailQuotaSchema().pick({ EMAIL_DIGEST_INTERVAL_MINUTES: true })).EMAIL_DIGEST_INTERVAL_MINUTES * 60_000;
}

const heldEntry = (alert: Alert, key: string, notification: Pick<RenderedNotification, 'subject' | 'text'>, at: string) => ({
  alertId: alert.alertId,
  targetKey: key,
  subject: notification.subject,
  text: notification.text,
  heldAt: at,
});

/**
 * Holds one alert's e-mail for its recipient's digest (under the rule's client), as the recipient would have
 * read it, and records it `digest` on the alert, which settles the target: the alert's other channels finish
 * without it. Held first, recorded second: a retry after a crash in between holds it again, and it is listed once.
 */
export async function holdEmailForDigest(
  alert: Alert,
  clientId: string,
  target: EmailTarget,
  notification: RenderedNotification,
  attempts: number,
  now: number,
): Promise<DeliveryStatus> {
  const at = new Date(now).toISOString();
  const id = { kind: 'quota' as const, clientId, address: target.address };
  const held = await holdForDigest(
    id,
    { channel: 'email', address: target.address },
    target.language,
    heldEntry(alert, target.key, notification, at),
    now,
    now + digestIntervalMs(),
  );
  if (held) countIfAny(MetricName.EmailsHeldForDigest, 1);
  const status: DeliveryStatus = { status: 'digest', at, attempts };
  await recordDelivery(alert.alertId, target.key, status);
  return status;
}

/**
 * Holds one alert's e-mail or Telegram message for its user's quiet-hours digest, the one sent when the quiet
 * hours end at `until`, and records it `digest` (reason `quietHours`) on the alert in the same transaction: an
 * alert is never listed without the alert saying so, so no retry of its delivery request sends it at once too.
 */
export async function holdForQuietHours(
  alert: Alert,
  target: (EmailTarget | TelegramTarget) & { userId: string },
  notification: Pick<RenderedNotification, 'subject' | 'text'>,
  until: number,
  attempts: number,
  now: number,
): Promise<DeliveryStatus> {
  const at = new Date(now).toISOString();
  const status: DeliveryStatus = { status: 'digest', at, attempts, reason: 'quietHours' };
  const destination: DigestDestination =
    target.channel === 'email' ? { channel: 'email', address: target.address } : { channel: 'telegram', chatId: target.chatId };
  const id = { kind: 'quietHours' as const, userId: target.userId, targetKey: target.key, until };
  const record = { alertId: alert.alertId, key: target.key, status };
  // false: already held, and recorded by the transaction that held it; it is listed once
  await holdForDigest(id, destination, target.language, heldEntry(alert, target.key, notification, at), now, until, record);
  return status;
}
