import * as z from 'zod';
import { verifyAlertMuteLink, type AlertMuteLink } from '../../auth/alert-link-token';
import { formatEventTime } from '../../delivery/format-time';
import { muteFromAlert, mutedText } from '../../delivery/mute-alert';
import { renderLifecycleText } from '../../delivery/render';
import type { Alert } from '../../schemas/alert';
import { getAlert } from '../../store/alerts/alert-lifecycle';
import { getVehicles } from '../../store/directory-store';
import { getRule } from '../../store/rules-store';
import { htmlPageExample } from '../examples';
import { linkPage, linkTokenParamsSchema, PAGE_LANGUAGE, type PageLanguage } from '../link-page';
import { refusedLink } from '../link-refusal';
import { actingUser } from '../link-user';
import { defineRoute, type Reply } from '../route';

/**
 * The mute links of an alert's e-mail to a fleetwatch user: its vehicle for an hour, its rule until tomorrow 08:00
 * (delivery/mute-alert.ts). As the acknowledge link, no session: the signed, expiring token is the proof, GET shows
 * a page with a button and changes nothing (mail scanners open links), the button posts. The user it was sent to is
 * checked when it posts, as the Telegram button checks the presser: still enabled, with write rights, and of the
 * alert's client or one above it; otherwise the page says why and nothing is written.
 */
type Refusal = 'refused' | 'limit';
const PHRASES: Record<PageLanguage, Record<Refusal, string>> = {
  en: {
    refused: 'Your fleetwatch user can no longer mute alerts of this client (disabled, read-only, or moved).',
    limit: 'The client already holds as many silences as it may; end or delete one in fleetwatch first.',
  },
  ru: {
    refused: 'Ваш пользователь fleetwatch больше не может заглушать уведомления этого клиента (отключён, только чтение или перенесён).',
    limit: 'У клиента уже столько тишин, сколько можно; сначала завершите или удалите одну в fleetwatch.',
  },
  az: {
    refused: 'fleetwatch istifadəçiniz artıq bu müştərinin bildirişlərini susdura bilməz (söndürülüb, yalnız oxuma və ya köçürülüb).',
    limit: 'Müştərinin artıq icazə verilən qədər susması var; əvvəlcə fleetwatch-da birini bitirin və ya silin.',
  },
};

const page = (lang: PageLanguage, title: string, text: string, button?: string) => linkPage({ lang, title, text, button });

/** The link and its alert, or the page saying why there is none. */
async function opened(token: string, now: number): Promise<{ link: AlertMuteLink; alert: Alert } | { refused: Reply }> {
  const check = await verifyAlertMuteLink(token, now);
  if (!check.ok) return { refused: refusedLink(check.reason, check.reason === 'expired' ? check.language : undefined) };
  const alert = await getAlert(check.link.alertId);
  return alert ? { link: check.link, alert } : { refused: refusedLink('missing', check.link.language) };
}

const actionLabel = (link: AlertMuteLink) =>
  renderLifecycleText(link.action === 'vehicle' ? 'muteVehicleAction' : 'muteRuleAction', link.language, {}).subject;

export const alertMuteLinkRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/v3/alerts/mute/{token}',
    operationId: 'showMuteLink',
    tag: 'notifications',
    summary: "Page that asks to mute an alert's vehicle or rule (the links of the alert's e-mail)",
    description:
      "Shows the alert and a button that posts to the same address; opening the page mutes nothing. The link mutes the alert's vehicle " +
      "for an hour or its rule until 08:00 the next day (the rule's timezone), as a maintenance silence of the alert's client. An altered " +
      'link, or one of an alert that is gone, answers 404, an expired one 410, each with a page saying so.',
    auth: false,
    writes: false,
    params: linkTokenParamsSchema,
    response: z.string(),
    responseType: 'text/html',
    examples: { response: htmlPageExample },
    errors: [404, 410],
    async handle({ params, now }) {
      const found = await opened(params.token, now);
      if ('refused' in found) return found.refused;
      const { link, alert } = found;
      const [rule, [vehicle]] = await Promise.all([getRule(alert.ruleId), getVehicles([alert.vehicleId])]);
      const text = renderLifecycleText('mutePage', link.language, {
        action: actionLabel(link),
        rule: alert.ruleName,
        vehicle: vehicle?.name ?? String(alert.vehicleId),
        time: formatEventTime(alert.event.time, rule?.timezone ?? 0, link.language),
      });
      return { body: null, html: page(PAGE_LANGUAGE[link.language], text.subject, text.body, actionLabel(link)) };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/alerts/mute/{token}',
    operationId: 'muteByLink',
    tag: 'notifications',
    summary: "Mute an alert's vehicle or rule from the link of its e-mail",
    description:
      'Makes the maintenance silence the signed link names, as the user it was sent to; no session needed, no body. That user must still be ' +
      "enabled, with write rights, and of the alert's client or one above it (403 otherwise). Posting again changes nothing and says who " +
      'muted and until when. An altered link answers 404, an expired one 410; a client at its limit of silences, 409.',
    auth: false,
    writes: false,
    params: linkTokenParamsSchema,
    response: z.string(),
    responseType: 'text/html',
    examples: { response: htmlPageExample },
    errors: [403, 404, 409, 410],
    async handle({ params, now }) {
      const found = await opened(params.token, now);
      if ('refused' in found) return found.refused;
      const { link, alert } = found;
      const lang = PAGE_LANGUAGE[link.language];
      const user = await actingUser(link.userId, alert);
      if (!user) return { status: 403, body: null, html: page(lang, 'fleetwatch', PHRASES[lang].refused) };
      const result = await muteFromAlert(alert, link.action, user.login, 'email', now);
      if (result.outcome === 'limit') return { status: 409, body: null, html: page(lang, 'fleetwatch', PHRASES[lang].limit) };
      return { body: null, html: page(lang, 'fleetwatch', mutedText(result, link.language)) };
    },
  }),
];
