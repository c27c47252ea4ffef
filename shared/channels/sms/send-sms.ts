import { loadSmsSdk, smsClient } from '../../aws/sms';
import type { SmsConfig } from '../../config';
import { describeError } from '../outcome';

export interface SmsMessage {
  to: string;
  body: string;
  /** The alert id (or `verification`), carried as `Context` so that the delivery events name what they report on. */
  context: Record<string, string>;
}

/**
 * What one send came to. `optedOut`: the number replied STOP (or an equivalent) and is on the service's opt-out
 * list; never retried. `failed`: refused for good (a bad number, a blocked country, over MaxPrice). `retry`: a
 * passing problem (throttling, an outage).
 */
export type SmsOutcome =
  | { status: 'sent'; messageId: string }
  | { status: 'optedOut'; error: string }
  | { status: 'failed'; error: string }
  | { status: 'retry'; error: string };

type SmsSettings = Pick<SmsConfig, 'SMS_ORIGINATION_IDENTITY' | 'SMS_CONFIGURATION_SET' | 'SMS_MAX_PRICE' | 'SMS_TTL_MINUTES'>;

const PERMANENT = new Set(['ValidationException', 'ResourceNotFoundException', 'AccessDeniedException', 'ServiceQuotaExceededException']);

/** Sends one transactional SMS from the deployment's origination identity and configuration set. */
export async function sendSms(message: SmsMessage, config: SmsSettings): Promise<SmsOutcome> {
  if (!config.SMS_ORIGINATION_IDENTITY) return { status: 'failed', error: 'SMS is not configured: no origination identity' };
  try {
    const { SendTextMessageCommand } = await loadSmsSdk();
    const answer = await (
      await smsClient()
    ).send(
      new SendTextMessageCommand({
        DestinationPhoneNumber: message.to,
        OriginationIdentity: config.SMS_ORIGINATION_IDENTITY,
        ConfigurationSetName: config.SMS_CONFIGURATION_SET,
        MessageBody: message.body,
        MessageType: 'TRANSACTIONAL',
        MaxPrice: config.SMS_MAX_PRICE,
        TimeToLive: config.SMS_TTL_MINUTES * 60,
        Context: message.context,
      }),
    );
    return { status: 'sent', messageId: answer.MessageId ?? '' };
  } catch (error) {
    return classify(error);
  }
}

function classify(error: unknown): SmsOutcome {
  const name = (error as { name?: string }).name ?? '';
  const reason = (error as { Reason?: string }).Reason;
  const words = describeError(error) + (reason ? ` (${reason})` : '');
  if (name === 'ConflictException' && reason === 'DESTINATION_PHONE_NUMBER_OPTED_OUT')
    return { status: 'optedOut', error: 'the number opted out of SMS (replied STOP or an equivalent)' };
  if (PERMANENT.has(name) || name === 'ConflictException') return { status: 'failed', error: words };
  return { status: 'retry', error: words };
}
