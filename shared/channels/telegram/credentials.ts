import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import * as z from 'zod';
import { readConfig, telegramSchema } from '../../config';

/** The Telegram secret in Secrets Manager (`TELEGRAM_SECRET_ID`): the bot token and the webhook's secret token. */
export const telegramSecretSchema = z.object({
  botToken: z.string().min(1),
  webhookSecret: z.string().min(1),
});
export type TelegramSecret = z.infer<typeof telegramSecretSchema>;

let cached: Promise<TelegramSecret> | undefined;

/** Reads the secret once per process (cold start); a failed read is not cached, so the next call tries again. */
export function telegramCredentials(): Promise<TelegramSecret> {
  cached ??= load().catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}

async function load(): Promise<TelegramSecret> {
  const secretId = readConfig(telegramSchema()).TELEGRAM_SECRET_ID;
  if (!secretId) throw new Error('TELEGRAM_SECRET_ID is not set');
  const value = await getSecret(secretId, { transform: 'json', maxAge: 24 * 3600 });
  const parsed = telegramSecretSchema.safeParse(value);
  // the issue list names fields only, never values: the secret must not reach a log
  if (!parsed.success)
    throw new Error(
      `Telegram secret ${secretId} is not {botToken, webhookSecret}: ${parsed.error.issues.map((issue) => issue.path.join('.')).join(', ')}`,
    );
  return parsed.data;
}

/** Forgets the cached secret (for tests that change it). */
export function forgetTelegramCredentials(): void {
  cached = undefined;
}
