import * as z from 'zod';
import { guidSchema } from '../schemas/notification';
import { webhookIdSchema } from '../schemas/webhook';
import { strictBody } from './strict-body';

/** Request and response shapes of `/api/v3/webhooks`. */

export const webhookBodySchema = strictBody({
  url: z
    .string()
    .trim()
    .min(1)
    .max(2_000)
    .describe(
      'required: the https URL each alert of your rules with toClient is POSTed to. No user name or password in it, not localhost ' +
        'nor a private, loopback or link-local address; the host is resolved and checked again at every delivery.',
    ),
  parentId: guidSchema.optional().describe("client whose rules' alerts the endpoint receives: yours or one below yours; default your own client"),
  description: z.string().trim().max(200).default('').describe("free text; default ''"),
});

export const webhookEndpointSchema = z.object({
  id: webhookIdSchema.describe(
    'the endpoint: <parentId>.<22 base64url characters>; endpoints registered by earlier versions keep a bare GUID. Opaque: use it as it is',
  ),
  parentId: guidSchema.describe('client the endpoint belongs to; it receives the alerts of rules of exactly this client'),
  url: z.string(),
  description: z.string(),
  enabled: z.boolean().describe('false once the receiver answered 410 Gone: nothing more is sent to it; delete it and register again'),
  createdAt: z.iso.datetime({ offset: true }),
  disabledAt: z.iso.datetime({ offset: true }).nullable().describe('when it was disabled; null while enabled'),
  disabledReason: z.string().nullable().describe('why it was disabled; null while enabled'),
});

export const createdWebhookSchema = webhookEndpointSchema.extend({
  secret: z
    .string()
    .describe(
      'signing secret (whsec_…), shown only in this answer: keep it. Each delivery carries X-Fleetwatch-Signature: t=<unix seconds>,' +
        'v1=<hex HMAC-SHA256 of "<t>.<body>" under this secret>.',
    ),
});

export const webhookListSchema = z.array(webhookEndpointSchema);

export const webhookParamsSchema = z.object({ id: webhookIdSchema });
