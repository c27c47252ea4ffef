import * as z from 'zod';
import { ruleEventSchema } from './rule-event';

/**
 * What evaluation remembers of one vehicle between messages, stored packed in the vehicle's item
 * (shared/store/vehicle-state-store.ts, vehicle-state-codec.ts) and read whole by evaluate and the sweep.
 */
export const openVisitSchema = z.object({
  /** Device time of the entry, ISO UTC. */
  startDate: z.string(),
  latitude: z.number(),
  longitude: z.number(),
  /** `mileage` at entry, km, when the message had it. */
  mileage: z.number().optional(),
  /** Metres travelled inside so far, along the positions stored with the state (a lower bound). */
  path: z.number(),
  /** The last position counted in `path`. */
  atLatitude: z.number(),
  atLongitude: z.number(),
});

export const visitsStateSchema = z.object({
  /** The hysteresis state of type 0: zones the vehicle is inside. */
  zones: z.record(z.string(), z.object({ inside: z.boolean(), crossingSince: z.number().optional() })),
  /** Open visits by zone id. */
  open: z.record(z.string(), openVisitSchema).default({}),
});

export type OpenVisit = z.infer<typeof openVisitSchema>;
export type VisitsState = z.infer<typeof visitsStateSchema>;

export const vehiclePositionSchema = z.object({
  latitude: z.number(),
  longitude: z.number(),
  speed: z.number(),
  deviceTime: z.iso.datetime({ offset: true }),
});

/** Rule id → the zone condition's zones the vehicle is inside, as the border hysteresis has them. */
export const zoneGatesSchema = z.record(
  z.string(),
  z.object({ zones: z.record(z.string(), z.object({ inside: z.boolean(), crossingSince: z.number().optional() })) }),
);
export type ZoneGates = z.infer<typeof zoneGatesSchema>;

/**
 * An episode a maintenance silence held back (shared/pipeline/silenced-episodes.ts): `s` its start (the evaluator's
 * episode `since`), `c` when it is next judged without a message (epoch ms: the silence's end, or a recheck for an
 * early end), `e` the event it raised, to be raised once, marked `afterSilence`, if it still lasts when the silence ends.
 */
export const silencedEpisodeSchema = z.object({ s: z.number(), c: z.number(), e: ruleEventSchema });

/**
 * Per rule, the noise budget's memory (shared/pipeline/noise-budget.ts), in short keys since every vehicle item
 * carries one per rule with a budget: `t` the last alert's time; `d` the local day and `n` the alerts counted on
 * it (maxPerDay + 1 once the notice went out); `e` the start of the alerted episode and `r` its last alert or
 * reminder (epoch ms); `s` the open run of suppressions [reason, first, last, count, detail?] (detail: of a
 * `tooOld` run the oldest message's age in seconds, of a `silenced` run the silence's id) and `q` the runs logged;
 * `z` an episode a maintenance silence holds back.
 */
export const noiseStateSchema = z.object({
  t: z.number().optional(),
  d: z.number().int().optional(),
  n: z.number().int().optional(),
  e: z.number().optional(),
  r: z.number().optional(),
  s: z.tuple([z.number().int(), z.number(), z.number(), z.number().int(), z.union([z.number().int().min(0), z.string()]).optional()]).optional(),
  q: z.number().int().optional(),
  z: silencedEpisodeSchema.optional(),
});
export type SilencedEpisode = z.infer<typeof silencedEpisodeSchema>;
export type NoiseState = z.infer<typeof noiseStateSchema>;

export const vehicleStateSchema = z.object({
  vehicleId: z.number().int(),
  version: z.number().int().min(1),
  /** Device time of the newest message evaluated as current (stored with each, under the exact clock); older messages are stale. */
  lastDeviceTime: z.iso.datetime({ offset: true }).nullable().default(null),
  /** Server receive time of the newest message, epoch ms. */
  lastSeenAt: z.number().nullable().default(null),
  lastPosition: vehiclePositionSchema.nullable().default(null),
  rules: z.record(z.string(), z.unknown()).default({}),
  /** Per rule with a zone condition, the condition zones the vehicle is inside (shared/pipeline/zone-gate.ts). */
  zoneGates: zoneGatesSchema.optional().catch(undefined),
  /** Per rule with a noise budget, its counters (noiseStateSchema); unreadable: started afresh. */
  noise: z.record(z.string(), noiseStateSchema).optional().catch(undefined),
  /** The visit journal's state; absent while the vehicle is in none of its owners' zones (unreadable: started afresh). */
  visits: visitsStateSchema.optional().catch(undefined),
  /** Written from producer-stamped messages, with heartbeats only: the clock may trail the newest message by one interval. */
  stamped: z.literal(true).optional().catch(undefined),
});

export type VehicleState = z.infer<typeof vehicleStateSchema>;
export type VehiclePosition = z.infer<typeof vehiclePositionSchema>;
