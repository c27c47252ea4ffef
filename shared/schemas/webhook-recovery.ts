import * as z from 'zod';
import { guidSchema } from './notification';
import { webhookIdSchema } from './webhook';

/**
 * A webhook recovery: after an outage of its receiver, every alert whose delivery to one endpoint failed since a
 * given time is sent again, by the deliver function, a step at a time (shared/delivery/recover-webhook.ts).
 */

/** running until the last step; done when every step ran; failed when it could not go on (`lastError` says why). */
export const RECOVERY_STATES = ['running', 'done', 'failed'] as const;
export type RecoveryState = (typeof RECOVERY_STATES)[number];

/**
 * Body of a message on the deliveries queue: step `step` of a recovery job (0 first). Each step queues the
 * next until the job is done.
 */
export const webhookRecoverRequestSchema = z.object({
  webhookRecover: z.object({ jobId: z.uuid(), clientId: guidSchema, endpointId: webhookIdSchema, step: z.number().int().min(0) }).strict(),
});
export type WebhookRecoverRequest = z.infer<typeof webhookRecoverRequestSchema>;
export type RecoveryStep = WebhookRecoverRequest['webhookRecover'];

/** What the job found and did: what the API answers. */
export const recoveryProgressSchema = z.object({
  jobId: z.uuid().describe('the job; read its progress with GET /api/v3/webhooks/{id}/recover/{jobId}'),
  webhookId: webhookIdSchema.describe('the endpoint the alerts are sent to again'),
  state: z
    .enum(RECOVERY_STATES)
    .describe('running until every failed delivery found was dealt with, then done; failed when the job could not go on (lastError says why)'),
  since: z.iso.datetime({ offset: true }).describe('deliveries that failed at or after this time, and before startedAt, are recovered'),
  found: z
    .number()
    .int()
    .min(0)
    .describe('alerts found so far whose delivery to the endpoint failed and had not gone out since: sent + failed + skipped'),
  sent: z.number().int().min(0).describe('of them, sent again and answered 2xx: recorded as sent on the alert'),
  failed: z.number().int().min(0).describe('of them, sent again and still failing: left as they were'),
  skipped: z.number().int().min(0).describe('of them, not sent: a retry of the delivery is still scheduled, or under way'),
  startedAt: z.iso.datetime({ offset: true }).describe('when the job was accepted'),
  finishedAt: z.iso.datetime({ offset: true }).nullable().describe('when it ended; null while running'),
  lastError: z.string().nullable().describe('the last failure in words: of an alert sent again, or why the job failed; null when none'),
});
export type RecoveryProgress = z.infer<typeof recoveryProgressSchema>;

/**
 * A job as stored: its progress, whose it is, and where it stands. Attempts logged in `[since, startedAt)` are
 * looked at, so the job's own attempts (logged after it started) never come back to it; `cursor` is the last
 * log entry a finished step read (null before the first), `step` the step due next, and `stepMessageId` the
 * queue message whose step moved it there.
 */
export const recoveryJobSchema = recoveryProgressSchema.extend({
  clientId: guidSchema,
  step: z.number().int().min(0),
  cursor: z.string().nullable(),
  stepMessageId: z.string().nullable(),
  /** When a step last moved the job on (or it started): a running job that stops moving is taken as lost. */
  updatedAt: z.iso.datetime({ offset: true }),
});
export type RecoveryJob = z.infer<typeof recoveryJobSchema>;
