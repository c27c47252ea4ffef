import * as z from 'zod';
import { escapeHtml } from '../../channels/escape-html';
import { confirmSideEmail, unsubscribe } from '../../store/email-consent';
import { notFound } from '../errors';
import { releaseHeldAlerts } from '../side-address-confirmation';
import { defineRoute } from '../route';
import { successSchema } from '../schemas';
import { htmlPageExample, successExample } from '../examples';

/**
 * Links in e-mails: confirming a side address, and unsubscribing from a rule's alerts (RFC 8058). They need no
 * session: the token in the path is the proof. Opening a link (GET) only shows a page with a button; the change
 * is a POST, so that mail scanners that fetch every link change nothing. Mail clients post the one-click
 * unsubscribe themselves.
 */
const tokenParamsSchema = z.object({
  token: z
    .string()
    .min(10)
    .max(1_000)
    .regex(/^[A-Za-z0-9_.-]+$/, 'not a link token'),
});

function page(title: string, text: string, button?: string): string {
  const form = button ? `<form method="post"><button type="submit">${escapeHtml(button)}</button></form>` : '';
  return (
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
    `<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>${form}</body></html>`
  );
}

export const emailRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/v3/email/confirm/{token}',
    operationId: 'showEmailConfirmationPage',
    tag: 'email',
    summary: 'Page that asks to confirm alerts to an address (the link of the confirmation e-mail)',
    description:
      'Shows a page with a Confirm button that posts to the same link. Opening the link changes nothing, so mail scanners that fetch links cannot confirm an address.',
    auth: false,
    writes: false,
    params: tokenParamsSchema,
    response: z.string(),
    responseType: 'text/html',
    examples: { response: htmlPageExample },
    async handle() {
      return { body: null, html: page('fleetwatch alerts', 'Confirm that this address should receive fleetwatch vehicle alerts.', 'Confirm') };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/email/confirm/{token}',
    operationId: 'confirmEmailAddress',
    tag: 'email',
    summary: 'Confirm alerts to an address',
    description: 'Alerts held for the address while it had not confirmed (up to 24 hours) are delivered now.',
    auth: false,
    writes: false,
    params: tokenParamsSchema,
    response: successSchema,
    examples: { response: successExample },
    errors: [404],
    async handle({ params, now }) {
      const confirmed = await confirmSideEmail(params.token, now);
      if (!confirmed) throw notFound('confirmation link');
      await releaseHeldAlerts(confirmed.clientId, confirmed.address);
      return { body: 'Success' };
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/api/v3/email/unsubscribe/{token}',
    operationId: 'showUnsubscribePage',
    tag: 'email',
    summary: "Page that asks to stop a rule's alerts to an address (the List-Unsubscribe link)",
    description:
      'Shows a page with an Unsubscribe button that posts to the same link. Opening the link changes nothing, so mail scanners that fetch links cannot unsubscribe an address.',
    auth: false,
    writes: false,
    params: tokenParamsSchema,
    response: z.string(),
    responseType: 'text/html',
    examples: { response: htmlPageExample },
    async handle() {
      return { body: null, html: page('fleetwatch alerts', 'Stop these fleetwatch alerts to this address?', 'Unsubscribe') };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/email/unsubscribe/{token}',
    operationId: 'unsubscribeEmailAddress',
    tag: 'email',
    summary: "Stop a rule's alerts to an address (RFC 8058 one-click unsubscribe)",
    description: 'Mail clients post `List-Unsubscribe=One-Click` here; the body is not needed.',
    auth: false,
    writes: false,
    params: tokenParamsSchema,
    response: successSchema,
    examples: { response: successExample },
    errors: [404],
    async handle({ params, now }) {
      if (!(await unsubscribe(params.token, now))) throw notFound('unsubscribe link');
      return { body: 'Success' };
    },
  }),
];
