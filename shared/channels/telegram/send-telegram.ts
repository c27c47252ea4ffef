import { GrammyError, HttpError, type Api, type InlineKeyboard } from 'grammy';
import { logger } from '../../observability/logger';
import { describeError, type SendOutcome } from '../outcome';
import { isBotApiTimeout, TELEGRAM_API_TIMEOUT_SECONDS } from './bot-api';

/** Telegram's limit on one message. */
const MAX_MESSAGE_LENGTH = 4096;

export interface TelegramText {
  /** For parse_mode HTML, already escaped. */
  html: string;
  /** The same message as plain text. */
  text: string;
  /** Buttons under the message (the alert's acknowledge button). */
  keyboard?: InlineKeyboard;
  /** The forum topic of a group to send to (message_thread_id). */
  threadId?: number;
  /** A position sent right after the message, as a reply to it. */
  location?: { latitude: number; longitude: number };
}

/**
 * Sends one message to a chat, in HTML. A message too long for Telegram goes out as shortened plain text
 * instead, since cutting HTML could split a tag or an entity and have the whole message refused.
 */
export async function sendTelegramMessage(api: Api, chatId: string, message: TelegramText): Promise<SendOutcome> {
  try {
    const thread = message.threadId === undefined ? {} : { message_thread_id: message.threadId };
    const options = { link_preview_options: { is_disabled: true }, ...thread, ...(message.keyboard ? { reply_markup: message.keyboard } : {}) };
    let sent: { message_id: number };
    if (message.html.length <= MAX_MESSAGE_LENGTH) {
      sent = await api.sendMessage(chatId, message.html, { parse_mode: 'HTML', ...options });
    } else {
      const text = message.text.length <= MAX_MESSAGE_LENGTH ? message.text : `${message.text.slice(0, MAX_MESSAGE_LENGTH - 1)}…`;
      sent = await api.sendMessage(chatId, text, options);
    }
    if (message.location) await sendLocation(api, chatId, message.location, { ...thread, reply_parameters: { message_id: sent.message_id } });
    return { status: 'sent' };
  } catch (error) {
    if (error instanceof GrammyError) {
      const reason = `Telegram ${error.error_code}: ${error.description}`;
      // 403: the bot was blocked, kicked or the user deactivated; the chat will not take messages again
      if (error.error_code === 403) return { status: 'failed', error: reason, gone: true };
      if (error.error_code === 429 || error.error_code >= 500) {
        const retryAfter = error.parameters.retry_after;
        return { status: 'retry', error: reason, ...(retryAfter !== undefined && retryAfter > 0 ? { retryAfterSeconds: retryAfter } : {}) };
      }
      return { status: 'failed', error: reason };
    }
    if (isBotApiTimeout(error)) {
      logger.warn(`Telegram Bot API did not answer within ${TELEGRAM_API_TIMEOUT_SECONDS} s; the message is retried later`, {
        method: 'sendMessage',
      });
      return { status: 'retry', error: `Telegram did not answer within ${TELEGRAM_API_TIMEOUT_SECONDS} s` };
    }
    if (error instanceof HttpError) return { status: 'retry', error: `network: ${error.message}` };
    return { status: 'retry', error: describeError(error) };
  }
}

/**
 * The event's position after its alert, as a reply to it. Best effort: the alert itself went out, and sending
 * it again for a lost location would repeat the alert, so a failure is only logged.
 */
async function sendLocation(
  api: Api,
  chatId: string,
  { latitude, longitude }: { latitude: number; longitude: number },
  options: { message_thread_id?: number; reply_parameters: { message_id: number } },
): Promise<void> {
  try {
    await api.sendLocation(chatId, latitude, longitude, {
      ...options,
      reply_parameters: { ...options.reply_parameters, allow_sending_without_reply: true },
    });
  } catch (error) {
    logger.warn('the location after an alert could not be sent', { method: 'sendLocation', error: describeError(error) });
  }
}
