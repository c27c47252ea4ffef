import * as z from 'zod';

const instant = () => z.iso.datetime({ offset: true }).nullable().default(null);

/**
 * How one destination of deliveries has been answering, as its circuit breaker keeps it: a webhook endpoint (in
 * its own item's `health` map), the Telegram Bot API, SES or SNS in one region (each in an item of its own,
 * `circuitKeys.destination` in shared/store/keys.ts). A field never written reads as null (never), the count as 0.
 * shared/delivery/circuit-breaker.ts decides from it; shared/store/circuit-store.ts writes it.
 */
export const circuitHealthSchema = z.object({
  /** Transient failures since the last success; permanent failures neither count nor reset it. */
  consecutiveFailures: z.number().int().min(0).default(0),
  lastSuccessAt: instant(),
  lastFailureAt: instant(),
  /** The last transient failure, in words (never a URL, address or token). */
  lastError: z.string().nullable().default(null),
  /** When the circuit opened; null while it is closed. */
  openSince: instant(),
  /** When the last probe was let through while open. */
  lastProbeAt: instant(),
  /** The held alert the sweep woke to carry this interval's probe, until its delivery takes it. */
  probeBy: z.string().nullable().default(null),
});
export type CircuitHealth = z.infer<typeof circuitHealthSchema>;

export const NO_HEALTH: CircuitHealth = circuitHealthSchema.parse({});

/** A stored `health` map, or nothing (an endpoint that never had a delivery): a part that does not parse reads as never. */
export function parseHealth(stored: unknown): CircuitHealth {
  const parsed = circuitHealthSchema.safeParse(stored ?? {});
  return parsed.success ? parsed.data : NO_HEALTH;
}
