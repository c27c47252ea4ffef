import * as z from 'zod';
import { shortLinkCodeSchema } from '../../auth/short-link-code';
import { alertPagePath } from '../../delivery/links';
import { getShortLink } from '../../store/short-links';
import { shortLinkErrorExamples, shortLinkRedirectExample } from '../examples';
import { redirectTo } from '../link-redirect';
import { refusedLink } from '../link-refusal';
import { defineRoute } from '../route';

/**
 * The short link of an alert SMS (`/alerts/s/{code}`): the alert page's own link does not fit a segment, so the
 * SMS carries a random code that stands for it (shared/delivery/sms-alert-link.ts). No session, as for the page:
 * the code is the capability, and it leads to exactly the page's signed link, which is checked there as always.
 * One GetItem, and nothing else is read or written.
 */
const shortLinkParamsSchema = z.object({ code: shortLinkCodeSchema });

export const shortLinkRoutes = [
  defineRoute<undefined, z.infer<typeof shortLinkParamsSchema>>({
    method: 'GET',
    path: '/api/v3/alerts/s/{code}',
    operationId: 'openShortAlertLink',
    tag: 'notifications',
    summary: "The short link of an alert SMS: a redirect to the alert's page",
    description:
      "Answers 302 with Location the alert's page on the same host (`/api/v3/alerts/acknowledge/{token}`, signed for the number the SMS " +
      'went to and its user), which browsers follow. The code is 10 letters and digits; another answers 400. A code fleetwatch did not give, or one past its ' +
      "7 days (the page's own link expires with it), answers 404 with a page saying so.",
    auth: false,
    writes: false,
    params: shortLinkParamsSchema,
    response: z.string(),
    responseType: 'text/html',
    successStatus: 302,
    examples: { response: shortLinkRedirectExample, errors: shortLinkErrorExamples },
    errors: [404],
    async handle({ params, now }) {
      const token = await getShortLink(params.code, now);
      return token === null ? refusedLink('unknownShort') : redirectTo(alertPagePath(token));
    },
  }),
];
