import * as z from 'zod';
import { SUPPRESSION_REASONS } from '../schemas/suppression';
import { strictBody } from './strict-body';
import { EXAMPLE_SILENCE_ID } from './example-ids';

/** Body of POST /api/v3/notifications/suppressed: one rule, one vehicle, a time window. */
export const suppressedBodySchema = strictBody({
  ruleId: z.number().int().min(1),
  vehicleId: z.number().int().min(1).max(2_147_483_647),
  from: z.iso.datetime({ offset: true }),
  to: z.iso.datetime({ offset: true }),
}).refine((query) => Date.parse(query.from) <= Date.parse(query.to), { path: ['to'], message: 'to must not be before from' });

export type SuppressedBody = z.infer<typeof suppressedBodySchema>;

/** Why evaluations of the rule for the vehicle raised no alert: logged runs, and what holds now. */
export const suppressedResponseSchema = z.object({
  runs: z
    .array(
      z.object({
        reason: z.enum(SUPPRESSION_REASONS),
        first: z.iso.datetime().describe('the first suppression of the run'),
        last: z.iso.datetime().describe('the last one so far'),
        count: z.number().int().min(1).describe('suppressions in the run'),
        open: z.boolean().describe('true: the run goes on (no alert and no other reason since)'),
        age: z.number().int().min(0).optional().describe("tooOld runs: the oldest message's age when evaluated, whole seconds"),
        silenceId: z.string().optional().describe('the maintenance silence of a silenced run (`GET /api/v3/silences/{id}`)'),
      }),
    )
    .describe('runs of one reason that overlap [from, to], newest first (at most 16 closed runs and the open one are kept, for 30 days)'),
  now: z
    .array(z.enum(['ruleInactive', 'ruleExpired', 'vehicleNotWatched', 'vehicleNotOwned']))
    .describe(
      "why the rule raises nothing for the vehicle at all right now: it is switched off or out of its period, it does not watch the vehicle, or the vehicle is not its client's",
    ),
});

export type SuppressedResponse = z.infer<typeof suppressedResponseSchema>;

export const suppressedExample: SuppressedBody = {
  ruleId: 7,
  vehicleId: 40117,
  from: '2026-11-24T00:00:00.000Z',
  to: '2026-11-25T00:00:00.000Z',
};

export const suppressedAnswerExample: SuppressedResponse = {
  runs: [
    { reason: 'cooldown', first: '2026-11-24T09:20:11.000Z', last: '2026-11-24T09:31:40.000Z', count: 3, open: true },
    { reason: 'tooOld', first: '2026-11-24T06:12:30.000Z', last: '2026-11-24T06:40:05.000Z', count: 4, open: false, age: 6115 },
    { reason: 'silenced', first: '2026-11-24T10:05:00.000Z', last: '2026-11-24T15:47:10.000Z', count: 9, open: false, silenceId: EXAMPLE_SILENCE_ID },
    { reason: 'outsideSchedule', first: '2026-11-24T05:02:00.000Z', last: '2026-11-24T07:58:30.000Z', count: 14, open: false },
  ],
  now: [],
};
