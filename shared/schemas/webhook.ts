import * as z from 'zod';
import { guidSchema } from './notification';
import { severitySchema } from './alert';
import { circuitHealthSchema, parseHealth, type CircuitHealth } from './circuit-health';

/**
 * Webhook endpoints of a client, in one partition per client of the directory table, with the set of the
 * endpoints' URL hashes (`urls`): its size is the client's count of endpoints, and no URL is in it twice
 * (shared/store/keys.ts).
 */

const GUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

/**
 * An endpoint's id: `<clientId>.<128 random bits, base64url>`, so that the client an endpoint belongs to is
 * read from its id, with no index. Endpoints registered before that carry a bare GUID, and their client is
 * found through the directory's `gsi1` index.
 */
export const webhookIdSchema = z.string().regex(new RegExp(`^${GUID}(\\.[A-Za-z0-9_-]{22})?$`), 'a webhook endpoint id');

/** The client named in an endpoint's id, or null for an id without one (an endpoint registered before ids named it). */
export function webhookIdClient(endpointId: string): string | null {
  const dot = endpointId.indexOf('.');
  return dot < 0 ? null : endpointId.slice(0, dot);
}

/**
 * How deliveries are signed: `standard` (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`), or `fleetwatch-v1` (`X-Fleetwatch-Signature`, endpoints registered before that).
 */
export const SIGNATURE_SCHEMES = ['standard', 'fleetwatch-v1'] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];

/**
 * An endpoint as stored. `secret` signs each delivery (HMAC-SHA256), so it must stay recoverable, unlike a
 * password: it is kept in the item (the table is encrypted at rest), only the API (which writes it) and the
 * deliver function (which signs with it) can read it, it is answered once on creation and never again, and it
 * never reaches a log line (the logger is only ever given endpoint ids).
 */
export const storedWebhookSchema = z.object({
  id: webhookIdSchema,
  parentId: guidSchema,
  url: z.string().min(1),
  description: z.string().default(''),
  enabled: z.boolean(),
  createdAt: z.iso.datetime({ offset: true }),
  disabledAt: z.iso.datetime({ offset: true }).nullable().default(null),
  disabledReason: z.string().nullable().default(null),
  secret: z.string().min(16),
  /** The secret before the last rotation, still signing until `previousSecretExpiresAt`. */
  previousSecret: z.string().min(16).nullable().default(null),
  previousSecretExpiresAt: z.iso.datetime({ offset: true }).nullable().default(null),
  /** An endpoint stored before Standard Webhooks has no scheme: it keeps `X-Fleetwatch-Signature` until switched. */
  signatureScheme: z.enum(SIGNATURE_SCHEMES).default('fleetwatch-v1'),
  /** Event kinds sent to the endpoint; empty sends every kind. */
  events: z.array(z.string()).default([]),
  /** Rule types sent to the endpoint; empty sends every type. */
  ruleTypes: z.array(z.number().int()).default([]),
  /**
   * How it has been answering, for its circuit breaker (`shared/schemas/circuit-health.ts`): kept on the item
   * itself, since deliver reads the client's endpoints for every alert anyway. Absent until its first delivery;
   * a map that does not parse reads as never, rather than hiding the endpoint.
   */
  health: z.preprocess(parseHealth, circuitHealthSchema),
});
export type StoredWebhook = z.infer<typeof storedWebhookSchema>;

/** An endpoint's health as the API shows it: the breaker's bookkeeping of probes stays inside. */
export type WebhookHealth = Omit<CircuitHealth, 'lastProbeAt' | 'probeBy'>;

/** An endpoint as the API shows it: everything but the secrets. */
export type WebhookEndpoint = Omit<StoredWebhook, 'secret' | 'previousSecret' | 'health'> & { health: WebhookHealth };

/**
 * A notice to the users of an endpoint's client that it was disabled after failing for days, while it is being
 * sent (shared/store/keys.ts: `webhookNoticeKeys`). Written in the same transaction as the disable, so it
 * cannot be lost; the sweep hands it to deliver when `dueAt` (epoch ms) has come, and deliver deletes it once
 * every recipient has it. `sent` holds each recipient reached (`email:<address>`, `telegram:<chat id>`), so a
 * second hand-out sends nobody twice; `sendingUntil` is the lease of the one sender at work.
 */
export const webhookNoticeIdSchema = z
  .object({ clientId: guidSchema, endpointId: webhookIdSchema, disabledAt: z.iso.datetime({ offset: true }) })
  .strict();
export type WebhookNoticeId = z.infer<typeof webhookNoticeIdSchema>;

/** Body of a message on the deliveries queue: tell the users of a client its endpoint was disabled (from the sweep). */
export const webhookNoticeRequestSchema = z.object({ webhookDisabled: webhookNoticeIdSchema });
export type WebhookNoticeRequest = z.infer<typeof webhookNoticeRequestSchema>;

/**
 * What a webhook receives for each alert (POST, `Content-Type: application/json`). Field names are stable:
 * new fields may be added, none renamed or removed.
 */
export const webhookAlertPayloadSchema = z.object({
  type: z.literal('alert').describe('what the delivery carries; always "alert" for now'),
  alertId: z.string().describe('the alert, also sent as the Idempotency-Key header: the same alert is never delivered under another id'),
  createdAt: z.string().describe('when the alert was raised (ISO 8601, UTC)'),
  parentId: z.string().describe('client the rule belongs to'),
  severity: severitySchema.describe(
    "info, warning or critical: decided when the alert was raised, from the rule's settings.severity or the type's default (an alert raised before severities: the type's default)",
  ),
  rule: z
    .object({
      id: z.number().int().describe('notification rule'),
      type: z.number().int().describe('rule type (0 geozone, 2 speeding, …)'),
      name: z.string(),
    })
    .describe('the rule that raised the alert'),
  vehicle: z.object({ id: z.number().int(), name: z.string() }).describe('the vehicle the alert is about'),
  event: z
    .object({
      kind: z.string().describe('what happened: speeding, zoneEntry, zoneExit, drain, fuelling, panic, connectionLost, idle, …'),
      time: z.string().describe('device time of the message that raised it (or the sweep time for connection loss), ISO 8601 UTC'),
      latitude: z.number().nullable(),
      longitude: z.number().nullable(),
      speed: z.number().nullable().describe('km/h'),
      values: z
        .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
        .describe('values of the event: limit, zone name, volume, …'),
    })
    .describe('the event, as the history shows it'),
  afterSilence: z
    .literal(true)
    .optional()
    .describe(
      'present (true) when the episode began while a maintenance silence held it back and still lasted when the silence ended: raised once then',
    ),
});
export type WebhookAlertPayload = z.infer<typeof webhookAlertPayloadSchema>;
