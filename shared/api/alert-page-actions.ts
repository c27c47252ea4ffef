import * as z from 'zod';
import type { AlertLink } from '../auth/alert-link-token';
import { formatEventTime } from '../delivery/format-time';
import { muteFromAlert, mutedText } from '../delivery/mute-alert';
import type { Alert } from '../schemas/alert';
import { transitionAlert } from '../store/alerts/alert-lifecycle';
import type { PageNotice } from './alert-page-view';
import { ALERT_PAGE_WORDS } from './alert-page-words';
import { PAGE_LANGUAGE } from './link-page';
import { actingUser } from './link-user';
import { strictBody } from './strict-body';

/**
 * What a button of the alert page does, through the code the API and Telegram use: acknowledging and closing are
 * transitionAlert's one conditional write each, muting is muteFromAlert's silence under an id derived from the
 * alert. So posting again writes nothing and the answer says who did it and when. Who may act: anyone holding the
 * link may acknowledge, as the address it was sent to (the e-mail's one-click link always could); closing and muting
 * need the fleetwatch user the link names. When it names one, that user is checked for every action, as the Telegram
 * buttons check the person pressing: enabled, with write rights, of the alert's client or one above it.
 */
export const ALERT_PAGE_ACTIONS = ['acknowledge', 'close', 'muteVehicle', 'muteRule'] as const;
export type AlertPageAction = (typeof ALERT_PAGE_ACTIONS)[number];

export const alertPageFormSchema = strictBody({
  action: z
    .enum(ALERT_PAGE_ACTIONS)
    .default('acknowledge')
    .describe('the button pressed; acknowledge when left out (an app or mail client that posts the link with no body)'),
  comment: z.string().trim().max(500).optional().describe('kept with an acknowledgement or a close; empty means none'),
});

export type AlertPageForm = z.infer<typeof alertPageFormSchema>;

/** The answer of a POST: its status, the notice above the alert, and the alert as it is now (null: gone). */
export interface ActionOutcome {
  status: number;
  notice: PageNotice;
  alert: Alert | null;
}

/**
 * Who the link was sent to, as the lifecycle records it: the address of an e-mail, the login of a push device's
 * user, the number of an SMS (its short link).
 */
function actor(link: AlertLink): { by: string; via: 'email' | 'push' | 'sms' } {
  const [channel, ...rest] = link.sentTo.split(':');
  return { by: rest.join(':'), via: channel === 'push' || channel === 'sms' ? channel : 'email' };
}

const said = (text: string, status = 200, refusal = false) => ({ status, notice: { text, refusal } });

export async function actOnAlert(link: AlertLink, alert: Alert, form: AlertPageForm, now: number): Promise<ActionOutcome> {
  const words = ALERT_PAGE_WORDS[PAGE_LANGUAGE[link.language]];
  if (link.userId === undefined && form.action !== 'acknowledge') return { ...said(words.needUser, 403, true), alert };
  const user = link.userId === undefined ? null : await actingUser(link.userId, alert);
  if (link.userId !== undefined && !user) return { ...said(words.userRefused, 403, true), alert };
  if (form.action === 'muteVehicle' || form.action === 'muteRule') {
    // only a link that names a user gets here (checked above)
    const result = await muteFromAlert(alert, form.action === 'muteVehicle' ? 'vehicle' : 'rule', user!.login, 'email', now);
    if (result.outcome === 'limit') return { ...said(words.limit, 409, true), alert };
    return { ...said(mutedText(result, link.language)), alert };
  }
  if (!alert.stored) return { ...said(words.notStoredAction, 409, true), alert };
  const to = form.action === 'acknowledge' ? 'acknowledged' : 'closed';
  const comment = form.comment ? { comment: form.comment } : {};
  const result = await transitionAlert(alert.alertId, { to, ...actor(link), now, ...comment });
  if (result.outcome === 'missing') return { ...said('', 404, true), alert: null };
  if (result.outcome === 'refused') return { ...said(words.refusedState(words.states[result.alert.state]), 409, true), alert: result.alert };
  if (result.outcome === 'changed') return { ...said(words.done[to]), alert: result.alert };
  const entry = result.alert.lifecycle.findLast((each) => each.state === to);
  const at = entry ? formatEventTime(entry.at, 0, link.language) : '';
  return { ...said(words.already[to](entry?.by ?? '?', at)), alert: result.alert };
}
