import * as z from 'zod';
import { guidSchema, notificationBodySchema, notificationSchema, ruleTypeSchema, type NotificationBody } from '../schemas/notification';
import { ruleProblems } from '../rules/rule-validation';
import { settingsReferenceMarkdown } from './settings-markdown';
import { strictBody } from './strict-body';

/**
 * Request and response shapes of the API that the shared record schemas do not already describe: those of the rules
 * and the ones every route shares. Each other area keeps its own beside its routes (auth-schemas.ts,
 * geozone-schemas.ts, …), so that a cold start builds only the schemas of the routes it loads. Every request body
 * is a `strictBody`: a field it does not define is answered 400 naming it. Where the API answers a record that may
 * be edited and sent back (rules, geozones), the fields only the API sets are taken too, and ignored.
 */

export const successSchema = z.literal('Success');

export const parentIdBodySchema = strictBody({ parentId: guidSchema });

export const idParamsSchema = z.object({ id: z.coerce.number().int().min(1).max(2_147_483_647) });

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

export const errorResponseSchema = z.object({
  error: z.string(),
  message: z.string(),
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  correlationId: z.string().optional(),
});
