import middy from '@middy/core';
import { webhookCallback } from 'grammy';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { logger, loggerContext } from '../../shared/observability/logger';
import { telegramCredentials } from '../../shared/channels/telegram/credentials';
import { createLinkBot } from '../../shared/channels/telegram/link-bot';

/**
 * Telegram webhook (POST /telegram/webhook on the HTTP API). grammy checks the
 * X-Telegram-Bot-Api-Secret-Token header against the secret's `webhookSecret` (401 otherwise) and runs the
 * link bot. The bot token and webhook secret are read from Secrets Manager once per cold start.
 */
type WebhookHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyResultV2>;

let webhook: Promise<WebhookHandler> | undefined;

function webhookHandler(): Promise<WebhookHandler> {
  webhook ??= telegramCredentials()
    .then(({ botToken, webhookSecret }): WebhookHandler => {
      const bot = createLinkBot(botToken);
      const callback = webhookCallback(bot, 'aws-lambda-async', { secretToken: webhookSecret });
      // the adapter resolves with the HTTP response (200, or 401 on a wrong secret); grammy types it as void
      return async (event, context) => ((await callback(event, context)) as unknown as APIGatewayProxyResultV2 | undefined) ?? { statusCode: 200 };
    })
    .catch((error: unknown) => {
      webhook = undefined;
      throw error;
    });
  return webhook;
}

/** Forgets the bot (after the secret changed). */
export function resetTelegramWebhook(): void {
  webhook = undefined;
}

function bodyOf(event: APIGatewayProxyEventV2): string {
  if (!event.body) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyResultV2>()
  .use(loggerContext())
  .handler(async (event, context) => {
    const body = bodyOf(event);
    try {
      JSON.parse(body);
    } catch {
      return { statusCode: 400, body: 'request body is not a JSON Telegram update' };
    }
    const callback = await webhookHandler();
    try {
      return await callback({ ...event, body, isBase64Encoded: false }, context);
    } catch (error) {
      // Telegram sends the update again after an error answer; the link code survives a failed redemption
      logger.error('Telegram update failed', { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
      throw error;
    }
  });
