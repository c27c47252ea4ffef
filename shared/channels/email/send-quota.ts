import * as z from 'zod';
import { loadSesSdk, sesClient } from '../../aws/ses';
import { emailQuotaSchema, readConfig } from '../../config';
import { logger } from '../../observability/logger';
import { MetricName, MetricUnit, metrics } from '../../observability/metrics';
import { describeError } from '../outcome';

/** The account's SES sending quota, as SESv2 GetAccount answers it. Max24HourSend -1 means unlimited. */
const sendQuotaSchema = z.object({
  Max24HourSend: z.number(),
  SentLast24Hours: z.number().min(0),
  MaxSendRate: z.number(),
});
export type SendQuota = z.infer<typeof sendQuotaSchema>;

export async function readSendQuota(): Promise<SendQuota> {
  const { GetAccountCommand } = await loadSesSdk();
  const { SendQuota } = await (await sesClient()).send(new GetAccountCommand({}));
  return sendQuotaSchema.parse(SendQuota);
}

/**
 * What the quota allows now:
 * - one-by-one: e-mails go out one by one;
 * - digest: the used share reached EMAIL_DIGEST_AT_PERCENT; alert e-mails wait for their recipient's digest;
 * - exhausted: nothing more may go out today; digests wait too.
 * While the quota cannot be read, e-mails go out one by one, as they would without this check.
 */
export type QuotaMode = 'one-by-one' | 'digest' | 'exhausted';

interface Reading {
  /** Epoch ms of the read (or the failed read). */
  at: number;
  quota: SendQuota | null;
  /** E-mails this instance sent since the read. */
  sentSince: number;
}

/**
 * The account's remaining 24-hour quota, read with GetAccount at most once per SES_QUOTA_CACHE_SECONDS and counted forward with
 * this instance's own sends in between. Other instances' sends show up at the next read; the digest threshold
 * leaves room for them.
 */
export class SendQuotaGauge {
  private reading: Reading | null = null;
  private pending: Promise<Reading> | null = null;

  async mode(now: number): Promise<QuotaMode> {
    const reading = await this.current(now);
    if (!reading.quota || reading.quota.Max24HourSend < 0) return 'one-by-one';
    const used = reading.quota.SentLast24Hours + reading.sentSince;
    if (used >= reading.quota.Max24HourSend) return 'exhausted';
    return (used / reading.quota.Max24HourSend) * 100 >= settings().digestAtPercent ? 'digest' : 'one-by-one';
  }

  /** One e-mail went out from this instance. */
  countSent(): void {
    if (this.reading) this.reading.sentSince++;
  }

  /** SES refused an e-mail over the daily quota: nothing more goes out until the next read says otherwise. */
  markExhausted(): void {
    if (this.reading?.quota) this.reading.sentSince = Math.max(this.reading.sentSince, this.reading.quota.Max24HourSend);
  }

  /** Forgets the last read, so that the next one asks SES (each test case starts afresh). */
  reset(): void {
    this.reading = null;
    this.pending = null;
  }

  private async current(now: number): Promise<Reading> {
    if (this.reading && now - this.reading.at < settings().ttlMs && now >= this.reading.at) return this.reading;
    // concurrent sends of one invocation share one read
    this.pending ??= this.refresh(now).finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private async refresh(now: number): Promise<Reading> {
    let quota: SendQuota | null = null;
    try {
      quota = await readSendQuota();
      if (quota.Max24HourSend > 0) {
        metrics.addMetric(MetricName.SesQuotaUsedPercent, MetricUnit.Percent, (quota.SentLast24Hours / quota.Max24HourSend) * 100);
      }
    } catch (error) {
      // a failed read is remembered as long as a good one, so a broken GetAccount costs one call per interval
      logger.warn('the SES sending quota could not be read; e-mails go out one by one', { error: describeError(error) });
    }
    this.reading = { at: now, quota, sentSince: 0 };
    return this.reading;
  }
}

function settings(): { ttlMs: number; digestAtPercent: number } {
  const config = readConfig(emailQuotaSchema());
  return { ttlMs: config.SES_QUOTA_CACHE_SECONDS * 1000, digestAtPercent: config.EMAIL_DIGEST_AT_PERCENT };
}

/** The process's gauge, shared by every e-mail it sends. */
export const sendQuota = new SendQuotaGauge();
