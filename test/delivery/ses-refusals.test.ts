import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { SendEmailCommand, SESv2Client, SESv2ServiceException } from '@aws-sdk/client-sesv2';
import { sendEmail } from '../../shared/channels/email/send-email';

/**
 * SES refusals that aws-ses-v2-local cannot produce (it has no IAM, no sandbox and no quota), so SES is mocked
 * here with aws-sdk-client-mock: what matters is how each refusal is judged, permanent or worth a retry.
 */
const ses = mockClient(SESv2Client);
const refusal = (name: string, message: string) => new SESv2ServiceException({ name, message, $fault: 'client', $metadata: { httpStatusCode: 400 } });
const message = { to: 'ops@fleet.example', subject: 'Panic', text: 'Panic', html: '<p>Panic</p>' };

describe('SES refusals', () => {
  afterAll(() => {
    // the SDK classes outlive this file in its worker (isolate: false): a stub left on one would answer the next file
    ses.restore();
  });
  beforeEach(() => {
    ses.reset();
    vi.stubEnv('AWS_REGION', 'eu-central-1');
    vi.stubEnv('SES_FROM_ADDRESS', 'alerts@fleet.example');
  });
  afterEach(() => vi.unstubAllEnvs());

  it('fails an IAM denial for good, in words, instead of retrying it to the DLQ', async () => {
    ses
      .on(SendEmailCommand)
      .rejects(
        refusal(
          'AccessDeniedException',
          'User: arn:aws:sts::1:assumed-role/deliver is not authorized to perform: ses:SendEmail on resource: arn:aws:ses:eu-central-1:1:identity/ops@fleet.example',
        ),
      );
    const outcome = await sendEmail(message);
    expect(outcome.status).toBe('failed');
    expect(outcome.status === 'failed' && outcome.error).toMatch(/^SES refused the send for lack of permission: in the SES sandbox/);
    expect(outcome.status === 'failed' && outcome.error).toContain('AccessDeniedException: User: arn:aws:sts');
  });

  it("fails the sandbox's refusal of an unverified recipient for good, saying how to verify it", async () => {
    ses
      .on(SendEmailCommand)
      .rejects(refusal('MessageRejected', 'Email address is not verified. The following identities failed the check: ops@fleet.example'));
    const outcome = await sendEmail(message);
    expect(outcome).toEqual({
      status: 'failed',
      error: expect.stringMatching(
        /recipient must be a verified address \(aws sesv2 create-email-identity\) \(MessageRejected: Email address is not verified/,
      ),
    });
  });

  it('retries throttling and an outage, and says when the daily quota is spent', async () => {
    ses.on(SendEmailCommand).rejects(refusal('TooManyRequestsException', 'Maximum sending rate exceeded.'));
    expect(await sendEmail(message)).toMatchObject({ status: 'retry', error: 'TooManyRequestsException: Maximum sending rate exceeded.' });
    ses.on(SendEmailCommand).rejects(refusal('LimitExceededException', 'Daily message quota exceeded.'));
    expect(await sendEmail(message)).toMatchObject({ status: 'retry', overQuota: true });
  });
});
