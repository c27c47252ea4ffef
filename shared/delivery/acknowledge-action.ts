import type { InlineKeyboard } from 'grammy';
import { signAlertLink, signAlertMuteLink } from '../auth/alert-link-token';
import { escapeHtml } from '../channels/escape-html';
import type { Alert } from '../schemas/alert';
import type { Language } from '../schemas/directory';
import { alertPageLink, muteLink } from './links';
import { renderLifecycleText, type RenderedNotification } from './render';
import type { DeliveryTarget } from './targets';

/**
 * The way to act on an alert from its notification, per channel: a button under the Telegram message, a signed
 * link in the e-mail and in the push notification's data (with an action category the app shows as a button).
 * The link leads to the alert's page (shared/api/routes/alert-links.ts), where a POST with no body acknowledges:
 * every e-mail carries it, labelled Acknowledge while a stored alert is open; the push notification only then.
 * It is signed for the address or device it goes to and, when they belong to one, for that fleetwatch user, who
 * may then also close and mute from the page. Webhooks get none; an SMS has the page's short link
 * (sms-alert-link.ts). The Telegram message also has the mute buttons (telegram-mute.ts), for every alert, and an
 * e-mail to a fleetwatch user the mute links (`/api/v3/alerts/mute/{token}`), before the page's link.
 */
export const TELEGRAM_ACKNOWLEDGE_PREFIX = 'ack:';
/** The mute buttons' data prefixes (telegram-mute.ts), each followed by the alert id. */
export const TELEGRAM_MUTE_PREFIXES = { vehicle: 'mv:', rule: 'mr:' } as const;
/** The notification category (APNs) and click action (FCM) under which the app shows the acknowledge action. */
export const PUSH_ALERT_CATEGORY = 'FLEETWATCH_ALERT';

/** One link of an e-mail's actions: its label and where it leads. */
export interface ActionLink {
  label: string;
  url: string;
}

export type AcknowledgeAction =
  { channel: 'email'; links: ActionLink[] } | { channel: 'push'; label: string; url: string } | { channel: 'telegram'; keyboard: InlineKeyboard };

/** The mute links of an e-mail to a fleetwatch user (mute-alert.ts), signed for that user, who is checked again when one is used. */
async function muteLinks(alert: Alert, userId: string, language: Language, now: number): Promise<ActionLink[]> {
  return Promise.all(
    (['vehicle', 'rule'] as const).map(async (action) => ({
      label: renderLifecycleText(action === 'vehicle' ? 'muteVehicleAction' : 'muteRuleAction', language, {}).subject,
      url: muteLink(await signAlertMuteLink({ alertId: alert.alertId, userId, action, language }, now)),
    })),
  );
}

/** The acknowledge action of one target, or null; `loginOf` names the user of a push device. */
export async function acknowledgeAction(
  alert: Alert,
  target: DeliveryTarget,
  loginOf: (userId: string) => string | undefined,
  now: number,
): Promise<AcknowledgeAction | null> {
  // an SMS carries its own short link to the page (sms-alert-link.ts), made only when the SMS goes
  if (target.channel === 'webhook' || target.channel === 'sms') return null;
  const acknowledgeable = alert.stored && alert.state === 'open';
  const label = renderLifecycleText('acknowledgeAction', target.language, {}).subject;
  if (target.channel === 'telegram') {
    // each button carries the alert id only (36 bytes of Telegram's 64); who pressed it is checked when it is pressed
    // grammy is loaded by the first Telegram message (senders.ts), not at the deliver function's cold start
    const keyboard = new (await import('grammy')).InlineKeyboard();
    if (acknowledgeable) keyboard.text(label, `${TELEGRAM_ACKNOWLEDGE_PREFIX}${alert.alertId}`).row();
    keyboard
      .text(renderLifecycleText('muteVehicleAction', target.language, {}).subject, `${TELEGRAM_MUTE_PREFIXES.vehicle}${alert.alertId}`)
      .row()
      .text(renderLifecycleText('muteRuleAction', target.language, {}).subject, `${TELEGRAM_MUTE_PREFIXES.rule}${alert.alertId}`);
    return { channel: 'telegram', keyboard };
  }
  if (target.channel === 'email') {
    // an outside address (a side e-mail) may acknowledge, never mute: only a user's e-mail carries the mute links
    const links = target.userId === undefined ? [] : await muteLinks(alert, target.userId, target.language, now);
    const sentTo = `email:${target.address.trim().toLowerCase()}`;
    const token = await signAlertLink({ alertId: alert.alertId, sentTo, userId: target.userId, language: target.language }, now);
    links.push({ label: acknowledgeable ? label : renderLifecycleText('alertPageAction', target.language, {}).subject, url: alertPageLink(token) });
    return { channel: 'email', links };
  }
  if (!acknowledgeable) return null;
  const sentTo = `push:${loginOf(target.userId) ?? target.userId}`;
  const url = alertPageLink(await signAlertLink({ alertId: alert.alertId, sentTo, userId: target.userId, language: target.language }, now));
  return { channel: 'push', label, url };
}

/** The e-mail with its action links after the text (the page's link last), and before the end of the HTML document. */
export function withActionLinks(notification: RenderedNotification, links: readonly ActionLink[]): RenderedNotification {
  const paragraphs = links.map((link) => `<p><a href="${escapeHtml(link.url)}">${escapeHtml(link.label)}</a></p>\n`).join('');
  const at = notification.html.lastIndexOf('</body>');
  return {
    ...notification,
    text: `${notification.text}${links.map((link) => `\n\n${link.label}: ${link.url}`).join('')}`,
    html: at < 0 ? `${notification.html}\n${paragraphs}` : `${notification.html.slice(0, at)}${paragraphs}${notification.html.slice(at)}`,
  };
}
