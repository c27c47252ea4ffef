import type * as SnsSdkModule from '@aws-sdk/client-sns';
import type { SNSClient } from '@aws-sdk/client-sns';
import { cachedClient } from './client-cache';

/**
 * SNS (mobile push). The SDK is loaded on first use, not at cold start: the API needs it only to register a
 * device, and a deliver container only for an alert that goes to a phone.
 */
type SnsSdk = typeof SnsSdkModule;
let sdk: Promise<SnsSdk> | undefined;
export const loadSnsSdk = (): Promise<SnsSdk> => (sdk ??= import('@aws-sdk/client-sns'));

export const snsClient = cachedClient(async (): Promise<SNSClient> => new (await loadSnsSdk()).SNSClient({}));
