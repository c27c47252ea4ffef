import type * as SesSdkModule from '@aws-sdk/client-sesv2';
import type { SESv2Client } from '@aws-sdk/client-sesv2';
import { cachedClient } from './client-cache';

/**
 * SES (v2). The SDK is loaded on first use, not at cold start: it is the largest client the deliver function
 * has, and a container that delivers no e-mail (Telegram, webhooks, push, SMS, or a batch held by quiet hours)
 * never needs it.
 */
type SesSdk = typeof SesSdkModule;
let sdk: Promise<SesSdk> | undefined;
export const loadSesSdk = (): Promise<SesSdk> => (sdk ??= import('@aws-sdk/client-sesv2'));

export const sesClient = cachedClient(async (): Promise<SESv2Client> => new (await loadSesSdk()).SESv2Client({}));
