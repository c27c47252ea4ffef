import * as z from 'zod';
import { verifyAlertLink, type AlertLink } from '../../auth/alert-link-token';
import { formatEventTime } from '../../delivery/format-time';
import { renderLifecycleText } from '../../delivery/render';
import type { Alert } from '../../schemas/alert';
import type { Language } from '../../schemas/directory';
import { getStoredAlert, transitionAlert } from '../../store/alert-lifecycle';
import { getVehicles } from '../../store/directory-store';
import { getRule } from '../../store/rules-store';
import { defineRoute } from '../route';
import { linkPage, linkTokenParamsSchema } from '../link-page';
import { htmlPageExample } from '../examples';

/**
 * The one-click acknowledge link of an alert's e-mail and push notification. It needs no session: the signed,
 * expiring token in the path is the proof, and it acknowledges that one alert only. Opening it (GET) shows a
 * page with a button and changes nothing, so mail scanners that fetch every link acknowledge nothing; the
 * button posts. A link that is not one fleetwatch signed, was altered or has expired answers 404.
 */

type PageLanguage = 'en' | 'ru' | 'az';
const PAGE_LANGUAGE: Record<Language, PageLanguage> = { 1: 'ru', 2: 'en', 3: 'az' };

const PHRASES: Record<PageLanguage, { invalid: string; ended: (state: string) => string }> = {
  en: {
    invalid: 'This link is not valid or has expired. Open the alert in fleetwatch to acknowledge it.',
    ended: (state) => `This alert is ${state === 'cleared' ? 'cleared: its episode has ended' : 'closed'}; there is nothing to acknowledge.`,
  },
  ru: {
    invalid: 'Ссылка недействительна или устарела. Откройте уведомление в fleetwatch, чтобы принять его в работу.',
    ended: (state) => `Уведомление ${state === 'cleared' ? 'снято: событие закончилось' : 'закрыто'}; принимать в работу нечего.`,
  },
  az: {
    invalid: 'Bu keçid etibarsızdır və ya vaxtı bitib. Bildirişi qəbul etmək üçün onu fleetwatch-da açın.',
    ended: (state) => `Bu bildiriş ${state === 'cleared' ? 'götürülüb: hadisə bitib' : 'bağlanıb'}; qəbul ediləcək bir şey yoxdur.`,
  },
};

const page = (lang: PageLanguage, title: string, text: string, button?: string) => linkPage({ lang, title, text, button });

const invalidPage = () => ({ status: 404, body: null, html: page('en', 'fleetwatch', PHRASES.en.invalid) });

/** Who the link was sent to, as the lifecycle records it: the address of an e-mail, the login of a push device's user. */
function actor(link: AlertLink): { by: string; via: 'email' | 'push' } {
  const [channel, ...rest] = link.sentTo.split(':');
  return { by: rest.join(':'), via: channel === 'push' ? 'push' : 'email' };
}

function acknowledgedText(alert: Alert, language: Language): string {
  const acknowledgement = alert.acknowledgement ?? alert.lifecycle.find((entry) => entry.state === 'acknowledged');
  if (!acknowledgement) return PHRASES[PAGE_LANGUAGE[language]].ended(alert.state);
  return renderLifecycleText('acknowledged', language, {
    by: acknowledgement.by,
    at: formatEventTime(acknowledgement.at, 0, language),
    comment: acknowledgement.comment ?? '',
  }).subject;
}

export const alertLinkRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/v3/alerts/acknowledge/{token}',
    operationId: 'showAcknowledgeLink',
    tag: 'notifications',
    summary: "Page that asks to acknowledge an alert (the link of the alert's e-mail and push notification)",
    description:
      'Shows the alert and a button that posts to the same address; opening the page acknowledges nothing. An invalid or expired link ' +
      'answers 404 with a page saying so.',
    auth: false,
    writes: false,
    params: linkTokenParamsSchema,
    response: z.string(),
    responseType: 'text/html',
    examples: { response: htmlPageExample },
    errors: [404],
    async handle({ params, now }) {
      const link = await verifyAlertLink(params.token, now);
      const alert = link && (await getStoredAlert(link.alertId));
      if (!link || !alert) return invalidPage();
      const lang = PAGE_LANGUAGE[link.language];
      if (alert.state !== 'open') return { body: null, html: page(lang, 'fleetwatch', acknowledgedText(alert, link.language)) };
      const [rule, [vehicle]] = await Promise.all([getRule(alert.ruleId), getVehicles([alert.vehicleId])]);
      const text = renderLifecycleText('acknowledgePage', link.language, {
        rule: alert.ruleName,
        vehicle: vehicle?.name ?? String(alert.vehicleId),
        time: formatEventTime(alert.event.time, rule?.timezone ?? 0, link.language),
      });
      return { body: null, html: page(lang, text.subject, text.body, renderLifecycleText('acknowledgeAction', link.language, {}).subject) };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/alerts/acknowledge/{token}',
    operationId: 'acknowledgeByLink',
    tag: 'notifications',
    summary: 'Acknowledge an alert from the link of its e-mail or push notification',
    description:
      'Acknowledges the one alert the signed link names, as the address (or user) it was sent to; no session needed, no body. ' +
      'Posting again changes nothing and shows who acknowledged it. An invalid or expired link answers 404.',
    auth: false,
    writes: false,
    params: linkTokenParamsSchema,
    response: z.string(),
    responseType: 'text/html',
    examples: { response: htmlPageExample },
    errors: [404],
    async handle({ params, now }) {
      const link = await verifyAlertLink(params.token, now);
      if (!link) return invalidPage();
      const result = await transitionAlert(link.alertId, { to: 'acknowledged', ...actor(link), now });
      if (result.outcome === 'missing') return invalidPage();
      return { body: null, html: page(PAGE_LANGUAGE[link.language], 'fleetwatch', acknowledgedText(result.alert, link.language)) };
    },
  }),
];
