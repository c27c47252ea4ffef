/**
 * How long a deliveries-queue message waits before its next receive when a webhook target hit a passing
 * problem (5xx, 408, 429, timeout, refused connection, TLS failure): exponential with equal jitter. After
 * attempt n the ceiling is `min(cap, base * 2^(n-1))` and the delay is drawn from [ceiling/2, ceiling], so
 * endpoints that failed together (one outage) are not all retried in the same second, and no retry comes
 * sooner than half its ceiling. With the defaults (base 30 s, cap 15 min) and 5 attempts the schedule is
 * 15–30 s, 30–60 s, 60–120 s, 120–240 s: the last attempt comes at most 7.5 minutes after the first.
 * The base is `WEBHOOK_RETRY_BASE_SECONDS` (30); 0 leaves the queue's own visibility timeout.
 */
import { readConfig, webhookRetrySchema } from '../config';

export const MAX_DELAY_SECONDS = 15 * 60;

export function webhookRetryBaseSeconds(env?: Record<string, string | undefined>): number {
  return readConfig(webhookRetrySchema, env).WEBHOOK_RETRY_BASE_SECONDS;
}

/** The ceiling of the delay after `attempts` attempts (1 after the first). */
export function retryCeilingSeconds(attempts: number, baseSeconds: number, capSeconds = MAX_DELAY_SECONDS): number {
  return Math.min(capSeconds, baseSeconds * 2 ** Math.max(0, Math.min(attempts, 64) - 1));
}

/**
 * Seconds before the next attempt, after `attempts` attempts; undefined with a base of 0. `random` returns a
 * number in [0, 1), as Math.random does.
 */
export function webhookRetryDelaySeconds(
  attempts: number,
  baseSeconds: number = webhookRetryBaseSeconds(),
  random: () => number = Math.random,
): number | undefined {
  if (baseSeconds <= 0) return undefined;
  const ceiling = retryCeilingSeconds(attempts, baseSeconds);
  return Math.max(1, Math.round(ceiling / 2 + random() * (ceiling / 2)));
}

/** The waits after attempts 1 … `attempts − 1` as ranges (seconds), as the jitter draws them: for documents. */
export function retryScheduleRanges(attempts: number, baseSeconds: number): { min: number; max: number }[] {
  return Array.from({ length: Math.max(0, attempts - 1) }, (_, index) => {
    const ceiling = retryCeilingSeconds(index + 1, baseSeconds);
    return { min: Math.max(1, Math.round(ceiling / 2)), max: ceiling };
  });
}

/** `15–30 s, 30–60 s, …`, the schedule in words. */
export function retryScheduleText(attempts: number, baseSeconds: number): string {
  return retryScheduleRanges(attempts, baseSeconds)
    .map(({ min, max }) => `${min}–${max} s`)
    .join(', ');
}
