import type * as SmsSdkModule from '@aws-sdk/client-pinpoint-sms-voice-v2';
import type { PinpointSMSVoiceV2Client } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { cachedClient } from './client-cache';

/**
 * AWS End User Messaging SMS; AWS_ENDPOINT_URL_PINPOINT_SMS_VOICE_V2 points it at the local SMS fake. The SDK is
 * loaded on first use, not at cold start: SMS is the rarest channel, and the API sends only verification codes.
 */
type SmsSdk = typeof SmsSdkModule;
let sdk: Promise<SmsSdk> | undefined;
export const loadSmsSdk = (): Promise<SmsSdk> => (sdk ??= import('@aws-sdk/client-pinpoint-sms-voice-v2'));

export const smsClient = cachedClient(async (): Promise<PinpointSMSVoiceV2Client> => new (await loadSmsSdk()).PinpointSMSVoiceV2Client({}));
