import * as z from 'zod';
import { confirmSideEmail } from '../../store/email-consent/confirmation';
import { unsubscribeLink } from '../../store/email-consent/unsubscribe';
import { notFound } from '../errors';
import { releaseHeldAlerts } from '../side-address-confirmation';
import { resubscribeByLink, unsubscribeByLink } from '../side-address-unsubscribe';
import { defineRoute, type Reply } from '../route';
import { linkPage, linkTokenParamsSchema, wantsPage } from '../link-page';
import { successSchema } from '../schemas';
import { htmlPageExample, successExample } from '../examples';

/**
 * Links in e-mails: confirming a side address, unsubscribing from a rule's alerts (RFC 8058), and subscribing
 * again with the same token. They need no session: the token in the path is the proof. Opening a link (GET) only shows a page with a button; the change
 * is a POST, so that mail scanners that fetch every link change nothing. Mail clients post the one-click
 * unsubscribe themselves and read `"Success"`; a person's browser, whose button posted, gets a page.
 */
const TITLE = 'fleetwatch alerts';

const stoppedPage = (token: string) =>
  linkPage({
    title: TITLE,
    text: 'These fleetwatch alerts are stopped for this address. Only you can start them again, here.',
    button: 'Subscribe again',
    action: `../resubscribe/${token}`,
  });

/** What a POST answers: "Success" to a program, the page to a browser; an unknown token is 404 either way. */
function answer(headers: Record<string, string | undefined>, html: string | null, what: string): Reply {
  if (html === null) {
    if (!wantsPage(headers)) throw notFound(what);
    return {
      status: 404,
      body: null,
      html: linkPage({ title: TITLE, text: 'This link is not valid: it was changed, or fleetwatch did not make it.' }),
    };
  }
  return wantsPage(headers) ? { body: null, html } : { body: 'Success' };
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
    params: linkTokenParamsSchema,
    response: z.string(),
    responseType: 'text/html',
    examples: { response: htmlPageExample },
    async handle() {
      return {
        body: null,
        html: linkPage({
          title: TITLE,
          text: 'Confirm that this address should receive fleetwatch vehicle alerts.',
          button: 'Confirm',
        }),
      };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/email/confirm/{token}',
    operationId: 'confirmEmailAddress',
    tag: 'email',
    summary: 'Confirm alerts to an address',
    description:
      'Alerts held for the address while it had not confirmed (up to 24 hours) are delivered now. A browser (a request that accepts text/html) ' +
      'gets a page saying so.',
    auth: false,
    writes: false,
    params: linkTokenParamsSchema,
    response: successSchema,
    pageForBrowsers: true,
    examples: { response: successExample },
    errors: [404],
    async handle({ params, headers, now }) {
      const confirmed = await confirmSideEmail(params.token, now);
      if (confirmed) await releaseHeldAlerts(confirmed.clientId, confirmed.address);
      const page = linkPage({ title: TITLE, text: 'This address is confirmed: the fleetwatch alerts it was added to reach it now.' });
      return answer(headers, confirmed ? page : null, 'confirmation link');
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/api/v3/email/unsubscribe/{token}',
    operationId: 'showUnsubscribePage',
    tag: 'email',
    summary: "Page that asks to stop a rule's alerts to an address (the List-Unsubscribe link)",
    description:
      'Shows a page with an Unsubscribe button that posts to the same link. Opening the link changes nothing, so mail scanners that fetch links cannot unsubscribe an address. ' +
      'Once the address has unsubscribed, the page offers to subscribe again instead: a button that posts the same token to ' +
      '/api/v3/email/resubscribe/{token}.',
    auth: false,
    writes: false,
    params: linkTokenParamsSchema,
    response: z.string(),
    responseType: 'text/html',
    examples: { response: htmlPageExample },
    async handle({ params }) {
      if ((await unsubscribeLink(params.token))?.optedOut) return { body: null, html: stoppedPage(params.token) };
      return { body: null, html: linkPage({ title: TITLE, text: 'Stop these fleetwatch alerts to this address?', button: 'Unsubscribe' }) };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/email/unsubscribe/{token}',
    operationId: 'unsubscribeEmailAddress',
    tag: 'email',
    summary: "Stop a rule's alerts to an address (RFC 8058 one-click unsubscribe)",
    description:
      'Mail clients post `List-Unsubscribe=One-Click` here; the body is not needed. A side address (not the e-mail of one of the ' +
      "rule's users) is then stopped for every rule of the rule's client, and no confirmation link goes to it any more, until it " +
      "subscribes again with the same token. Posting again changes nothing. A browser (the page's button, a request that accepts text/html) " +
      'gets the page of a stopped address, with its button to subscribe again.',
    auth: false,
    writes: false,
    params: linkTokenParamsSchema,
    response: successSchema,
    pageForBrowsers: true,
    examples: { response: successExample },
    errors: [404],
    async handle({ params, headers, now }) {
      const done = await unsubscribeByLink(params.token, now);
      return answer(headers, done ? stoppedPage(params.token) : null, 'unsubscribe link');
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/email/resubscribe/{token}',
    operationId: 'resubscribeEmailAddress',
    tag: 'email',
    summary: "Subscribe an address to a rule's alerts again (the button of the unsubscribe page)",
    description:
      "Takes the token of the address's unsubscribe link: the rule's alerts reach the address again, and for a side address " +
      "every rule of the client; this counts as the side address's confirmation. Nothing else brings back an address that unsubscribed. " +
      'A browser gets a page saying so, with the button to unsubscribe again.',
    auth: false,
    writes: false,
    params: linkTokenParamsSchema,
    response: successSchema,
    pageForBrowsers: true,
    examples: { response: successExample },
    errors: [404],
    async handle({ params, headers, now }) {
      const done = await resubscribeByLink(params.token, now);
      const page = linkPage({
        title: TITLE,
        text: 'These fleetwatch alerts reach this address again.',
        button: 'Unsubscribe',
        action: `../unsubscribe/${params.token}`,
      });
      return answer(headers, done ? page : null, 'unsubscribe link');
    },
  }),
];
