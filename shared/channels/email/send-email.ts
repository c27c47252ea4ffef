import { loadSesSdk, sesClient } from '../../aws/ses';
import { describeError, type SendOutcome } from '../outcome';
import { describeSesRefusal, isPermanentSesError } from './failure-words';
import { emailSchema, readConfig } from '../../config';

export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Extra headers, such as List-Unsubscribe. */
  headers?: { name: string; value: string }[];
  /** SES message tags, returned in the SES events of the e-mail (bounces, complaints). */
  tags?: { name: string; value: string }[];
}

export { DEFAULT_FROM_ADDRESS } from '../../config';

/** SES's words for an e-mail refused over the account's 24-hour quota (whatever the error's name). */
const OVER_QUOTA = /daily message quota exceeded/i;

/**
 * Sends one e-mail through SES v2. A refusal no retry can change (an IAM denial, the sandbox's unverified
 * recipient, an unverified sender) fails the target for good, with the reason in words. Anything else (throttling, paused sending, an outage) is worth another try.
 * Throttling (TooManyRequestsException, LimitExceededException) is already
 * retried with backoff by the SDK's standard retry strategy; what still fails after that is reported as
 * `retry`, so the delivery is attempted again later; one refused over the daily quota says so (`overQuota`).
 */
export async function sendEmail(message: EmailMessage): Promise<SendOutcome> {
  try {
    const { SES_FROM_ADDRESS, SES_CONFIGURATION_SET } = readConfig(emailSchema());
    const { SendEmailCommand } = await loadSesSdk();
    await (
      await sesClient()
    ).send(
      new SendEmailCommand({
        FromEmailAddress: SES_FROM_ADDRESS,
        Destination: { ToAddresses: [message.to] },
        ConfigurationSetName: SES_CONFIGURATION_SET,
        ...(message.tags?.length ? { EmailTags: message.tags.map((tag) => ({ Name: tag.name, Value: tag.value })) } : {}),
        Content: {
          Simple: {
            Subject: { Data: message.subject, Charset: 'UTF-8' },
            ...(message.headers?.length ? { Headers: message.headers.map((header) => ({ Name: header.name, Value: header.value })) } : {}),
            Body: {
              Text: { Data: message.text, Charset: 'UTF-8' },
              Html: { Data: message.html, Charset: 'UTF-8' },
            },
          },
        },
      }),
    );
    return { status: 'sent' };
  } catch (error) {
    if (isPermanentSesError(error)) return { status: 'failed', error: describeSesRefusal(error) };
    return { status: 'retry', error: describeError(error), ...(OVER_QUOTA.test((error as Error).message) ? { overQuota: true } : {}) };
  }
}
