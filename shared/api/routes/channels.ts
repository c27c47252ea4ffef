import { PushNotConfiguredError, registerPushDevice } from '../../channels/push/register';
import { issueLinkCode, unlinkOwnTelegramChat } from '../../store/telegram-links';
import { notFound, validationError } from '../errors';
import { defineRoute } from '../route';
import {
  pushDeviceBodySchema,
  pushDeviceResponseSchema,
  telegramChatListSchema,
  telegramChatParamsSchema,
  telegramLinkResponseSchema,
} from '../channel-schemas';
import { successSchema } from '../schemas';
import { pushDeviceAnswerExample, pushDeviceExample, successExample, telegramChatListExample, telegramLinkAnswerExample } from '../examples';
import { readConfig, telegramSchema } from '../../config';

/** Where the logged-in user receives alerts. These change only the user's own profile, so read-only users may use them. */
export const channelRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v3/telegram/link',
    operationId: 'createTelegramLink',
    tag: 'channels',
    summary: 'Get a single-use link that connects a Telegram chat to your user',
    description: 'Open the link (or send /start <code> to the bot) within 15 minutes.',
    auth: true,
    writes: false,
    response: telegramLinkResponseSchema,
    examples: { response: telegramLinkAnswerExample },
    async handle({ caller, now }) {
      if (!readConfig(telegramSchema()).TELEGRAM_BOT_USERNAME) {
        throw validationError([{ path: '', message: 'Telegram is not configured on this installation: there is no bot to link a chat to.' }]);
      }
      const { code, expiresAt, link } = await issueLinkCode(caller.user.id, now);
      return { body: { code, link, expiresAt } };
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/api/v3/telegram/chats',
    operationId: 'listTelegramChats',
    tag: 'channels',
    summary: 'The Telegram chats linked to your user',
    description:
      'Every chat that receives your alerts, with the username it had when it was linked. active is false for a chat that ' +
      'blocked the bot: it gets nothing until it links again. Each new link is announced in your other chats.',
    auth: true,
    writes: false,
    response: telegramChatListSchema,
    examples: { response: telegramChatListExample },
    async handle({ caller }) {
      const chats = Object.values(caller.user.telegramChats).sort((a, b) => a.linkedAt.localeCompare(b.linkedAt) || a.chatId.localeCompare(b.chatId));
      return { body: chats };
    },
  }),

  defineRoute({
    method: 'DELETE',
    path: '/api/v3/telegram/chats/{id}',
    operationId: 'unlinkTelegramChat',
    tag: 'channels',
    summary: 'Unlink one of your Telegram chats; it gets no more alerts',
    description: 'Like /stop sent in the chat. 404 for a chat that is not linked to your user.',
    auth: true,
    writes: false,
    params: telegramChatParamsSchema,
    response: successSchema,
    examples: { response: successExample },
    errors: [404],
    async handle({ params, caller }) {
      if (!(await unlinkOwnTelegramChat(caller.user.id, params.id))) throw notFound(`Telegram chat ${params.id}`);
      return { body: 'Success' };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/push/devices',
    operationId: 'registerPushDevice',
    tag: 'channels',
    summary: 'Register a mobile device for push notifications',
    description:
      'Registers the device token of the platform (fcm or apns) for your user; alerts of rules with toMobile reach it. Registering the same token again answers the device already registered. 400 naming `platform` when push is not configured for that platform.',
    auth: true,
    writes: false,
    body: pushDeviceBodySchema,
    response: pushDeviceResponseSchema,
    examples: { body: pushDeviceExample, response: pushDeviceAnswerExample },
    async handle({ body, caller }) {
      try {
        return { body: await registerPushDevice(caller.user.id, body.platform, body.token) };
      } catch (error) {
        if (error instanceof PushNotConfiguredError) throw validationError([{ path: 'platform', message: error.message }]);
        throw error;
      }
    },
  }),
];
