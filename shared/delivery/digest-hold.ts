import { emailQuotaSchema, readConfig } from '../config';
import { countIfAny, MetricName } from '../observability/metrics';
import type { Alert, DeliveryStatus } from '../schemas/alert';
import { holdForDigest } from '../store/email-digests';
import { recordDelivery } from './alert-store';
import type { RenderedNotification } from './render';
import type { EmailTarget } from './targets';

/** How long a recipient's first held e-mail waits for its digest (EMAIL_DIGEST_INTERVAL_MINUTES). */
export function digestIntervalMs(): number {
  return readConfig(emailQuotaSchema.pick({ EMAIL_DIGEST_INTERVAL_MINUTES: true })).EMAIL_DIGEST_INTERVAL_MINUTES * 60_000;
}

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
  const email = { alertId: alert.alertId, targetKey: target.key, subject: notification.subject, text: notification.text, heldAt: at };
  if (await holdForDigest(clientId, target.address, target.language, email, now, digestIntervalMs())) countIfAny(MetricName.EmailsHeldForDigest, 1);
  const status: DeliveryStatus = { status: 'digest', at, attempts };
  await recordDelivery(alert.alertId, target.key, status);
  return status;
}
