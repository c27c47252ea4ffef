import * as z from 'zod';

/** Values an evaluator attaches to an event for templates: speed, limit, zone name, fuel volume ... */
export const eventValuesSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));

/** What an evaluator raises. `time` is the device time of the message (or the sweep time) that caused it. */
export const ruleEventSchema = z.object({
  /** Stable name of what happened, e.g. speeding, zoneEntry, zoneExit, drain, connectionLost. */
  kind: z.string().min(1),
  time: z.iso.datetime({ offset: true }),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  speed: z.number().nullable(),
  values: eventValuesSchema.default({}),
});

export type RuleEvent = z.infer<typeof ruleEventSchema>;
