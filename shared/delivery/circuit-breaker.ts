import type { SendOutcome } from '../channels/outcome';
import type { CircuitHealth } from '../schemas/circuit-health';
import { MAX_RETRY_AFTER_SECONDS } from './retry-backoff';

/**
 * The circuit breaker of one destination (a webhook endpoint, the Telegram Bot API, SES or SNS in one region),
 * decided from its health alone. Pure: no I/O, no clock; shared/delivery/circuit-gate.ts reads and writes the
 * health around each send, and the sweep's circuit pass (shared/sweep/circuit-pass.ts) probes and drains.
 *
 * After FAILURES_TO_OPEN transient failures in a row the circuit opens. Its targets are then held: not attempted,
 * and deferred on the alert's retry record (target-retry.ts `deferTarget`) without spending an attempt, listed on
 * the destination's held list. Once per PROBE_INTERVAL_MS one attempt goes through as the probe: the oldest held
 * alert, woken by the sweep, or any attempt that comes first. A held target whose probe fails is held again, also
 * without spending an attempt (a target whose own scheduled attempt went out as the probe spent that one, as any
 * attempt); a successful probe closes the circuit, and the sweep then drains the held list, oldest first,
 * DRAIN_PER_RUN a minute per destination.
 */
export const FAILURES_TO_OPEN = 5;
export const PROBE_INTERVAL_MS = 60_000;
/** A healthy destination rewrites `lastSuccessAt` at most this often, so that a success costs no write. */
export const SUCCESS_REFRESH_MS = 3_600_000;
/** A webhook endpoint whose circuit stays open this long, without a success, is disabled (by the sweep). */
export const DISABLE_WEBHOOK_AFTER_MS = 5 * 86_400_000;
/**
 * A held target is looked at again this long after it was held (the schedule's longest wait), should the drain
 * miss it: its alert waits on the due index meanwhile, so waiting costs one write and one read per such span.
 */
export const HOLD_RECHECK_MS = MAX_RETRY_AFTER_SECONDS * 1000;
/**
 * Held alerts of one destination the sweep hands back per run once its circuit closed, oldest first: a receiver
 * just back is not flooded, and 200 a minute drains a day of one alert every 7 s per destination within an hour.
 */
export const DRAIN_PER_RUN = 200;

/** send: closed, go ahead; probe: open, and this attempt may test it (if it wins the probe slot); hold: open, do not send. */
export type CircuitDecision = 'send' | 'probe' | 'hold';

const epoch = (iso: string | null) => (iso === null ? Number.NEGATIVE_INFINITY : Date.parse(iso));

/** Open from the failure that made the count, even before the write that stamps `openSince` has landed. */
export function isOpen(health: CircuitHealth): boolean {
  return health.openSince !== null || health.consecutiveFailures >= FAILURES_TO_OPEN;
}

/** When the next probe may go: an interval after the circuit opened, or after the last probe. */
export function nextProbeAt(health: CircuitHealth): number {
  return Math.max(epoch(health.openSince ?? health.lastFailureAt), epoch(health.lastProbeAt)) + PROBE_INTERVAL_MS;
}

export function decideCircuit(health: CircuitHealth, now: number): CircuitDecision {
  if (!isOpen(health)) return 'send';
  return now >= nextProbeAt(health) ? 'probe' : 'hold';
}

/** The probe slot is free when nobody took it within the last interval (the condition of the slot's claim). */
export function probeSlotFreeBefore(now: number): string {
  return new Date(now - PROBE_INTERVAL_MS).toISOString();
}

/** Transient failures count; an e-mail SES refused over the account's daily quota says nothing about SES's health. */
export function countsAsFailure(outcome: SendOutcome): outcome is { status: 'retry'; error: string } {
  return outcome.status === 'retry' && !outcome.overQuota;
}

/** A success is written only when it changes something: a count to reset, a circuit to close, a stale lastSuccessAt. */
export function successChangesHealth(health: CircuitHealth, now: number): boolean {
  return health.consecutiveFailures > 0 || isOpen(health) || now - epoch(health.lastSuccessAt) >= SUCCESS_REFRESH_MS;
}

/** The failure just recorded made the count and nobody has opened the circuit yet. */
export function opensNow(after: CircuitHealth): boolean {
  return after.openSince === null && after.consecutiveFailures >= FAILURES_TO_OPEN;
}

/** Why a target was held, in words: the destination's name (never a URL, address or token) and its last error. */
export function heldReason(destination: string, health: CircuitHealth): string {
  const since = health.openSince ?? health.lastFailureAt ?? 'now';
  const last = health.lastError === null ? '' : `; last error: ${health.lastError}`;
  return `not attempted: the circuit of ${destination} is open since ${since} after ${FAILURES_TO_OPEN} failures in a row${last}`;
}

/** Why a probe that failed held its target again, in words. */
export function probeFailedReason(destination: string, error: string): string {
  return `sent as the probe of the open circuit of ${destination}, which failed: ${error}`;
}

/** Open since at least the cut-off: `openSince` sorts as text, so this is the key condition of the sweep's query. */
export function disableCutoff(now: number): string {
  return new Date(now - DISABLE_WEBHOOK_AFTER_MS).toISOString();
}
