import * as z from 'zod';
import { ianaZoneSchema } from './notification';
import { severitySchema, type Severity } from './severity';

/**
 * A user's delivery preferences, stored on the user's record (`preferences`), so the deliver function reads
 * them with the user it already reads to find the targets:
 * - `quietHours`: a daily window of local time in an IANA zone during which only critical alerts reach the user
 *   at once; the rest wait for one digest when it ends (shared/delivery/quiet-hours.ts). `from` after `to`
 *   crosses midnight (22:00–07:00).
 * - `minSeverity`: per channel, the least severity that channel brings the user; below it the channel is skipped.
 * They apply to users named as recipients, never to side addresses, a rule's own Telegram chats or webhooks.
 */
export const PREFERENCE_CHANNELS = ['email', 'telegram', 'push'] as const;
export type PreferenceChannel = (typeof PREFERENCE_CHANNELS)[number];

export const clockTimeSchema = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'must be a time of day as HH:MM, 00:00 to 23:59' });

const quietHoursShape = {
  from: clockTimeSchema.describe('local time the quiet hours begin, HH:MM'),
  to: clockTimeSchema.describe('local time they end, HH:MM; before from, they cross midnight'),
  timezone: ianaZoneSchema.describe('the IANA time zone the times are read in, e.g. Europe/Berlin'),
};
const differentEnds = (hours: { from: string; to: string }) => hours.from !== hours.to;
const sameEnds = { path: ['to'], message: 'to must differ from from' };

export const quietHoursSchema = z.object(quietHoursShape).refine(differentEnds, sameEnds);
export type QuietHours = z.infer<typeof quietHoursSchema>;

const minSeverityShape = Object.fromEntries(
  PREFERENCE_CHANNELS.map((channel) => [channel, severitySchema.default('info').describe(`the least severity ${channel} brings; default info`)]),
) as Record<PreferenceChannel, z.ZodDefault<typeof severitySchema>>;

export const DEFAULT_MIN_SEVERITY: Record<PreferenceChannel, Severity> = { email: 'info', telegram: 'info', push: 'info' };

export const userPreferencesSchema = z.object({
  quietHours: quietHoursSchema.nullable().default(null),
  minSeverity: z.object(minSeverityShape).default(DEFAULT_MIN_SEVERITY),
});
export type UserPreferences = z.infer<typeof userPreferencesSchema>;

export const DEFAULT_PREFERENCES: UserPreferences = { quietHours: null, minSeverity: DEFAULT_MIN_SEVERITY };

/** Preferences as a request body sends them: every level closed, so an unknown field is a 400 naming it. */
const unknownField = (known: string) => (issue: { code?: string }) =>
  issue.code === 'unrecognized_keys' ? `unknown field (known: ${known})` : undefined;
export const strictQuietHoursSchema = z
  .strictObject(quietHoursShape, { error: unknownField(Object.keys(quietHoursShape).join(', ')) })
  .refine(differentEnds, sameEnds);
export const strictMinSeveritySchema = z.strictObject(minSeverityShape, { error: unknownField(PREFERENCE_CHANNELS.join(', ')) });
