import type { DeliveryRetry } from '../schemas/alert';
import { RETRY_HORIZON_SECONDS, retryDelaySeconds, spanText } from './retry-backoff';

/**
 * Each target of an alert keeps its own place in the retry schedule (retry-backoff.ts): its attempts so far and
 * when its next one is due, in the alert's `deliveryRetries`. A target is attempted only once its own next
 * attempt has come, whatever woke the alert; the alert wakes at the earliest of its targets' next attempts.
 *
 * What one attempt at one target came to, for the alert's settling:
 * - recorded: settled for good (sent, failed, held for a digest), and already written;
 * - finished: written, and with it the alert finished (it was its last open target);
 * - retry: to be tried again at `record.nextAttemptAt`; the record is written when the alert is settled;
 * - waiting: not attempted, its next attempt has not come (epoch ms).
 */
export type Attempt =
  | { outcome: 'recorded' }
  | { outcome: 'finished' }
  | { outcome: 'retry'; key: string; record: DeliveryRetry }
  | { outcome: 'waiting'; key: string; nextAttemptAt: number };

/** When the target's next attempt is due, epoch ms; 0 for a target that never failed (or a record without one). */
export function nextAttemptOf(record: DeliveryRetry | undefined): number {
  const at = record?.nextAttemptAt === undefined ? Number.NaN : Date.parse(record.nextAttemptAt);
  return Number.isNaN(at) ? 0 : at;
}

/**
 * The record of a target whose attempt `attempts` (1 for the first) failed for a passing reason at `now`: its next
 * attempt after the schedule's wait, not before `retryAfterSeconds`. Null when that was its last attempt.
 */
export function afterPassingFailure(
  attempts: number,
  error: string,
  now: number,
  retryAfterSeconds?: number,
  random?: () => number,
): { record: DeliveryRetry; delaySeconds: number } | null {
  const delaySeconds = retryDelaySeconds(attempts, retryAfterSeconds, random);
  if (delaySeconds === undefined) return null;
  const nextAttemptAt = new Date(now + delaySeconds * 1000).toISOString();
  return { record: { attempts, error, at: new Date(now).toISOString(), nextAttemptAt }, delaySeconds };
}

/** Why a target still failing after its last attempt was given up on, in words. */
export function gaveUpReason(attempts: number, error: string): string {
  return `still failing after ${attempts} attempts over about ${spanText(RETRY_HORIZON_SECONDS)}, the last of the retry schedule: ${error}`;
}

/**
 * Defers a target's next attempt to `until` (epoch ms) without counting an attempt: its attempts stay as they
 * were, `reason` becomes its error, and the alert is settled as after a failed attempt (woken through the queue or
 * the due index, whichever holds the wait). The circuit breaker per destination answers with this for a target
 * its open circuit holds (`heldBy`, the destination), instead of sending.
 */
export function deferTarget(
  retries: Readonly<Record<string, DeliveryRetry>>,
  key: string,
  until: number,
  reason: string,
  now: number,
  heldBy?: string,
): Attempt {
  return {
    outcome: 'retry',
    key,
    record: {
      attempts: retries[key]?.attempts ?? 0,
      error: reason,
      at: new Date(now).toISOString(),
      nextAttemptAt: new Date(until).toISOString(),
      ...(heldBy === undefined ? {} : { heldBy }),
    },
  };
}

/**
 * How long a target an open circuit holds may wait: as long as the retry schedule would have kept it, counted from
 * when its alert was raised (epoch ms). Held longer, it is given up as one whose attempts ran out.
 */
export function holdDeadline(createdAt: string): number {
  return Date.parse(createdAt) + RETRY_HORIZON_SECONDS * 1000;
}

/** Why a target held by an open circuit past holdDeadline was given up on, in words. */
export function heldTooLongReason(attempts: number, destination: string, error: string): string {
  return (
    `its destination ${destination} did not take deliveries for about ${spanText(RETRY_HORIZON_SECONDS)} after the alert, ` +
    `the horizon of the retry schedule (${attempts} attempts made while its circuit let them through): ${error}`
  );
}

/** When the alert is to be looked at again: the earliest next attempt of its targets still open; undefined with none. */
export function wakeOf(attempts: readonly Attempt[]): number | undefined {
  const times = attempts.flatMap((attempt) => {
    if (attempt.outcome === 'retry') return [nextAttemptOf(attempt.record)];
    if (attempt.outcome === 'waiting') return [attempt.nextAttemptAt];
    return [];
  });
  return times.length ? Math.min(...times) : undefined;
}
