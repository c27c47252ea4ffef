import { timingSafeEqual } from 'node:crypto';
import middy from '@middy/core';
import { webhookCallback } from 'grammy';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { logger, loggerContext } from '../../shared/observability/logger';
import { isBotApiTimeout, TELEGRAM_API_TIMEOUT_SECONDS } from '../../shared/channels/telegram/bot-api';
import { telegramCredentials } from '../../shared/channels/telegram/credentials';
import { createLinkBot } from '../../shared/channels/telegram/link-bot';
import { telegramAcknowledge } from '../../shared/delivery/telegram-acknowledge';
import { telegramMute } from '../../shared/delivery/telegram-mute';
import { checkFunctionConfig } from '../../shared/config';

/**
 * Telegram webhook (POST /telegram/webhook on the HTTP API). The X-Telegram-Bot-Api-Secret-Token header is
 * checked against the secret's `webhookSecret` first: without it the answer is 401 at once, with no read of
 * Secrets Manager and no Bot API call; a wrong one is 401 after reading the (cached) secret. Only then does the
 * bot run: the link commands and the alerts' acknowledge and mute buttons (grammy's own callback would call getMe before its check). The bot token and webhook secret are
 * read from Secrets Manager once per cold start.
 */
type WebhookHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyResultV2>;

let webhook: Promise<WebhookHandler> | undefined;

function webhookHandler(): Promise<WebhookHandler> {
  webhook ??= telegramCredentials()
    .then(({ botToken, webhookSecret }): WebhookHandler => {
      const bot = createLinkBot(botToken);
      bot.use(telegramAcknowledge());
      bot.use(telegramMute());
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

const SECRET_HEADER = 'x-telegram-bot-api-secret-token';
const UNAUTHORIZED: APIGatewayProxyResultV2 = { statusCode: 401, body: 'secret token is missing or wrong' };

function headerOf(event: APIGatewayProxyEventV2, name: string): string | undefined {
  const entry = Object.entries(event.headers ?? {}).find(([key]) => key.toLowerCase() === name);
  return entry?.[1];
}

/** Compares in constant time, so the answer's timing does not leak the secret. */
function secretMatches(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

// a missing or malformed setting fails the cold start, naming the variable
checkFunctionConfig('telegram');

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyResultV2>()
  .use(loggerContext())
  .handler(async (event, context) => {
    const given = headerOf(event, SECRET_HEADER);
    if (!given) return UNAUTHORIZED;
    if (!secretMatches(given, (await telegramCredentials()).webhookSecret)) return UNAUTHORIZED;
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
      if (isBotApiTimeout(error))
        logger.error(`Telegram Bot API did not answer within ${TELEGRAM_API_TIMEOUT_SECONDS} s; Telegram sends the update again`);
      else logger.error('Telegram update failed', { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
      throw error;
    }
  });
