import * as z from 'zod';
import { parseSchedule } from '../rules/schedule';
import { guidSchema, timezoneSchema, utcTimeSchema } from '../schemas/notification';
import { MAX_SILENCE_DAYS, SILENCE_SOURCES, silenceIdSchema } from '../schemas/silence';
import { EXAMPLE_CLIENT_ID, EXAMPLE_SILENCE_ID } from './example-ids';
import { strictBody } from './strict-body';

/** Bodies and answers of `/api/v3/silences`: maintenance windows in which a client's matching events raise no alert. */

const DAY_MS = 86_400_000;
const ids = (what: string, max: number) =>
  z
    .array(z.number().int().min(1).max(2_147_483_647))
    .max(max)
    .default([])
    .describe(`${what}, at most ${max}; any of them matches (empty: this kind of matcher is left out)`);

export const silenceCreateBodySchema = strictBody({
  parentId: guidSchema.describe('the client the silence belongs to: yours or one below it'),
  vehicleIds: ids('vehicles registered to the client or a client below it', 1_000),
  ruleIds: ids('notification rules of the client or of a client below it', 100),
  geozoneIds: ids('geozones of your scope: an event inside one of them (or of a vehicle last seen there) matches', 100),
  from: utcTimeSchema.describe('when the silence begins (ISO 8601 with offset)'),
  to: utcTimeSchema.describe(`when it ends, after from and at most ${MAX_SILENCE_DAYS} days after it; at to it no longer holds`),
  reason: z.string().trim().min(1).max(500).describe('why, for the people reading it later (e.g. "in the workshop")'),
  schedule: z
    .string()
    .max(500)
    .superRefine((text, ctx) => {
      const parsed = parseSchedule(text);
      if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.error });
    })
    .optional()
    .describe(
      "a recurring window in the form of a rule's settings.schedule (e.g. `Sun 08:00-18:00`), read in timezone: the silence holds only while it is open, within [from, to)",
    ),
  timezone: timezoneSchema.default(3).describe("hours from UTC or an IANA name, for schedule (as a rule's timezone); default 3"),
}).superRefine((body, ctx) => {
  if (body.vehicleIds.length + body.ruleIds.length + body.geozoneIds.length === 0)
    ctx.addIssue({ code: 'custom', path: ['vehicleIds'], message: 'name at least one vehicle, rule or geozone (vehicleIds, ruleIds, geozoneIds)' });
  const from = Date.parse(body.from);
  const to = Date.parse(body.to);
  if (!(to > from)) ctx.addIssue({ code: 'custom', path: ['to'], message: 'to must be after from' });
  else if (to - from > MAX_SILENCE_DAYS * DAY_MS)
    ctx.addIssue({ code: 'custom', path: ['to'], message: `to must be at most ${MAX_SILENCE_DAYS} days after from` });
});
export type SilenceCreateBody = z.infer<typeof silenceCreateBodySchema>;

export const silenceFindBodySchema = strictBody({
  parentId: guidSchema.describe('a client of your scope: its silences and those of the clients below it'),
  activeAt: utcTimeSchema.optional().describe('only the silences that hold at this instant (their window, if any, open)'),
});

export const silenceParamsSchema = z.object({ id: silenceIdSchema });

export const silenceCreatedSchema = z.object({ id: silenceIdSchema });

export const silenceSchema = z.object({
  id: silenceIdSchema,
  parentId: guidSchema,
  vehicleIds: z.array(z.number().int()),
  ruleIds: z.array(z.number().int()),
  geozoneIds: z.array(z.number().int()),
  from: z.iso.datetime(),
  to: z.iso.datetime(),
  reason: z.string(),
  schedule: z.string().nullable().describe('the recurring window, in its canonical form; null: the whole of [from, to)'),
  timezone: timezoneSchema,
  createdAt: z.iso.datetime(),
  createdBy: z.string().describe("who made it: the login of the user (over the API, or through an alert's button or link)"),
  via: z.enum(SILENCE_SOURCES).describe("how: the API, or an alert's Telegram button or e-mail link"),
  endedAt: z.iso.datetime().nullable().describe('when it was ended early (POST …/end); null otherwise'),
  endedBy: z.string().nullable(),
  active: z.boolean().describe('whether it holds now (within [from, to), not ended, its window open)'),
});
export type SilenceRecord = z.infer<typeof silenceSchema>;

export const silenceCreateExample = {
  parentId: EXAMPLE_CLIENT_ID,
  vehicleIds: [40117],
  from: '2026-11-25T08:00:00.000Z',
  to: '2026-11-28T18:00:00.000Z',
  reason: 'Truck 17 in the workshop: brakes',
};

export const silenceScheduledExample = {
  parentId: EXAMPLE_CLIENT_ID,
  ruleIds: [17],
  from: '2026-11-25T00:00:00.000Z',
  to: '2027-02-20T00:00:00.000Z',
  reason: 'Sunday yard maintenance',
  schedule: 'Sun 08:00-18:00',
  timezone: 'Europe/Berlin',
};

export const silenceCreatedExample = { id: EXAMPLE_SILENCE_ID };

export const silenceFindExample = { parentId: EXAMPLE_CLIENT_ID, activeAt: '2026-11-26T10:00:00.000Z' };

export const silenceRecordExample: SilenceRecord = {
  id: EXAMPLE_SILENCE_ID,
  parentId: EXAMPLE_CLIENT_ID,
  vehicleIds: [40117],
  ruleIds: [],
  geozoneIds: [],
  from: '2026-11-25T08:00:00.000Z',
  to: '2026-11-28T18:00:00.000Z',
  reason: 'Truck 17 in the workshop: brakes',
  schedule: null,
  timezone: 3,
  createdAt: '2026-11-25T07:58:12.000Z',
  createdBy: 'dispatcher',
  via: 'api',
  endedAt: null,
  endedBy: null,
  active: true,
};

export const silenceEndedExample: SilenceRecord = {
  ...silenceRecordExample,
  endedAt: '2026-11-27T11:20:00.000Z',
  endedBy: 'dispatcher',
  active: false,
};
