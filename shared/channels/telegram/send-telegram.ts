import { GrammyError, HttpError, type Api } from 'grammy';
import { describeError, type SendOutcome } from '../outcome';

/** Telegram's limit on one message. */
const MAX_MESSAGE_LENGTH = 4096;

/** Sends one HTML message (parse_mode HTML; the text must already be escaped) to a chat. */
export async function sendTelegramMessage(api: Api, chatId: string, html: string): Promise<SendOutcome> {
  try {
    await api.sendMessage(chatId, html.slice(0, MAX_MESSAGE_LENGTH), {
      parse_mode: 'HTML',
      link_preview_options: { is_disabled: true },
    });
    return { status: 'sent' };
  } catch (error) {
    if (error instanceof GrammyError) {
      const reason = `Telegram ${error.error_code}: ${error.description}`;
      // 403: the bot was blocked, kicked or the user deactivated; the chat will not take messages again
      if (error.error_code === 403) return { status: 'failed', error: reason, gone: true };
      if (error.error_code === 429 || error.error_code >= 500) return { status: 'retry', error: reason };
      return { status: 'failed', error: reason };
    }
    if (error instanceof HttpError) return { status: 'retry', error: `network: ${error.message}` };
    return { status: 'retry', error: describeError(error) };
  }
}
