import * as z from 'zod';
import { SEVERITIES, alertSchema, alertStateSchema, severitySchema } from '../schemas/alert';
import { guidSchema } from '../schemas/notification';
import { strictBody } from './strict-body';

/** The alert history's query and answer. */
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
