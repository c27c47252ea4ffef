import * as z from 'zod';
import { guidSchema, ianaZoneSchema, utcTimeSchema } from '../schemas/notification';
import { MAX_PARTICIPANTS, handoffSchema, overrideIdSchema, rotaIdSchema, WEEKDAYS } from '../schemas/rota';
import { clockTimeSchema } from '../schemas/preferences';
import { EXAMPLE_CLIENT_ID, EXAMPLE_ROTA_ID, EXAMPLE_USER_ID } from './example-ids';
import { strictBody } from './strict-body';

/** Bodies and answers of `/api/v3/rotas`: on-call rotas and their overrides. */

const DAY_MS = 86_400_000;
/** The longest override, and how far ahead one may start. */
export const MAX_OVERRIDE_DAYS = 90;

const strictHandoffSchema = strictBody({
  every: handoffSchema.shape.every,
  at: clockTimeSchema.describe("the local time of the handoff in the rota's timezone, HH:MM"),
  weekday: z.enum(WEEKDAYS).optional().describe('every: week only: the day of the handoff (Mon … Sun); default Mon'),
}).superRefine((handoff, ctx) => {
  if (handoff.every === 'day' && handoff.weekday !== undefined)
    ctx.addIssue({ code: 'custom', path: ['weekday'], message: 'weekday applies to every: week only' });
});

const rotaFields = {
  name: z.string().trim().min(1).max(200).describe('what people call it, e.g. "Night dispatch"'),
  timezone: ianaZoneSchema.describe('the IANA time zone the handoff time is read in, e.g. Europe/Berlin'),
  participants: z
    .array(guidSchema)
    .min(1)
    .max(MAX_PARTICIPANTS)
    .describe(`users of the rota's client or of a client above it, in turn order, at most ${MAX_PARTICIPANTS}; one may appear more than once`),
  handoff: strictHandoffSchema.describe(
    'when the next participant takes over: every day, or every week on weekday, at a local time. A handoff inside the hour skipped when ' +
      'clocks go forward happens an hour later on the wall clock; one inside the repeated hour happens the first time',
  ),
};

export const rotaCreateBodySchema = strictBody({
  parentId: guidSchema.describe('the client the rota belongs to: yours or one below it'),
  ...rotaFields,
});
export type RotaCreateBody = z.infer<typeof rotaCreateBodySchema>;

export const rotaReplaceBodySchema = strictBody(rotaFields);
export type RotaReplaceBody = z.infer<typeof rotaReplaceBodySchema>;

export const rotaFindBodySchema = strictBody({
  parentId: guidSchema.describe('a client of your scope: its rotas and those of the clients below it'),
});

export const rotaParamsSchema = z.object({ id: rotaIdSchema });
export const rotaOverrideParamsSchema = z.object({ id: rotaIdSchema, overrideId: overrideIdSchema });
export const onCallQuerySchema = strictBody({
  at: utcTimeSchema.optional().describe('the instant to answer for (ISO 8601 with offset); default now'),
});

export const rotaOverrideBodySchema = strictBody({
  userId: guidSchema.describe("who is on call instead: a user of the rota's client or of a client above it"),
  from: utcTimeSchema.describe('when the override begins'),
  to: utcTimeSchema.describe(`when it ends: after from, at most ${MAX_OVERRIDE_DAYS} days later`),
}).superRefine((body, ctx) => {
  const from = Date.parse(body.from);
  const to = Date.parse(body.to);
  if (!(to > from)) ctx.addIssue({ code: 'custom', path: ['to'], message: 'to must be after from' });
  else if (to - from > MAX_OVERRIDE_DAYS * DAY_MS)
    ctx.addIssue({ code: 'custom', path: ['to'], message: `to must be at most ${MAX_OVERRIDE_DAYS} days after from` });
});

export const rotaCreatedSchema = z.object({ id: rotaIdSchema });
export const overrideCreatedSchema = z.object({ id: overrideIdSchema });

export const rotaSchema = z.object({
  id: rotaIdSchema,
  parentId: guidSchema,
  name: z.string(),
  timezone: z.string(),
  participants: z.array(guidSchema),
  handoff: handoffSchema,
  overrides: z
    .array(
      z.object({
        id: overrideIdSchema,
        userId: guidSchema,
        from: z.iso.datetime(),
        to: z.iso.datetime(),
        createdAt: z.iso.datetime(),
        createdBy: z.string().describe('the login that made it'),
      }),
    )
    .describe('overrides not yet over, in the order they were made; where two cover the same time, the later one wins'),
  version: z.number().int().describe('goes up with every change'),
  createdAt: z.iso.datetime(),
  createdBy: z.string(),
  updatedAt: z.iso.datetime(),
});
export type RotaRecord = z.infer<typeof rotaSchema>;

export const onCallSchema = z.object({
  userId: guidSchema.describe('who is on call at the instant'),
  login: z.string().nullable().describe("the user's login (null when the user no longer exists)"),
  from: z.iso.datetime().describe("when this person's turn began: a handoff, or an override's start or end"),
  until: z.iso.datetime().describe('when it ends: the next handoff, or an override starting or ending'),
  overrideId: overrideIdSchema.optional().describe('set when an override puts this person on call'),
  at: z.iso.datetime().describe('the instant answered for'),
});

const EXAMPLE_OTHER_USER_ID = 'c5d4e3f2-a1b0-4c9d-8e7f-6a5b4c3d2e1f';
const EXAMPLE_OVERRIDE_ID = 'T3ZlcnJpZGUtY292ZXItMQ';

export const rotaCreateExample = {
  parentId: EXAMPLE_CLIENT_ID,
  name: 'Night dispatch',
  timezone: 'Europe/Berlin',
  participants: [EXAMPLE_USER_ID, EXAMPLE_OTHER_USER_ID],
  handoff: { every: 'week', at: '08:00', weekday: 'Mon' },
};
export const rotaCreatedExample = { id: EXAMPLE_ROTA_ID };
export const rotaReplaceExample = {
  name: 'Night dispatch',
  timezone: 'Europe/Berlin',
  participants: [EXAMPLE_OTHER_USER_ID, EXAMPLE_USER_ID],
  handoff: { every: 'day', at: '20:00' },
};
export const rotaFindExample = { parentId: EXAMPLE_CLIENT_ID };
export const rotaRecordExample = {
  id: EXAMPLE_ROTA_ID,
  parentId: EXAMPLE_CLIENT_ID,
  name: 'Night dispatch',
  timezone: 'Europe/Berlin',
  participants: [EXAMPLE_USER_ID, EXAMPLE_OTHER_USER_ID],
  handoff: { every: 'week', at: '08:00', weekday: 'Mon' },
  overrides: [
    {
      id: EXAMPLE_OVERRIDE_ID,
      userId: EXAMPLE_OTHER_USER_ID,
      from: '2026-12-24T18:00:00.000Z',
      to: '2026-12-26T07:00:00.000Z',
      createdAt: '2026-11-26T09:00:00.000Z',
      createdBy: 'planner',
    },
  ],
  version: 2,
  createdAt: '2026-11-25T08:00:00.000Z',
  createdBy: 'planner',
  updatedAt: '2026-11-26T09:00:00.000Z',
};
export const rotaOverrideExample = { userId: EXAMPLE_OTHER_USER_ID, from: '2026-12-24T18:00:00Z', to: '2026-12-26T07:00:00Z' };
export const overrideCreatedExample = { id: EXAMPLE_OVERRIDE_ID };
export const onCallExample = {
  userId: EXAMPLE_USER_ID,
  login: 'dispatcher',
  from: '2026-11-23T07:00:00.000Z',
  until: '2026-11-30T07:00:00.000Z',
  at: '2026-11-26T10:00:00.000Z',
};
