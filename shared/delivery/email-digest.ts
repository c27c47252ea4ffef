import { logger } from '../observability/logger';
import type { DeliveryStatus } from '../schemas/alert';
import { sendQuota } from '../channels/email/send-quota';
import { claimDigest, heldEmails, releaseDigest, settleDigest } from '../store/email-digests';
import { recordDigestOutcome } from './alert-store';
import type { DeliveryStats } from './delivery-stats';
import { digestIntervalMs } from './digest-hold';
import { renderDigest } from './render';
import type { ChannelSenders } from './senders';

/** How long one sender holds a digest; longer than the deliver function's timeout. */
const DIGEST_LEASE_MS = 5 * 60_000;
/** Alerts one digest e-mail lists at most; the rest go in the next one, at the next sweep. */
const MAX_ALERTS_PER_DIGEST = 200;

/**
 * - sent: the digest went out, and each alert it listed is recorded `sent`;
 * - failed: SES refused the address for good; each alert is recorded `failed` with the reason;
 * - waiting: the quota is spent, or SES had a passing problem; the digest is due again an interval later;
 * - none: nothing to send (no digest, an empty one, or another sender has it).
 */
export type DigestResult = 'sent' | 'failed' | 'waiting' | 'none';

/**
 * Sends a recipient's digest: one e-mail listing the alerts held for it, in the order they were held, written
 * in the language of its first. Never while the account's quota is spent: then nothing is lost, the digest
 * waits (the sweep hands it back each interval) until SES's rolling 24 hours free room again.
 */
export async function sendDigest(
  clientId: string,
  address: string,
  senders: ChannelSenders,
  stats: DeliveryStats,
  now: number,
): Promise<DigestResult> {
  const digest = await claimDigest(clientId, address, now, DIGEST_LEASE_MS);
  if (!digest) return 'none';
  const later = now + digestIntervalMs();
  try {
    if ((await sendQuota.mode(now)) === 'exhausted') {
      await releaseDigest(clientId, address, later);
      logger.info("digest waits: the account's SES daily quota is spent", { clientId, nextAttemptAt: new Date(later).toISOString() });
      return 'waiting';
    }
    const held = await heldEmails(clientId, address);
    const listed = held.slice(0, MAX_ALERTS_PER_DIGEST);
    if (listed.length === 0) {
      await settleDigest(clientId, address, [], later);
      return 'none';
    }
    const rendered = renderDigest(digest.language, listed);
    const outcome = await senders.email({ to: digest.address, subject: rendered.subject, text: rendered.text, html: rendered.html });
    if (outcome.status === 'retry') {
      await releaseDigest(clientId, address, later);
      logger.warn(`digest not sent: ${outcome.error}; tried again later`, { clientId, nextAttemptAt: new Date(later).toISOString() });
      return 'waiting';
    }
    const at = new Date(now).toISOString();
    const status: DeliveryStatus =
      outcome.status === 'sent' ? { status: 'sent', at, attempts: 1 } : { status: 'failed', at, attempts: 1, error: outcome.error };
    if (outcome.status === 'sent') stats.countSent('email');
    else {
      stats.countFailed('email');
      logger.warn(`digest failed for good: ${outcome.error}`, { clientId, alerts: listed.length });
    }
    for (const email of listed) await recordDigestOutcome(email.alertId, email.targetKey, status);
    // what did not fit in this digest goes in the next one, at the next sweep
    await settleDigest(clientId, address, listed, held.length > listed.length ? now : later);
    return outcome.status;
  } catch (error) {
    await releaseDigest(clientId, address, now).catch(() => undefined);
    throw error;
  }
}
