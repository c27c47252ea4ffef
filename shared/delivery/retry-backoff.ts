/**
 * How long a deliveries-queue message waits before its next receive when a webhook target hit a passing
 * problem (5xx, 408, 429, timeout): 30 s after the first attempt, then doubling (60 s, 120 s, 240 s …), at most
 * 15 minutes. The base is `WEBHOOK_RETRY_BASE_SECONDS` (30); 0 leaves the queue's own visibility timeout.
 */
const MAX_DELAY_SECONDS = 15 * 60;

export function webhookRetryBaseSeconds(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.WEBHOOK_RETRY_BASE_SECONDS ?? 30);
  return Number.isFinite(value) && value >= 0 ? value : 30;
}

/** Seconds before the next attempt, after `attempts` attempts (1 after the first); undefined with a base of 0. */
export function webhookRetryDelaySeconds(attempts: number, baseSeconds: number = webhookRetryBaseSeconds()): number | undefined {
  if (baseSeconds <= 0) return undefined;
  return Math.min(MAX_DELAY_SECONDS, Math.round(baseSeconds * 2 ** Math.max(0, attempts - 1)));
}
