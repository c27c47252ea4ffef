import { InlineKeyboard } from 'grammy';
import { signAlertLink } from '../auth/alert-link-token';
import { escapeHtml } from '../channels/escape-html';
import type { Alert } from '../schemas/alert';
import { acknowledgeLink } from './links';
import { renderLifecycleText, type RenderedNotification } from './render';
import type { DeliveryTarget } from './targets';

/**
 * The way to acknowledge an alert from its notification, per channel: a button under the Telegram message,
 * a signed one-click link in the e-mail and in the push notification's data (with an action category the app
 * shows as a button). Only a stored alert still open offers one; webhooks get none.
 */
export const TELEGRAM_ACKNOWLEDGE_PREFIX = 'ack:';
/** The notification category (APNs) and click action (FCM) under which the app shows the acknowledge action. */
export const PUSH_ALERT_CATEGORY = 'FLEETWATCH_ALERT';

export type AcknowledgeAction =
  | { channel: 'email'; label: string; url: string }
  | { channel: 'push'; label: string; url: string }
  | { channel: 'telegram'; keyboard: InlineKeyboard };

/** The acknowledge action of one target, or null; `loginOf` names the user of a push device. */
export async function acknowledgeAction(
  alert: Alert,
  target: DeliveryTarget,
  loginOf: (userId: string) => string | undefined,
  now: number,
): Promise<AcknowledgeAction | null> {
  if (!alert.stored || alert.state !== 'open' || target.channel === 'webhook') return null;
  const label = renderLifecycleText('acknowledgeAction', target.language, {}).subject;
  if (target.channel === 'telegram') {
    // the button carries the alert id only (36 bytes of Telegram's 64); who pressed it is checked when it is pressed
    return { channel: 'telegram', keyboard: new InlineKeyboard().text(label, `${TELEGRAM_ACKNOWLEDGE_PREFIX}${alert.alertId}`) };
  }
  const sentTo = target.channel === 'email' ? `email:${target.address.trim().toLowerCase()}` : `push:${loginOf(target.userId) ?? target.userId}`;
  const url = acknowledgeLink(await signAlertLink({ alertId: alert.alertId, sentTo, language: target.language }, now));
  return { channel: target.channel, label, url };
}

/** The e-mail with its acknowledge link after the text, and before the end of the HTML document. */
export function withAcknowledgeLink(notification: RenderedNotification, action: { label: string; url: string }): RenderedNotification {
  const paragraph = `<p><a href="${escapeHtml(action.url)}">${escapeHtml(action.label)}</a></p>\n`;
  const at = notification.html.lastIndexOf('</body>');
  return {
    ...notification,
    text: `${notification.text}\n\n${action.label}: ${action.url}`,
    html: at < 0 ? `${notification.html}\n${paragraph}` : `${notification.html.slice(0, at)}${paragraph}${notification.html.slice(at)}`,
  };
}
