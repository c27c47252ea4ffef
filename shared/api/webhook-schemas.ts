import * as z from 'zod';
import { EVENT_KINDS } from '../rules/event-kinds';
import { guidSchema, ruleTypeSchema } from '../schemas/notification';
import { SIGNATURE_SCHEMES, webhookIdSchema } from '../schemas/webhook';
import { DELIVERY_LOG_STATUSES, WEBHOOK_LOG_DAYS } from '../store/webhook-deliveries';
import { strictBody } from './strict-body';
import { DISABLE_WEBHOOK_AFTER_MS, FAILURES_TO_OPEN } from '../delivery/circuit-breaker';

const DISABLE_DAYS = Math.round(DISABLE_WEBHOOK_AFTER_MS / 86_400_000);

/** Request and response shapes of `/api/v3/webhooks`. */

const eventsSchema = z.array(z.enum(EVENT_KINDS)).max(EVENT_KINDS.length);
const ruleTypesSchema = z.array(ruleTypeSchema).max(32);

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
  events: eventsSchema
    .default([])
    .describe('event kinds sent to the endpoint (zoneExit, connectionLost, …); default [] sends every kind. Others are recorded as skipped'),
  ruleTypes: ruleTypesSchema
    .default([])
    .describe('rule types sent to the endpoint (0 geozone, 2 speeding, …); default [] sends every type. Others are recorded as skipped'),
});

const signatureSchemeSchema = z
  .enum(SIGNATURE_SCHEMES)
  .describe(
    'how deliveries are signed: standard (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature), or fleetwatch-v1 ' +
      '(X-Fleetwatch-Signature), kept by endpoints registered before Standard Webhooks until switched',
  );

export const webhookUpdateSchema = strictBody({
  description: z.string().trim().max(200).optional().describe('free text; unchanged when left out'),
  signatureScheme: signatureSchemeSchema.optional().describe('standard or fleetwatch-v1; unchanged when left out'),
  events: eventsSchema.optional().describe('event kinds sent to the endpoint, [] for all; unchanged when left out'),
  ruleTypes: ruleTypesSchema.optional().describe('rule types sent to the endpoint, [] for all; unchanged when left out'),
  enabled: z
    .boolean()
    .optional()
    .describe(
      'true enables a disabled endpoint again (clearing disabledAt and disabledReason) and resets its health, closing its circuit; ' +
        'false stops deliveries to it; unchanged when left out',
    ),
});

export const MAX_OVERLAP_HOURS = 168;

export const rotateSecretBodySchema = strictBody({
  overlapHours: z
    .number()
    .int()
    .min(0)
    .max(MAX_OVERLAP_HOURS)
    .default(24)
    .describe(`hours the previous secret keeps signing next to the new one (0–${MAX_OVERLAP_HOURS}); default 24`),
});

const at = (meaning: string) => z.iso.datetime({ offset: true }).nullable().describe(meaning);

export const webhookHealthSchema = z
  .object({
    lastSuccessAt: at('the last delivery it took (2xx), as recorded at most once an hour while all goes well; null when never'),
    lastFailureAt: at('the last delivery that failed for a passing reason (5xx, 408, 429, no answer); null when never'),
    consecutiveFailures: z
      .number()
      .int()
      .min(0)
      .describe(
        `passing failures since the last success; at ${FAILURES_TO_OPEN} its circuit opens. Refusals (another 4xx) neither count nor reset it`,
      ),
    lastError: z.string().nullable().describe('the last passing failure, in words; null when never'),
    openSince: at(
      `when its circuit opened: its deliveries wait instead of being sent (heldBy on the alert), spending none of their attempts, one ` +
        `probe a minute tests it, and the first success closes it, after which the waiting deliveries go out oldest first; null while ` +
        `closed. Open for ${DISABLE_DAYS} days without a success, the endpoint is disabled and your users are told`,
    ),
  })
  .describe('how the endpoint has been answering deliveries; all null (and 0) until its first delivery, and again once enabled through PUT');

export const webhookEndpointSchema = z.object({
  id: webhookIdSchema.describe(
    'the endpoint: <parentId>.<22 base64url characters>; endpoints registered by earlier versions keep a bare GUID. Opaque: use it as it is',
  ),
  parentId: guidSchema.describe('client the endpoint belongs to; it receives the alerts of rules of exactly this client'),
  url: z.string(),
  description: z.string(),
  enabled: z
    .boolean()
    .describe(
      `false once the receiver answered 410 Gone, its circuit stayed open for ${DISABLE_DAYS} days, or it was disabled through PUT: ` +
        'nothing is sent to it until PUT sets enabled: true',
    ),
  createdAt: z.iso.datetime({ offset: true }),
  disabledAt: z.iso.datetime({ offset: true }).nullable().describe('when it was disabled; null while enabled'),
  disabledReason: z.string().nullable().describe('why it was disabled; null while enabled'),
  signatureScheme: signatureSchemeSchema,
  events: z.array(z.string()).describe('event kinds sent to it; [] for every kind'),
  ruleTypes: z.array(z.number().int()).describe('rule types sent to it; [] for every type'),
  previousSecretExpiresAt: z.iso
    .datetime({ offset: true })
    .nullable()
    .describe('until when the secret before the last rotation still signs next to the current one; null when never rotated'),
  health: webhookHealthSchema,
});

export const createdWebhookSchema = webhookEndpointSchema.extend({
  secret: z
    .string()
    .describe(
      'signing secret (whsec_ and standard base64), shown only in this answer: keep it. Each delivery is signed with it as Standard ' +
        'Webhooks specifies (webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">).',
    ),
});

export const webhookListSchema = z.array(webhookEndpointSchema);

export const webhookParamsSchema = z.object({ id: webhookIdSchema });

export const webhookPingSchema = z.object({
  status: z.number().int().nullable().describe("the receiver's HTTP status; null when it did not answer (timeout, connection or TLS failure)"),
  latencyMs: z.number().int().min(0).describe('milliseconds from sending to the answer'),
  error: z.string().optional().describe('why the ping did not succeed; absent on a 2xx'),
});

export const webhookDeliveriesBodySchema = strictBody({
  status: z.enum(DELIVERY_LOG_STATUSES).optional().describe('only succeeded (2xx) or only failed attempts; default both'),
  nextToken: z.string().min(1).max(2_000).optional().describe('from the previous page, with the same status, to read on'),
});

export const webhookDeliveriesSchema = z.object({
  items: z
    .array(
      z.object({
        alertId: z.string().describe('the alert delivered'),
        event: z.string().describe('its event kind'),
        at: z.iso.datetime({ offset: true }).describe('when the attempt was made'),
        status: z.enum(DELIVERY_LOG_STATUSES),
        httpStatus: z.number().int().nullable().describe("the receiver's HTTP status; null when it did not answer"),
        latencyMs: z.number().int().min(0),
        error: z.string().nullable().describe('why the attempt failed; null when it succeeded'),
      }),
    )
    .describe('attempts, newest first'),
  nextToken: z.string().nullable().describe('pass it to read the next page; null on the last'),
});

/** Alerts one redelivery may send: at most 20, so all of them answer inside the API's time even at 5 s each. */
export const MAX_REDELIVERIES = 20;

export const redeliverBodySchema = strictBody({
  alertId: z.string().min(1).max(100).optional().describe('the one alert to send again; or give from and to'),
  from: z.iso.datetime({ offset: true }).optional().describe('with to: send again the alerts with event times in [from, to]'),
  to: z.iso
    .datetime({ offset: true })
    .optional()
    .describe(`with from; at most ${MAX_REDELIVERIES} alerts sent to the endpoint may fall in the range`),
});

export const redeliveriesSchema = z.object({
  items: z
    .array(
      z.object({
        alertId: z.string(),
        status: z.enum(DELIVERY_LOG_STATUSES),
        httpStatus: z.number().int().nullable().describe("the receiver's HTTP status; null when it did not answer"),
        latencyMs: z.number().int().min(0),
        error: z.string().nullable().describe('why the redelivery failed; null when it succeeded'),
      }),
    )
    .describe('one per alert sent again, oldest first'),
});

export const recoverBodySchema = strictBody({
  since: z.iso
    .datetime({ offset: true })
    .describe(
      'required: every alert whose delivery to the endpoint failed at or after this time is sent again. Not in the future, and at ' +
        `most ${WEBHOOK_LOG_DAYS} days ago (the delivery log keeps attempts that long)`,
    ),
});

export const recoveryParamsSchema = z.object({ id: webhookIdSchema, jobId: z.uuid().describe('the jobId recoverWebhook answered') });
