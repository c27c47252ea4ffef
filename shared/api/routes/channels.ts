import { PushNotConfiguredError, registerPushDevice } from '../../channels/push/register';
import { issueLinkCode } from '../../store/telegram-links';
import { validationError } from '../errors';
import { defineRoute } from '../route';
import { pushDeviceBodySchema, pushDeviceResponseSchema, telegramLinkResponseSchema } from '../schemas';
import { pushDeviceAnswerExample, pushDeviceExample, telegramLinkAnswerExample } from '../examples';
import { readConfig, telegramSchema } from '../../config';

/** Where the logged-in user receives alerts. These change only the user's own profile, so read-only users may use them. */
export const channelRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v3/telegram/link',
    tag: 'channels',
    summary: 'Get a single-use link that connects a Telegram chat to your user',
    description: 'Open the link (or send /start <code> to the bot) within 15 minutes.',
    auth: true,
    writes: false,
    response: telegramLinkResponseSchema,
    examples: { response: telegramLinkAnswerExample },
    async handle({ caller, now }) {
      if (!readConfig(telegramSchema).TELEGRAM_BOT_USERNAME) {
        throw validationError([{ path: '', message: 'Telegram is not configured on this installation: there is no bot to link a chat to.' }]);
      }
      const { code, expiresAt, link } = await issueLinkCode(caller.user.id, now);
      return { body: { code, link, expiresAt } };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/push/devices',
    tag: 'channels',
    summary: 'Register a mobile device for push notifications',
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
