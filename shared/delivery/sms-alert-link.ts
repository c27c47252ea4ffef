import { alertLinkExpiry, signAlertLink } from '../auth/alert-link-token';
import { newShortLinkCode, type ShortLinkCode } from '../auth/short-link-code';
import type { Alert } from '../schemas/alert';
import { putShortLink } from '../store/short-links';
import { shortAlertLink } from './links';
import type { SmsTarget } from './targets';

/**
 * The link of an alert SMS: the alert page's own link (signed for the number it goes to and its user, as an
 * e-mail's is for its address) is far too long for a segment, so the SMS carries a short link whose random code
 * stands for it. The code is drawn first, so the text and its segments are known before any gate; it is stored
 * only once the SMS is about to go.
 */
export interface SmsAlertLink {
  code: ShortLinkCode;
  url: string;
}

export function drawSmsAlertLink(): SmsAlertLink {
  const code = newShortLinkCode();
  return { code, url: shortAlertLink(code) };
}

/** Stores the code for the alert page's link, until that link expires. */
export async function storeSmsAlertLink(link: SmsAlertLink, alert: Alert, target: SmsTarget, now: number): Promise<void> {
  const sentTo = `sms:${target.phoneNumber}`;
  const token = await signAlertLink({ alertId: alert.alertId, sentTo, userId: target.userId, language: target.language }, now);
  await putShortLink(link.code, token, alertLinkExpiry(now));
}
