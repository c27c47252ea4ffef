import * as z from 'zod';

const instant = () => z.iso.datetime({ offset: true }).nullable().default(null);

/**
 * How one destination of deliveries has been answering, as its circuit breaker keeps it: a webhook endpoint (in
 * its own item's `health` map), the Telegram Bot API, SES or SNS in one region (each in an item of its own,
 * `circuitKeys.destination`). A field never written reads as null (never), the count as 0.
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

export const FAILING_WEBHOOKS = 'FAILING#WEBHOOKS';
export const FAILING_DESTINATIONS = 'FAILING#DESTINATIONS';
export const HELD_LISTS = 'HELD';
/** The partition of one destination's held list. */
export const heldPartition = (destination: string) => `HELD#${destination}`;

/**
 * The breaker's items in the directory table:
 * - `DESTINATION#<key>` / `HEALTH`: the health (`health` map) of a shared destination, `telegram`, `ses#<region>`
 *   or `sns#<region>`;
 * - `FAILING#WEBHOOKS` / `<openSince>#<endpointId>`: one per webhook endpoint whose circuit is open, sorted by
 *   when it opened, so that the sweep reads those open for 5 days with one key condition and never scans;
 * - `FAILING#DESTINATIONS` / `<key>`: one per shared destination whose circuit is open.
 * - `HELD#<destination>` / `<alert createdAt>#<alertId>`: one per alert with a target an open circuit holds, oldest
 *   alert first, so that the sweep finds the oldest to carry a probe and drains them in that order once it closes;
 * - `HELD` / `<destination>`: one per destination whose circuit opened, with whose health it is (`owner`) and
 *   `openSince`, so that the sweep finds the held lists without a scan.
 * The open lists are written when a circuit opens and deleted when it closes; the sweep counts them for the
 * metrics. `HELD` / `<destination>` is written when it opens too, and forgotten by the sweep once the circuit
 * closed and its held list was drained; held entries expire anyway (`ttl`).
 */
export const circuitKeys = {
  destination: (key: string) => ({ pk: `DESTINATION#${key}`, sk: 'HEALTH' }),
  failingWebhook: (openSince: string, endpointId: string) => ({ pk: FAILING_WEBHOOKS, sk: `${openSince}#${endpointId}` }),
  failingDestination: (key: string) => ({ pk: FAILING_DESTINATIONS, sk: key }),
  held: (destination: string, createdAt: string, alertId: string) => ({ pk: heldPartition(destination), sk: `${createdAt}#${alertId}` }),
  heldList: (destination: string) => ({ pk: HELD_LISTS, sk: destination }),
} as const;
