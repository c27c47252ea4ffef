/**
 * What one attempt to send to one target came to.
 * - sent: it went out.
 * - failed: it can never go out (bad address, blocked bot, disabled endpoint); not retried.
 *   `gone` says the target itself is dead and should be forgotten (a blocked chat, a disabled push endpoint, a
 *   webhook that answered 410).
 * - retry: a passing problem (throttling, an outage) that outlasted the in-process retries; try again later.
 *   `overQuota` says SES refused an e-mail because the account's 24-hour sending quota is spent;
 *   `retryAfterSeconds` is how long the other side asked to be left alone (a webhook's Retry-After, Telegram's
 *   retry_after), when it said so.
 */
export type SendOutcome =
  | { status: 'sent' }
  | { status: 'failed'; error: string; gone?: boolean }
  | { status: 'retry'; error: string; overQuota?: boolean; retryAfterSeconds?: number };

export const CHANNELS = ['email', 'telegram', 'push', 'webhook', 'sms'] as const;
export type Channel = (typeof CHANNELS)[number];

/** Error text safe to record and log: name and message, shortened, never request data. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 500);
  return String(error).slice(0, 500);
}
