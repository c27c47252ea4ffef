import * as z from 'zod';
import { verifyAlertLink, type AlertLink } from '../../auth/alert-link-token';
import type { Alert } from '../../schemas/alert';
import { getAlert } from '../../store/alerts/alert-lifecycle';
import { actOnAlert, alertPageFormSchema, type AlertPageForm } from '../alert-page-actions';
import { alertPage } from '../alert-page-view';
import { alertLinkErrorExamples, alertPageExample, alertPageFormExample } from '../examples';
import { linkTokenParamsSchema } from '../link-page';
import { refusedLink } from '../link-refusal';
import { defineRoute, type Reply } from '../route';

/**
 * The alert's page, behind the link of its e-mail and push notification (`/alerts/acknowledge/{token}`, the
 * address those links always had). It needs no session: the signed token in the path is the proof, for that one
 * alert, for 7 days. Opening it (GET) shows the alert and changes nothing, so mail scanners that fetch every link
 * act on nothing; its buttons post. A POST without a body acknowledges, as the one-click link always did.
 */

/** The link and its alert, or the page saying why there is none. */
async function opened(token: string, now: number): Promise<{ link: AlertLink; alert: Alert } | { refused: Reply }> {
  const check = await verifyAlertLink(token, now);
  if (!check.ok) return { refused: refusedLink(check.reason, check.reason === 'expired' ? check.language : undefined) };
  const alert = await getAlert(check.link.alertId);
  return alert ? { link: check.link, alert } : { refused: refusedLink('missing', check.link.language) };
}

const description =
  "The page shows what happened (text, kind, severity), when (in the rule's time zone and UTC), where (with an OpenStreetMap link), " +
  "the vehicle and its last known position, the rule, the alert's state with each change (who, how, when, comment), who was notified on " +
  'which channel, and its escalation. An altered link answers 404, an expired one (after 7 days) 410, a link to an alert that is gone 404, ' +
  'each with a page saying so.';

export const alertLinkRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/v3/alerts/acknowledge/{token}',
    operationId: 'showAcknowledgeLink',
    tag: 'notifications',
    summary: "The alert's page (the link of its e-mail and push notification)",
    description: `${description} Its forms post to the same address: acknowledge (with an optional comment), close, mute the vehicle for an hour or the rule until 08:00 the next day; opening the page changes nothing.`,
    auth: false,
    writes: false,
    params: linkTokenParamsSchema,
    response: z.string(),
    responseType: 'text/html',
    examples: { response: alertPageExample, errors: alertLinkErrorExamples },
    errors: [404, 410],
    async handle({ params, now }) {
      const found = await opened(params.token, now);
      if ('refused' in found) return found.refused;
      return { body: null, html: await alertPage(found.alert, found.link) };
    },
  }),

  defineRoute<AlertPageForm, z.infer<typeof linkTokenParamsSchema>>({
    method: 'POST',
    path: '/api/v3/alerts/acknowledge/{token}',
    operationId: 'acknowledgeByLink',
    tag: 'notifications',
    summary: "Act on an alert from its page: acknowledge, close or mute (the page's buttons; no body acknowledges)",
    description:
      'Takes the form of the page: `action` (acknowledge when left out, as the one-click link of e-mails and push notifications always did) and an ' +
      'optional `comment`. Anyone holding the link may acknowledge, recorded as the address (or push user) it was sent to; closing and muting ' +
      "need the fleetwatch user the link was sent to, who must still be enabled, with write rights, and of the alert's client or one above it " +
      '(403 otherwise, with a page saying why). Posting again changes nothing and says who did it and when; a state that does not allow the ' +
      'change (a closed alert is not acknowledged), an alert not kept in the history, or a client at its limit of silences answer 409. ' +
      `Answers the alert's page with what happened on top. ${description}`,
    auth: false,
    writes: false,
    params: linkTokenParamsSchema,
    body: alertPageFormSchema,
    requestType: 'application/x-www-form-urlencoded',
    response: z.string(),
    responseType: 'text/html',
    examples: { body: alertPageFormExample, response: alertPageExample, errors: alertLinkErrorExamples },
    errors: [403, 404, 409, 410],
    async handle({ params, body, now }) {
      const found = await opened(params.token, now);
      if ('refused' in found) return found.refused;
      const outcome = await actOnAlert(found.link, found.alert, body, now);
      if (!outcome.alert) return refusedLink('missing', found.link.language);
      return { status: outcome.status, body: null, html: await alertPage(outcome.alert, found.link, outcome.notice) };
    },
  }),
];
