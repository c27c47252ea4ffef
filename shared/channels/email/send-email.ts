import { SendEmailCommand } from '@aws-sdk/client-sesv2';
import { sesClient } from '../../aws/ses';
import { describeError, type SendOutcome } from '../outcome';

export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Extra headers, such as List-Unsubscribe. */
  headers?: { name: string; value: string }[];
}

export const DEFAULT_FROM_ADDRESS = 'alerts@fleetwatch.local';

/** SES answers that no retry can change. */
const PERMANENT_ERRORS = new Set([
  'MessageRejected',
  'BadRequestException',
  'MailFromDomainNotVerifiedException',
  'NotFoundException',
  'ValidationException',
]);

/**
 * Sends one e-mail through SES v2. Anything else (throttling, paused sending, an outage) is worth another try.
 * Throttling (TooManyRequestsException, LimitExceededException) is already
 * retried with backoff by the SDK's standard retry strategy; what still fails after that is reported as
 * `retry`, so the delivery is attempted again later.
 */
export async function sendEmail(message: EmailMessage): Promise<SendOutcome> {
  try {
    await sesClient().send(
      new SendEmailCommand({
        FromEmailAddress: process.env.SES_FROM_ADDRESS || DEFAULT_FROM_ADDRESS,
        Destination: { ToAddresses: [message.to] },
        ConfigurationSetName: process.env.SES_CONFIGURATION_SET || undefined,
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
    const permanent = PERMANENT_ERRORS.has((error as Error).name);
    return permanent ? { status: 'failed', error: describeError(error) } : { status: 'retry', error: describeError(error) };
  }
}
