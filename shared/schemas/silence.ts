import * as z from 'zod';
import { guidSchema, timezoneSchema } from './notification';

/**
 * Maintenance silences (the API's `silences`): windows in which a client's matching events raise no alert. Not
 * to be confused with a vehicle falling silent (connection loss), which the vehicle-state table's `bySilence`
 * index and the silence deadline are about.
 *
 * Stored in one partition per client of the directory table, with the client's count of them (shared/store/keys.ts).
 */

const GUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

/** A silence's id, `<clientId>.<22 base64url characters>`: the client is read from it, with no index. */
export const silenceIdSchema = z
  .string()
  .regex(new RegExp(`^${GUID}\\.[A-Za-z0-9_-]{22}$`), 'a silence id')
  .describe('the silence: `<parentId>.<22 base64url characters>`');

export const silenceIdClient = (silenceId: string): string => silenceId.slice(0, silenceId.indexOf('.'));

/** How a silence was made: over the API, or from an alert's Telegram button or e-mail link. */
export const SILENCE_SOURCES = ['api', 'telegram', 'email'] as const;

/** The longest window a silence may span, from `from` to `to`. */
export const MAX_SILENCE_DAYS = 90;

/** A silence as stored. `schedule` is the canonical text of a rule's weekly schedule, read in `timezone`. */
export const storedSilenceSchema = z.object({
  id: silenceIdSchema,
  parentId: guidSchema,
  vehicleIds: z.array(z.number().int()).default([]),
  ruleIds: z.array(z.number().int()).default([]),
  geozoneIds: z.array(z.number().int()).default([]),
  from: z.iso.datetime({ offset: true }),
  to: z.iso.datetime({ offset: true }),
  reason: z.string(),
  schedule: z.string().nullable().default(null),
  timezone: timezoneSchema.default(3),
  createdAt: z.iso.datetime({ offset: true }),
  createdBy: z.string(),
  via: z.enum(SILENCE_SOURCES).default('api'),
  endedAt: z.iso.datetime({ offset: true }).nullable().default(null),
  endedBy: z.string().nullable().default(null),
});
export type StoredSilence = z.infer<typeof storedSilenceSchema>;
