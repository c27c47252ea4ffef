import type { SendOutcome } from '../channels/outcome';
import type { CircuitHealth } from '../schemas/circuit-health';

/**
 * The circuit breaker of one destination (a webhook endpoint, the Telegram Bot API, SES or SNS in one region),
 * decided from its health alone. Pure: no I/O, no clock; shared/delivery/circuit-gate.ts reads and writes the
 * health around each send.
 *
 * After FAILURES_TO_OPEN transient failures in a row the circuit opens: its targets are not attempted, each held
 * attempt counts as a transient failure of the alert and waits for its retry. Once per PROBE_INTERVAL_MS one
 * attempt goes through as a probe; a success closes the circuit.
 */
export const FAILURES_TO_OPEN = 5;
export const PROBE_INTERVAL_MS = 60_000;
/** A healthy destination rewrites `lastSuccessAt` at most this often, so that a success costs no write. */
export const SUCCESS_REFRESH_MS = 3_600_000;
/** A webhook endpoint whose circuit stays open this long, without a success, is disabled (by the sweep). */
export const DISABLE_WEBHOOK_AFTER_MS = 5 * 86_400_000;

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

/** The outcome of an attempt the open circuit held back: a transient failure, with no network call made. */
export function heldOutcome(destination: string, health: CircuitHealth): { status: 'retry'; error: string } {
  const since = health.openSince ?? health.lastFailureAt ?? 'now';
  const last = health.lastError === null ? '' : `; last error: ${health.lastError}`;
  return {
    status: 'retry',
    error: `not attempted: the circuit of ${destination} is open since ${since} after ${FAILURES_TO_OPEN} failures in a row${last}`,
  };
}

/** Open since at least the cut-off: `openSince` sorts as text, so this is the key condition of the sweep's query. */
export function disableCutoff(now: number): string {
  return new Date(now - DISABLE_WEBHOOK_AFTER_MS).toISOString();
}
