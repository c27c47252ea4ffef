import { Bot, type Api, type Context } from 'grammy';
import { escapeHtml } from '../escape-html';
import { markTelegramChatInactive, redeemLinkCode, unlinkTelegramChat, type LinkedChat } from '../../store/telegram-links';
import { LANGUAGES } from '../../schemas/directory';
import { telegramClientOptions } from './bot-api';
import { sendTelegramMessage } from './send-telegram';

/**
 * The bot behind the webhook: `/start <code>` links the chat to the fleetwatch user who asked for the code,
 * and tells the user's other chats; `/stop` unlinks it. Answers follow the Telegram user's language (ru, az,
 * else English).
 */
type Phrase = 'linked' | 'invalidCode' | 'missingCode' | 'unlinked' | 'notLinked';

const PHRASES: Record<'en' | 'ru' | 'az', Record<Phrase, (login: string) => string>> = {
  en: {
    linked: (login) => `This chat is now linked to <b>${login}</b>. fleetwatch alerts will arrive here. Send /stop to unlink it.`,
    invalidCode: () => 'This link code is invalid, already used or expired. Ask fleetwatch for a new code and send /start with it.',
    missingCode: () => 'To receive fleetwatch alerts here, send /start followed by the link code from fleetwatch.',
    unlinked: () => 'This chat is unlinked. No more fleetwatch alerts will arrive here.',
    notLinked: () => 'This chat is not linked to any fleetwatch user.',
  },
  ru: {
    linked: (login) =>
      `Чат привязан к пользователю <b>${login}</b>. Уведомления fleetwatch будут приходить сюда. Чтобы отвязать чат, отправьте /stop.`,
    invalidCode: () => 'Код привязки неверен, уже использован или истёк. Получите новый код в fleetwatch и отправьте /start с ним.',
    missingCode: () => 'Чтобы получать уведомления fleetwatch здесь, отправьте /start и код привязки из fleetwatch.',
    unlinked: () => 'Чат отвязан. Уведомления fleetwatch сюда больше не придут.',
    notLinked: () => 'Этот чат не привязан ни к одному пользователю fleetwatch.',
  },
  az: {
    linked: (login) => `Bu söhbət <b>${login}</b> istifadəçisinə bağlandı. fleetwatch bildirişləri bura gələcək. Ayırmaq üçün /stop göndərin.`,
    invalidCode: () => 'Bağlama kodu yanlışdır, artıq istifadə olunub və ya vaxtı bitib. fleetwatch-da yeni kod alın və onu /start ilə göndərin.',
    missingCode: () => 'fleetwatch bildirişlərini burada almaq üçün /start və fleetwatch-dan aldığınız bağlama kodunu göndərin.',
    unlinked: () => 'Söhbət ayrıldı. fleetwatch bildirişləri artıq bura gəlməyəcək.',
    notLinked: () => 'Bu söhbət heç bir fleetwatch istifadəçisinə bağlı deyil.',
  },
};

type PhraseLanguage = keyof typeof PHRASES;

/**
 * What the user's other chats are told when a chat is linked: whoever got hold of a link code (or the
 * account) now reads the alerts there too, and the owner should hear of it where they already read them.
 */
const NEW_CHAT_NOTICE: Record<PhraseLanguage, (login: string, chat: string) => string> = {
  en: (login, chat) =>
    `A new Telegram chat (${chat}) was linked to ${login} and now receives its fleetwatch alerts too. ` +
    'If this was not you, unlink it in fleetwatch (your linked Telegram chats) and change your password.',
  ru: (login, chat) =>
    `К пользователю ${login} привязан новый чат Telegram (${chat}); уведомления fleetwatch теперь приходят и туда. ` +
    'Если это были не вы, отвяжите его в fleetwatch (привязанные чаты Telegram) и смените пароль.',
  az: (login, chat) =>
    `${login} istifadəçisinə yeni Telegram söhbəti (${chat}) bağlandı; fleetwatch bildirişləri indi ora da gələcək. ` +
    'Bunu siz etməmisinizsə, onu fleetwatch-da (bağlı Telegram söhbətləri) ayırın və parolunuzu dəyişin.',
};

/** The user's own language (their other chats need not share the new chat's Telegram language). */
function userLanguage(language: LinkedChat['language']): PhraseLanguage {
  return (Object.keys(LANGUAGES) as PhraseLanguage[]).find((name) => LANGUAGES[name] === language) ?? 'en';
}

/** Tells the user's other chats that `chat` was linked; a chat that blocked the bot is marked so. */
async function tellOtherChats(api: Api, linked: LinkedChat, chat: { chatId: string; username: string }): Promise<void> {
  const notice = NEW_CHAT_NOTICE[userLanguage(linked.language)];
  const label = chat.username ? `@${chat.username}` : `id ${chat.chatId}`;
  const message = { html: notice(`<b>${escapeHtml(linked.login)}</b>`, escapeHtml(label)), text: notice(linked.login, label) };
  for (const chatId of linked.otherChatIds) {
    const outcome = await sendTelegramMessage(api, chatId, message);
    if (outcome.status === 'failed' && outcome.gone) await markTelegramChatInactive(linked.userId, chatId);
  }
}

function phrase(ctx: Context, name: Phrase, login = ''): string {
  const code = ctx.from?.language_code?.slice(0, 2);
  const language = code === 'ru' || code === 'az' ? code : 'en';
  return PHRASES[language][name](escapeHtml(login));
}

export function createLinkBot(botToken: string, options: { now?: () => number } = {}): Bot {
  const now = options.now ?? Date.now;
  const bot = new Bot(botToken, { client: telegramClientOptions() });

  bot.command('start', async (ctx) => {
    const code = ctx.match.trim();
    if (!code) {
      await ctx.reply(phrase(ctx, 'missingCode'), { parse_mode: 'HTML' });
      return;
    }
    const chat = {
      chatId: String(ctx.chat.id),
      username: ctx.from?.username ?? ('username' in ctx.chat ? (ctx.chat.username ?? '') : ''),
      // sent in a forum topic: alerts go to that thread
      ...(ctx.msg?.is_topic_message && ctx.msg.message_thread_id !== undefined ? { threadId: ctx.msg.message_thread_id } : {}),
    };
    const linked = await redeemLinkCode(code, chat, now());
    await ctx.reply(linked ? phrase(ctx, 'linked', linked.login) : phrase(ctx, 'invalidCode'), { parse_mode: 'HTML' });
    if (linked) await tellOtherChats(ctx.api, linked, chat);
  });

  bot.command('stop', async (ctx) => {
    const unlinked = await unlinkTelegramChat(String(ctx.chat.id));
    await ctx.reply(phrase(ctx, unlinked ? 'unlinked' : 'notLinked'), { parse_mode: 'HTML' });
  });

  return bot;
}
