import * as z from 'zod';
import { alertStateSchema, lifecycleEntrySchema } from '../schemas/alert';
import { strictBody } from './strict-body';

/** Bodies and answers of the alert lifecycle endpoints (acknowledge, close). */
export const alertIdParamsSchema = z.object({ alertId: z.string().regex(/^[0-9a-f]{32}$/, 'not an alert id') });

const commentSchema = z.string().trim().min(1).max(500).optional().describe('a note kept with the change, e.g. what is being done');

export const lifecycleBodySchema = strictBody({ comment: commentSchema });

export const bulkAcknowledgeBodySchema = strictBody({
  ids: z
    .array(alertIdParamsSchema.shape.alertId)
    .min(1)
    .max(100)
    .refine((ids) => new Set(ids).size === ids.length, 'ids must not repeat'),
  comment: commentSchema,
});

/**
 * What became of one alert: `acknowledged` / `closed` now, `alreadyAcknowledged` / `alreadyClosed` before (by
 * whom is in `acknowledgement` / `lifecycle`), `refused` when its state does not allow it (cleared or closed),
 * `notFound` when there is no such stored alert in your scope.
 */
export const lifecycleOutcomeSchema = z.object({
  alertId: z.string(),
  outcome: z.enum(['acknowledged', 'alreadyAcknowledged', 'closed', 'alreadyClosed', 'refused', 'notFound']),
  state: alertStateSchema.optional(),
  acknowledgement: lifecycleEntrySchema.optional(),
});

export type LifecycleOutcome = z.infer<typeof lifecycleOutcomeSchema>;

export const bulkAcknowledgeResponseSchema = z.object({ results: z.array(lifecycleOutcomeSchema) });
