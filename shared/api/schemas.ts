import * as z from 'zod';
import { guidSchema, notificationBodySchema, notificationSchema, ruleTypeSchema, type NotificationBody } from '../schemas/notification';
import { ruleProblems } from '../rules/rule-validation';
import { settingsReferenceMarkdown } from './settings-markdown';
import { SEVERITIES, alertSchema, alertStateSchema, severitySchema } from '../schemas/alert';
import { geozoneBodySchema, geozoneSchema, refuseMismatchedGeometry } from '../schemas/geozone';
import { unsupportedGeometryIssues } from '../geo/supported-geometry';
import { pushDeviceSchema, telegramChatSchema } from '../schemas/directory';
import { strictBody } from './strict-body';
import { testTargetOutcomeSchema } from '../schemas/test-send';

/**
 * Request and response shapes of the API that the shared record schemas do not already describe. Every request
 * body is a `strictBody`: a field it does not define is answered 400 naming it. Where the API answers a record
 * that may be edited and sent back (rules, geozones), the fields only the API sets are taken too, and ignored.
 */

export const loginBodySchema = strictBody({
  login: z.string().trim().min(1).max(100),
  password: z.string().min(1).max(1_000),
});

export const loginResponseSchema = z.object({
  AuthId: z.string().describe('session token; send it as header X-Auth'),
  User: z.string().describe('the login'),
});

export const sessionCheckResponseSchema = z
  .object({
    expiresAt: z.iso.datetime().describe('when the session ends unless a request prolongs it'),
    userId: guidSchema.describe('id of the logged-in user'),
    parentId: guidSchema.describe('id of its client (the root of what it may see and change)'),
  })
  .meta({
    example: {
      expiresAt: '2026-03-01T08:30:00.000Z',
      userId: 'a3b2c1d0-e9f8-4a7b-8c6d-5e4f3a2b1c0d',
      parentId: '6f1c1d2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f',
    },
  });

export const successSchema = z.literal('Success');

export const parentIdBodySchema = strictBody({ parentId: guidSchema });

const int32 = z.coerce.number().int().min(1).max(2_147_483_647);
export const idParamsSchema = z.object({ id: int32 });

/**
 * A rule is written only if it can work: its settings under its type's schema, and the geozones its type needs.
 * An address rule without coordinates passes here: the handler has them found by the geocoder, or answers 400.
 */
function refuseUnworkableRule(body: Pick<NotificationBody, 'type' | 'settings' | 'geoids'>, ctx: z.core.$RefinementCtx): void {
  // Runs after field issues that do not abort the object (an unsupported type): judge only a readable rule.
  const readable =
    typeof body.settings === 'object' && body.settings !== null && Array.isArray(body.geoids) && ruleTypeSchema.safeParse(body.type).success;
  if (!readable) return;
  for (const problem of ruleProblems(body))
    if (!problem.geocodable) ctx.addIssue({ code: 'custom', path: problem.path.split('.'), message: problem.message });
}

/** `settings` as the API documents it: with the reference of every rule type's keys, defaults and meaning. */
const documentedSettings = {
  settings: notificationBodySchema.shape.settings.describe(
    `${notificationBodySchema.shape.settings.description ?? ''}\n\n${settingsReferenceMarkdown()}`,
  ),
};

export const ruleProblemSchema = z.object({ path: z.string(), message: z.string() });

/** Fields a rule's answer carries that only the API sets: taken back on a write, and ignored. */
const answeredRuleFields = {
  parentName: z.string().optional().describe("read-only: the client's name, answered by the API whatever is sent; no default"),
  expiresAt: z.string().optional().describe('read-only: answered by the API, ignored when sent; no default'),
  problems: z.array(ruleProblemSchema).optional().describe('read-only: answered by the API, ignored when sent; no default'),
};

export const notificationCreateBodySchema = strictBody({
  ...notificationBodySchema.shape,
  ...documentedSettings,
  id: z.number().int().optional().describe('read-only: ignored on create, the new rule gets a new id; no default'),
  version: z.number().int().optional().describe('read-only: ignored on create, a new rule is version 1; no default'),
  ...answeredRuleFields,
}).superRefine(refuseUnworkableRule);

export const notificationRecordSchema = notificationSchema.extend({
  settings: z
    .record(z.string(), z.string())
    .describe('settings of the rule type, every value as a string (a number or boolean sent is answered as its string)'),
  version: z.number().int().min(1).describe('read-only; send it back (or as If-Match) to guard against concurrent edits'),
  expiresAt: z.iso.datetime().describe('read-only; end of the current validity period (UTC)'),
  problems: z
    .array(ruleProblemSchema)
    .optional()
    .describe(
      'read-only; present only when the rule cannot fully work (a geozone deleted since, settings no longer valid; on GET and in the answer of a create also a recipient a switched-on channel does not reach yet, such as a user without a linked Telegram chat for toTelegram or without a registered phone for toMobile; on GET also a side address that waits for its confirmation, or unsubscribed)',
    ),
});

export const notificationReplaceBodySchema = strictBody({
  ...notificationSchema.shape,
  ...documentedSettings,
  version: z.number().int().min(1).optional().describe('no default (no check): when given, the write fails with 409 unless it is the stored version'),
  ...answeredRuleFields,
}).superRefine(refuseUnworkableRule);

export const notificationSummarySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  active: z.boolean(),
  type: ruleTypeSchema,
  userId: guidSchema.nullable(),
  parentId: guidSchema,
  parentName: z.string(),
  problems: z.array(ruleProblemSchema).optional().describe('present only when the rule cannot fully work'),
});

export const MAX_PROLONGATION_IDS = 50;

export const prolongationBodySchema = strictBody({
  ids: z
    .array(z.number().int().min(1))
    .min(1)
    .max(MAX_PROLONGATION_IDS)
    .refine((ids) => new Set(ids).size === ids.length, { message: 'ids must not repeat' }),
  days: z.number().int().min(1).max(90).optional().describe("days to add; default each rule's validity"),
});

export const prolongationResponseSchema = z.array(
  z.object({
    id: z.number().int(),
    expiresAt: z.iso.datetime().describe('the new end of validity (UTC)'),
    clamped: z.boolean().describe('true when the 90-day cap cut the requested days short'),
  }),
);

export const historyBodySchema = strictBody({
  parentId: guidSchema.optional(),
  ruleId: z.number().int().min(1).optional(),
  vehicleId: z.number().int().min(1).max(2_147_483_647).optional(),
  from: z.iso.datetime({ offset: true }),
  to: z.iso.datetime({ offset: true }),
  limit: z.number().int().min(1).max(1_000).default(100),
  state: alertStateSchema.optional().describe('only alerts in this state (open, acknowledged, cleared, closed)'),
  severity: z
    .union([severitySchema, z.array(severitySchema).min(1).max(SEVERITIES.length)])
    .optional()
    .describe(
      "only alerts of this severity, or of any of these: info, warning, critical (an alert stored before severities counts as its type's default)",
    ),
  nextToken: z.string().min(1).max(2_000).optional(),
}).refine((query) => Date.parse(query.from) <= Date.parse(query.to), { path: ['to'], message: 'to must not be before from' });

/** An alert as the history answers it: always with its severity. */
const historyAlertSchema = alertSchema.extend({
  severity: severitySchema.describe(
    "info, warning or critical, decided when the alert was raised from its rule's settings.severity or the type's default; an alert stored before severities answers its type's default",
  ),
});

export const historyResponseSchema = z.object({ items: z.array(historyAlertSchema), nextToken: z.string().nullable() });

export const geozoneSummarySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  type: z.enum(['polygon', 'circle']),
  fname: z.null(),
  parentId: guidSchema,
  radius: z.number().nullable(),
  beginCalc: z.null(),
  endCalc: z.null(),
  description: z.string(),
  area: z.number().describe('square metres'),
  perimetr: z.number().describe('metres'),
  createDate: z.iso.datetime({ offset: true }),
});

export const geozoneRecordSchema = geozoneSchema;

/**
 * A geozone body the zone index can answer for (see `unsupportedGeometryIssues`). It takes the geozone as the API
 * answers it: `id` and `version` (used by a replace), and the computed fields, ignored.
 */
export const geozoneWriteBodySchema = strictBody({
  ...geozoneBodySchema.shape,
  id: z.number().int().optional().describe('read-only on create (a new zone gets a new id); required to replace'),
  version: z.number().int().min(1).optional().describe('ignored on create; on replace, the version read: a different stored version answers 409'),
  area: z.number().optional().describe('read-only: computed from the geometry, ignored when sent'),
  perimetr: z.number().optional().describe('read-only: computed from the geometry, ignored when sent'),
  createDate: z.string().optional().describe('read-only: set by the API, ignored when sent'),
})
  .superRefine(refuseMismatchedGeometry)
  .superRefine((zone, ctx) => {
    for (const issue of unsupportedGeometryIssues(zone)) ctx.addIssue({ code: 'custom', ...issue });
  });

export const telegramLinkResponseSchema = z.object({
  code: z.string(),
  link: z.string().nullable().describe('https://t.me/<bot>?start=<code>; null when no bot username is configured'),
  expiresAt: z.iso.datetime(),
});

export const telegramChatListSchema = z.array(telegramChatSchema).describe('the Telegram chats linked to your user, oldest first');

export const telegramChatParamsSchema = z.object({
  id: z
    .string()
    .regex(/^-?\d{1,20}$/, 'must be a Telegram chat id')
    .describe('the chat id, as GET /api/v3/telegram/chats lists it'),
});

export const pushDeviceBodySchema = strictBody({
  platform: z.enum(['fcm', 'apns']),
  token: z.string().min(1).max(4_096),
});

export const pushDeviceResponseSchema = pushDeviceSchema;

export const errorResponseSchema = z.object({
  error: z.string(),
  message: z.string(),
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  correlationId: z.string().optional(),
});

/** Path of one test alert of a rule. */
export const testParamsSchema = z.object({ id: int32, testId: z.uuid().describe('the id `testNotification` answered') });

/** A rule's test alert: pending until the deliver function has sent it, then one outcome per target. */
export const testResultSchema = z.object({
  testId: z.uuid(),
  ruleId: z.number().int(),
  status: z.enum(['pending', 'done']).describe('pending: not sent yet, ask again in a second; done: `targets` holds every outcome'),
  finishedAt: z.string().optional().describe('when the test was sent (ISO 8601, UTC); only when done'),
  targets: z
    .array(testTargetOutcomeSchema)
    .describe(
      'one entry per target the rule names: sent; notLinked (a Telegram chat no user of the owner’s scope linked, or that sent /stop); ' +
        'notConfirmed (a side address that has not confirmed: it gets no test, and no confirmation link either); unsubscribed; suppressed; ' +
        'failed (with the reason)',
    ),
});
