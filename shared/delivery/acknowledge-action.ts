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
 * shows as a button). Only a stored alert still open offers one; webhooks get none. The Telegram message also has
 * the mute buttons (telegram-mute.ts), for every alert.
 */
export const TELEGRAM_ACKNOWLEDGE_PREFIX = 'ack:';
/** The mute buttons' data prefixes (telegram-mute.ts), each followed by the alert id. */
export const TELEGRAM_MUTE_PREFIXES = { vehicle: 'mv:', rule: 'mr:' } as const;
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
  if (target.channel === 'webhook') return null;
  const acknowledgeable = alert.stored && alert.state === 'open';
  const label = renderLifecycleText('acknowledgeAction', target.language, {}).subject;
  if (target.channel === 'telegram') {
    // each button carries the alert id only (36 bytes of Telegram's 64); who pressed it is checked when it is pressed
    const keyboard = new InlineKeyboard();
    if (acknowledgeable) keyboard.text(label, `${TELEGRAM_ACKNOWLEDGE_PREFIX}${alert.alertId}`).row();
    keyboard
      .text(renderLifecycleText('muteVehicleAction', target.language, {}).subject, `${TELEGRAM_MUTE_PREFIXES.vehicle}${alert.alertId}`)
      .row()
      .text(renderLifecycleText('muteRuleAction', target.language, {}).subject, `${TELEGRAM_MUTE_PREFIXES.rule}${alert.alertId}`);
    return { channel: 'telegram', keyboard };
  }
  if (!acknowledgeable) return null;
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
