import { Api, HttpError } from 'grammy';
import { autoRetry } from '@grammyjs/auto-retry';
import { readConfig, telegramSchema } from '../../config';

/**
 * Seconds one Bot API call may take before grammy aborts it (its own default is 500 s, far past the function's
 * timeout): an unreachable Telegram then fails fast and the delivery is retried through the queue.
 */
export const TELEGRAM_API_TIMEOUT_SECONDS = 10;

/** Client options shared by the sender and the webhook bot: `TELEGRAM_API_ROOT` overrides the Bot API root. */
export function telegramClientOptions(): { apiRoot?: string; timeoutSeconds: number } {
  const apiRoot = readConfig(telegramSchema()).TELEGRAM_API_ROOT;
  return { timeoutSeconds: TELEGRAM_API_TIMEOUT_SECONDS, ...(apiRoot ? { apiRoot } : {}) };
}

/**
 * Whether a call outlasted `timeoutSeconds`: grammy wraps its "Request to 'getMe' timed out after 10 seconds"
 * in an HttpError ("Network request … failed!"), whose `error` is the original.
 */
export function isBotApiTimeout(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (/timed out after \d+ seconds/.test(error.message)) return true;
  const inner = error instanceof HttpError ? error.error : error.cause;
  return inner !== error && isBotApiTimeout(inner);
}

/**
 * A Bot API client that waits out 429 answers (retry_after) a bounded number of times, so a throttled send
 * neither hammers Telegram nor holds the function for long; what is still throttled afterwards is retried
 * later through the queue.
 */
export function createTelegramApi(botToken: string): Api {
  const api = new Api(botToken, telegramClientOptions());
  // network failures are rethrown at once (the transformer would otherwise retry them forever) and retried through the queue
  api.config.use(autoRetry({ maxRetryAttempts: 2, maxDelaySeconds: 10, rethrowHttpErrors: true }));
  return api;
}
