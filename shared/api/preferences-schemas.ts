import * as z from 'zod';
import {
  DEFAULT_MIN_SEVERITY,
  PREFERENCE_CHANNELS,
  quietHoursSchema,
  strictMinSeveritySchema,
  strictQuietHoursSchema,
  type PreferenceChannel,
  type UserPreferences,
} from '../schemas/preferences';
import { severitySchema } from '../schemas/severity';
import { strictBody } from './strict-body';

/** Bodies and answers of GET and PUT /api/v3/users/{id}/preferences. */

const QUIET_HOURS =
  'a daily window of local time in which only critical alerts reach the user at once; every other alert for the user is held and ' +
  'sent as one digest (one e-mail, one Telegram message per chat) when the window ends, and push notifications below critical are skipped. ' +
  'from after to crosses midnight. null: none';
const MIN_SEVERITY =
  'per channel, the least severity (info < warning < critical) that channel brings the user; below it the channel is skipped for the ' +
  'user and the alert records it (reason minSeverity)';

const example: UserPreferences = {
  quietHours: { from: '22:00', to: '07:00', timezone: 'Europe/Berlin' },
  minSeverity: { email: 'info', telegram: 'warning', push: 'critical' },
};

export const userPreferencesBodySchema = strictBody({
  quietHours: strictQuietHoursSchema.nullable().default(null).describe(`${QUIET_HOURS}; default null`),
  minSeverity: strictMinSeveritySchema.default(DEFAULT_MIN_SEVERITY).describe(`${MIN_SEVERITY}; a channel left out is info`),
}).meta({ example });

export const userPreferencesSchema = z
  .object({
    quietHours: quietHoursSchema.nullable().describe(QUIET_HOURS),
    minSeverity: z
      .object(Object.fromEntries(PREFERENCE_CHANNELS.map((channel) => [channel, severitySchema])) as Record<PreferenceChannel, typeof severitySchema>)
      .describe(MIN_SEVERITY),
  })
  .meta({ example });

export type UserPreferencesBody = z.infer<typeof userPreferencesBodySchema>;
