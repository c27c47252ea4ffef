import { PinpointSMSVoiceV2Client } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { cachedClient } from './client-cache';

/** AWS End User Messaging SMS; AWS_ENDPOINT_URL_PINPOINT_SMS_VOICE_V2 points it at the local SMS fake. */
export const smsClient = cachedClient(() => new PinpointSMSVoiceV2Client({}));
