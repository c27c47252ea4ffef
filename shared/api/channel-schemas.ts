import * as z from 'zod';
import { pushDeviceSchema, telegramChatSchema } from '../schemas/directory';
import { strictBody } from './strict-body';

/** A user's Telegram links and chats, and push devices. */
export const telegramLinkResponseSchema = z.object({
  code: z.string(),
  link: z.string().nullable().describe('https://t.me/<bot>?start=<code>; null when no bot username is configured'),
  expiresAt: z.iso.datetime(),
});

export const telegramChatListSchema = z.array(telegramChatSchema).describe('the Telegram chats linked to your user, oldest first');

export const telegramChatParamsSchema = z.object({
  id: z
    .string()
    .regex(/^-?\d{1,20}$/, 'must be a Telegram chat id')
    .describe('the chat id, as GET /api/v3/telegram/chats lists it'),
});

export const pushDeviceBodySchema = strictBody({
  platform: z.enum(['fcm', 'apns']),
  token: z.string().min(1).max(4_096),
});

export const pushDeviceResponseSchema = pushDeviceSchema;
