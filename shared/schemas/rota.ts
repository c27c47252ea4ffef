import * as z from 'zod';
import { clockTimeSchema } from './preferences';
import { guidSchema, ianaZoneSchema } from './notification';
import { RANDOM_ID, rotaIdSchema } from './rota-id';

/**
 * On-call rotas of a client: who of a list of users is on call at a time, handing over every day or every week
 * at a local time of the rota's zone, with overrides (someone covering a shift).
 *
 * Stored in one partition per client of the directory table, each rota with its overrides in its item, so that
 * on-call is answered from one read (shared/store/keys.ts).
 */

// escalation chains name rotas by id: they import rota-id.ts, without the rotas' own schemas
export { rotaIdSchema };

export const rotaIdClient = (rotaId: string): string => rotaId.slice(0, rotaId.indexOf('.'));

export const overrideIdSchema = z.string().regex(new RegExp(`^${RANDOM_ID}$`), 'an override id');

export const HANDOFF_EVERY = ['day', 'week'] as const;
export const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** Participants one rota may list, and overrides it may hold (past ones are dropped as new ones come). */
export const MAX_PARTICIPANTS = 50;
export const MAX_OVERRIDES = 100;

export const handoffSchema = z.object({
  every: z.enum(HANDOFF_EVERY).describe('day: the next participant takes over every day; week: every week'),
  at: clockTimeSchema.describe("the local time of the handoff in the rota's timezone, HH:MM"),
  weekday: z.enum(WEEKDAYS).optional().describe('every week only: the day of the handoff; default Mon'),
});
export type Handoff = z.infer<typeof handoffSchema>;

export const rotaOverrideSchema = z.object({
  id: overrideIdSchema,
  userId: guidSchema,
  from: z.iso.datetime({ offset: true }),
  to: z.iso.datetime({ offset: true }),
  createdAt: z.iso.datetime({ offset: true }),
  createdBy: z.string(),
});
export type RotaOverride = z.infer<typeof rotaOverrideSchema>;

/**
 * A rota as stored. `anchor` is the local date (YYYY-MM-DD, in `timezone`) of the handoff that began the first
 * participant's shift: each handoff since then moves on by one participant. It is set when the rota is created,
 * and again when its participants or handoff change, so that the first participant takes over at the last handoff.
 */
export const storedRotaSchema = z.object({
  id: rotaIdSchema,
  parentId: guidSchema,
  name: z.string(),
  timezone: ianaZoneSchema,
  participants: z.array(guidSchema).min(1).max(MAX_PARTICIPANTS),
  handoff: handoffSchema,
  anchor: z.iso.date(),
  overrides: z.array(rotaOverrideSchema).default([]),
  version: z.number().int().min(1),
  createdAt: z.iso.datetime({ offset: true }),
  createdBy: z.string(),
  updatedAt: z.iso.datetime({ offset: true }),
});
export type StoredRota = z.infer<typeof storedRotaSchema>;
