import type { Api } from 'grammy';
import { sendEmail, type EmailMessage } from '../channels/email/send-email';
import { paced } from '../channels/email/send-pace';
import { sendQuota } from '../channels/email/send-quota';
import { describeError, type SendOutcome } from '../channels/outcome';
import { sendPush, type PushMessage } from '../channels/push/send-push';
import { telegramCredentials } from '../channels/telegram/credentials';
import type { TelegramText } from '../channels/telegram/send-telegram';
import type { WebhookDelivery } from '../channels/webhook/send-webhook';
import { sendLoggedWebhook } from './logged-webhook';
import type { PushDevice } from '../schemas/directory';
import { readConfig, smsConfig, telegramSchema } from '../config';
import { sendSms, type SmsMessage, type SmsOutcome } from '../channels/sms/send-sms';

/** The ways out, as the delivery logic sees them. */
export interface ChannelSenders {
  email(message: EmailMessage): Promise<SendOutcome>;
  telegram(chatId: string, message: TelegramText): Promise<SendOutcome>;
  push(device: PushDevice, message: PushMessage): Promise<SendOutcome>;
  webhook(delivery: WebhookDelivery): Promise<SendOutcome>;
  sms(message: SmsMessage): Promise<SmsOutcome>;
}

let telegramApi: Promise<Api> | undefined;

/**
 * The Bot API client, created on first use so that functions without Telegram targets never read the secret. grammy,
 * and the fetch stack under it, are loaded then too (here and in acknowledge-action.ts), not at every cold start.
 */
function botApi(): Promise<Api> {
  telegramApi ??= telegramCredentials()
    .then(async (secret) => (await import('../channels/telegram/bot-api')).createTelegramApi(secret.botToken))
    .catch((error: unknown) => {
      telegramApi = undefined;
      throw error;
    });
  return telegramApi;
}

/** Forgets the Bot API client (after the secret or the API root changed). */
export function resetTelegramSender(): void {
  telegramApi = undefined;
}

/** Sends through SES at the paced rate, and counts what went out against the account's daily quota. */
const pacedEmail = paced(sendEmail);
async function sendCountedEmail(message: EmailMessage): Promise<SendOutcome> {
  const outcome = await pacedEmail(message);
  if (outcome.status === 'sent') sendQuota.countSent();
  if (outcome.status === 'retry' && outcome.overQuota) sendQuota.markExhausted();
  return outcome;
}

export const channelSenders: ChannelSenders = {
  email: sendCountedEmail,
  async telegram(chatId, message) {
    if (!readConfig(telegramSchema()).TELEGRAM_SECRET_ID) return { status: 'failed', error: 'Telegram is not configured (TELEGRAM_SECRET_ID)' };
    let api: Api;
    try {
      api = await botApi();
    } catch (error) {
      return { status: 'retry', error: `Telegram credentials: ${describeError(error)}` };
    }
    return (await import('../channels/telegram/send-telegram')).sendTelegramMessage(api, chatId, message);
  },
  push: sendPush,
  webhook: async (delivery) => (await sendLoggedWebhook(delivery)).outcome,
  sms: (message) => sendSms(message, smsConfig()),
};
