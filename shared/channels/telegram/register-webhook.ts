import { createTelegramApi } from './bot-api';
import { telegramCredentials } from './credentials';

/**
 * Points the bot at the deployed webhook (`https://<api>/telegram/webhook`) with the secret token Telegram
 * must send back in X-Telegram-Bot-Api-Secret-Token. Run once after a deployment (or when the secret
 * changes); only the updates the link bot reads are requested.
 */
export async function registerTelegramWebhook(url: string): Promise<void> {
  const { botToken, webhookSecret } = await telegramCredentials();
  await createTelegramApi(botToken).setWebhook(url, {
    secret_token: webhookSecret,
    allowed_updates: ['message'],
    drop_pending_updates: false,
  });
}
