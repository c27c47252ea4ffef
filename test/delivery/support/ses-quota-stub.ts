import type { SESv2Client } from '@aws-sdk/client-sesv2';

/**
 * No emulator has SES quotas: aws-ses-v2-local answers GetAccount from a fixed setting and counts nothing. This
 * stub answers GetAccount alone, in the real SES client's middleware stack, with the quota a test sets, and
 * counts the calls; it can also refuse SendEmail as SES does past the quota. Every other call goes on to
 * aws-ses-v2-local as before.
 */
export class SesQuotaStub {
  getAccountCalls = 0;
  quota = { Max24HourSend: 50_000, SentLast24Hours: 0, MaxSendRate: 14 };
  /** SendEmail calls to refuse as SES does past the daily quota (other instances may have spent it meanwhile). */
  refuseSends = 0;

  install(client: SESv2Client): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'SendEmailCommand' && this.refuseSends > 0) {
          this.refuseSends--;
          throw Object.assign(new Error('Daily message quota exceeded.'), { name: 'LimitExceededException', $metadata: { httpStatusCode: 400 } });
        }
        if (context.commandName !== 'GetAccountCommand') return next(args);
        this.getAccountCalls++;
        return { output: { SendQuota: { ...this.quota }, $metadata: {} }, response: {} };
      },
      { step: 'initialize', name: 'fleetwatchSesQuotaStub' },
    );
  }

  uninstall(client: SESv2Client): void {
    client.middlewareStack.remove('fleetwatchSesQuotaStub');
  }

  /** The account has sent `percent` of its 24-hour quota. */
  used(percent: number): void {
    this.quota = { ...this.quota, SentLast24Hours: Math.round((this.quota.Max24HourSend * percent) / 100) };
  }
}
