import { Api } from 'grammy';
import { autoRetry } from '@grammyjs/auto-retry';

/** Client options shared by the sender and the webhook bot: `TELEGRAM_API_ROOT` overrides the Bot API root. */
export function telegramClientOptions(): { apiRoot?: string } {
  const apiRoot = process.env.TELEGRAM_API_ROOT;
  return apiRoot ? { apiRoot } : {};
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
