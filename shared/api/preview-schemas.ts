import * as z from 'zod';
import { EVENT_KINDS } from '../rules/event-kinds';
import { SUPPRESSION_REASONS } from '../schemas/suppression';
import { terminalMessageSchema } from '../schemas/terminal-message';
import { utcTimeSchema } from '../schemas/notification';
import { PREFERENCE_CHANNELS } from '../schemas/preferences';
import { preferenceReasonSchema } from '../schemas/alert';
import { severitySchema } from '../schemas/severity';
import { notificationCreateBodySchema } from './schemas';
import { strictBody } from './strict-body';

/** Messages one preview may replay. */
export const PREVIEW_MESSAGE_LIMIT = 10_000;

export const previewBodySchema = strictBody({
  rule: notificationCreateBodySchema.describe(
    'the rule as PUT /api/v3/notifications takes it, checked the same way (issues are named rule.<field>); id is optional and ignored. ' +
      'It is judged as though active and in force throughout (active, activationMode, activationTime and validity do not apply)',
  ),
  messages: z
    .array(terminalMessageSchema)
    .max(PREVIEW_MESSAGE_LIMIT)
    .describe(
      `terminal messages as on the input queue, in any order, at most ${PREVIEW_MESSAGE_LIMIT}; each of a vehicle in the rule's vehicleIds. ` +
        'A message arrives at its serverTime (else its deviceTime); messages of one vehicle are evaluated in arrival order, so one older ' +
        'than what its vehicle already sent is late, as in evaluation',
    ),
  until: utcTimeSchema
    .optional()
    .describe('the clock for events raised by time passing (connection loss), not before any arrival; default: the newest arrival'),
  evaluatedAt: utcTimeSchema
    .optional()
    .describe(
      "the time every message is aged at, against the rule's maxEventAge (a message older than that raises `tooOld` instead of an alert): " +
        'to see what a track would raise were it sent at that time; default: each message at its own arrival, as evaluation ages it. ' +
        "Recipients' quiet hours are judged at the same time",
    ),
});

export const previewAlertSchema = z.object({
  vehicleId: z.number().int(),
  time: z.iso.datetime().describe('the event, UTC'),
  type: z.number().int().describe("the rule's type"),
  event: z.enum(EVENT_KINDS).describe('the event kind (docs/rules.md lists the kinds of each type)'),
  text: z
    .string()
    .describe("the alert's e-mail text: the rule's own wording or the kind's template, in the rule owner's language and the rule's timezone"),
  severity: severitySchema.describe("the alert's severity: the rule's settings.severity, else its type's default"),
  preferences: z
    .array(
      z.object({
        userId: z.string().describe('a recipient user of the rule'),
        login: z.string(),
        channel: z.enum(PREFERENCE_CHANNELS),
        reason: preferenceReasonSchema.describe(
          "quietHours: inside the user's quiet hours the e-mail or Telegram message would wait for the digest sent when they end " +
            '(until), and a push notification would be skipped; minSeverity: the alert is below the least severity the user takes on the channel',
        ),
        until: z.iso.datetime().optional().describe('quietHours only: when the quiet hours end and the digest goes out, UTC'),
      }),
    )
    .describe(
      "what the recipients' own preferences (PUT /api/v3/users/{id}/preferences) would do to the alert, on each channel the rule uses, " +
        'judged when the alert is raised (its arrival, or evaluatedAt); a recipient and channel not listed get the alert at once',
    ),
});

export const previewSuppressionSchema = z.object({
  vehicleId: z.number().int(),
  time: z.iso.datetime().describe("the event, or the late message's deviceTime, UTC"),
  reason: z
    .enum(SUPPRESSION_REASONS)
    .describe(
      'staleMessage: a late message the rule does not evaluate; outsideSchedule: an event outside settings.schedule; ' +
        'outsideZones / insideZones: the zone condition (settings.zones, zoneMode) held the event back; cooldown / maxPerDay: the noise budget held it; ' +
        'belowMinDuration: an episode ended before its minimum duration (time: the message that ended it); ' +
        'tooOld: the message that raised the event was older than settings.maxEventAge when evaluated (see age); ' +
        'silenced: a maintenance silence of the client held the event back (silenceId names it)',
    ),
  age: z.number().int().min(0).optional().describe("tooOld only: the message's age when evaluated (its arrival, or evaluatedAt), whole seconds"),
  silenceId: z.string().optional().describe('the maintenance silence that held the event back (reason silenced)'),
});

export const previewResponseSchema = z.object({
  alerts: z.array(previewAlertSchema).describe('what the rule would raise, in time order'),
  suppressed: z.array(previewSuppressionSchema).describe('what it would not raise, and why, in time order'),
});

export type PreviewBody = z.infer<typeof previewBodySchema>;
export type PreviewResponse = z.infer<typeof previewResponseSchema>;
export type PreviewAlert = z.infer<typeof previewAlertSchema>;
