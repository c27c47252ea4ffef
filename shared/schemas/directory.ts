import * as z from 'zod';
import { guidSchema } from './notification';
import { languageSchema } from './language';
import { userPreferencesSchema } from './preferences';

/** Records of the directory table; their keys are in shared/store/keys.ts. */

export { LANGUAGES, languageSchema, type Language } from './language';

export const agentSchema = z.object({
  agentId: guidSchema,
  parentId: guidSchema.nullable(),
  name: z.string().min(1).max(200),
  fullName: z.string().max(500).default(''),
  agentInfoType: z.number().int().min(0).max(5).default(0),
  status: z.union([z.literal(0), z.literal(1)]).default(1),
});
export type Agent = z.infer<typeof agentSchema>;

export const telegramChatSchema = z.object({
  chatId: z.string().min(1),
  username: z.string().default(''),
  /** false once the chat blocked the bot (403): no further sends. */
  active: z.boolean().default(true),
  /** The forum topic of a group the chat was linked from (`/start` sent in that topic): alerts go to that thread. */
  threadId: z.number().int().min(1).optional(),
  linkedAt: z.iso.datetime({ offset: true }),
});
export type TelegramChat = z.infer<typeof telegramChatSchema>;

export const pushDeviceSchema = z.object({
  platform: z.enum(['fcm', 'apns']),
  /** SNS platform endpoint ARN. */
  endpointArn: z.string().min(1),
  registeredAt: z.iso.datetime({ offset: true }),
});
export type PushDevice = z.infer<typeof pushDeviceSchema>;

/**
 * A map of entries keyed by their id. Users stored before the maps were introduced hold lists; they are read
 * as maps and rewritten as maps on their next change.
 */
function keyedBy<T extends z.ZodType>(entry: T, key: string) {
  return z.preprocess(
    (value) =>
      value === undefined || value === null
        ? {}
        : Array.isArray(value)
          ? Object.fromEntries(value.map((item: Record<string, unknown>) => [String(item[key]), item]))
          : value,
    z.record(z.string(), entry),
  );
}

/**
 * A user as stored. The password hash is not part of it: it lives on the login's guard item
 * (`LOGIN#<login>` / `LOGIN`), which only the API reads, so functions that read users to deliver alerts never
 * see it (their IAM policy does not reach `LOGIN#` keys).
 */
export const storedUserSchema = z.object({
  id: guidSchema,
  login: z.string().min(1).max(100),
  email: z.email(),
  parentId: guidSchema,
  firstName: z.string().default(''),
  lastName: z.string().default(''),
  language: languageSchema.default(2),
  isReadOnly: z.boolean().default(false),
  isEnabled: z.boolean().default(true),
  /** Minutes; null means the platform default of 30. */
  sessionDuration: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 60)
    .nullable()
    .default(null),
  /** E.164; alerts go to it by SMS only once `phoneVerifiedAt` is set (shared/store/phone-verification.ts). */
  phoneNumber: z.string().nullable().default(null),
  /** When the owner confirmed the number with the code sent to it; cleared when the number changes. */
  phoneVerifiedAt: z.iso.datetime({ offset: true }).nullable().default(null),
  /** Linked chats by chat id. */
  telegramChats: keyedBy(telegramChatSchema, 'chatId'),
  /** Registered devices by SNS endpoint ARN. */
  pushDevices: keyedBy(pushDeviceSchema, 'endpointArn'),
  /**
   * Quiet hours and each channel's least severity (shared/schemas/preferences.ts); absent until first set. One
   * that no longer parses (a time zone the runtime dropped) reads as absent rather than losing the user.
   */
  preferences: userPreferencesSchema.optional().catch(undefined),
});
export type StoredUser = z.infer<typeof storedUserSchema>;

export const vehicleProfileSchema = z.object({
  vehicleId: z.number().int().min(1),
  name: z.string().min(1).max(200),
  parentId: guidSchema,
});
export type VehicleProfile = z.infer<typeof vehicleProfileSchema>;
