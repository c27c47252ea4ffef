import { logger } from '../observability/logger';
import type { DeliveryStatus } from '../schemas/alert';
import { sendQuota } from '../channels/email/send-quota';
import { describeError, type SendOutcome } from '../channels/outcome';
import { markTelegramChatInactive } from '../store/telegram-links';
import { claimDigest, heldEmails, releaseDigest, settleDigest, type Digest, type DigestId, type HeldEmail } from '../store/email-digests';
import { recordDigestOutcome } from '../store/alerts/alert-store';
import type { DeliveryStats } from './delivery-stats';
import { digestIntervalMs } from './digest-hold';
import { renderDigest, renderQuietHoursTelegram } from './render';
import type { ChannelSenders } from './senders';

/** How long one sender holds a digest; longer than the deliver function's timeout. */
const DIGEST_LEASE_MS = 5 * 60_000;
/**
 * Alerts one digest lists at most; the rest go in the next one, at the next sweep. A Telegram digest lists one
 * line per alert, and Telegram takes 4,096 characters a message.
 */
const MAX_ALERTS_PER_DIGEST = { email: 200, telegram: 50 } as const;

/**
 * - sent: the digest went out, and each alert it listed is recorded `sent`;
 * - failed: SES refused the address, or Telegram the chat, for good; each alert is recorded `failed` with the reason;
 * - waiting: the quota is spent, or the channel had a passing problem; the digest is due again an interval later;
 * - none: nothing to send (no digest, an empty one, or another sender has it).
 */
export type DigestResult = 'sent' | 'failed' | 'waiting' | 'none';

/** Who a digest's log lines are about: the client and never the address, or the user. */
const whose = (id: DigestId) => (id.kind === 'quota' ? { clientId: id.clientId } : { userId: id.userId, digest: id.kind });

/**
 * Sends a digest: one e-mail (or Telegram message) listing the alerts held for it, in the order they were held,
 * written in the language of its first. An e-mail digest never goes while the account's quota is spent: then
 * nothing is lost, the digest waits (the sweep hands it back each interval) until SES's rolling 24 hours free
 * room again.
 */
export async function sendDigest(id: DigestId, senders: ChannelSenders, stats: DeliveryStats, now: number): Promise<DigestResult> {
  const digest = await claimDigest(id, now, DIGEST_LEASE_MS);
  if (!digest) return 'none';
  const later = now + digestIntervalMs();
  const channel = digest.destination.channel;
  try {
    if (channel === 'email' && (await sendQuota.mode(now)) === 'exhausted') {
      await releaseDigest(id, later);
      logger.info("digest waits: the account's SES daily quota is spent", { ...whose(id), nextAttemptAt: new Date(later).toISOString() });
      return 'waiting';
    }
    const held = await heldEmails(id);
    const listed = held.slice(0, MAX_ALERTS_PER_DIGEST[channel]);
    if (listed.length === 0) {
      await settleDigest(id, [], later);
      return 'none';
    }
    const outcome = await sendListed(digest, listed, senders);
    if (outcome.status === 'retry') {
      await releaseDigest(id, later);
      logger.warn(`digest not sent: ${outcome.error}; tried again later`, { ...whose(id), channel, nextAttemptAt: new Date(later).toISOString() });
      return 'waiting';
    }
    const at = new Date(now).toISOString();
    const reason = id.kind === 'quietHours' ? ({ reason: 'quietHours' } as const) : {};
    const status: DeliveryStatus =
      outcome.status === 'sent'
        ? { status: 'sent', at, attempts: 1, ...reason }
        : { status: 'failed', at, attempts: 1, error: outcome.error, ...reason };
    if (outcome.status === 'sent') stats.countSent(channel);
    else {
      stats.countFailed(channel);
      logger.warn(`digest failed for good: ${outcome.error}`, { ...whose(id), channel, alerts: listed.length });
      if (outcome.gone) await forgetChat(digest, outcome.error);
    }
    for (const email of listed) await recordDigestOutcome(email.alertId, email.targetKey, status);
    // what did not fit in this digest goes in the next one, at the next sweep
    await settleDigest(id, listed, held.length > listed.length ? now : later);
    return outcome.status;
  } catch (error) {
    await releaseDigest(id, now).catch(() => undefined);
    throw error;
  }
}

/** Sends the digest on its channel; a throw is a passing problem. */
async function sendListed(digest: Digest, listed: readonly HeldEmail[], senders: ChannelSenders): Promise<SendOutcome> {
  try {
    if (digest.destination.channel === 'telegram') {
      return await senders.telegram(digest.destination.chatId, renderQuietHoursTelegram(digest.language, listed));
    }
    const rendered = renderDigest(digest.language, listed, digest.id.kind === 'quietHours' ? 'quietHoursDigest' : 'emailDigest');
    return await senders.email({ to: digest.destination.address, subject: rendered.subject, text: rendered.text, html: rendered.html });
  } catch (error) {
    return { status: 'retry', error: describeError(error) };
  }
}

/** A chat that blocked the bot is marked inactive, as a single alert's message would have it. */
async function forgetChat(digest: Digest, reason: string): Promise<void> {
  if (digest.destination.channel !== 'telegram' || digest.id.kind !== 'quietHours') return;
  try {
    await markTelegramChatInactive(digest.id.userId, digest.destination.chatId);
  } catch (error) {
    logger.warn('could not mark a blocked chat inactive', { userId: digest.id.userId, reason, error: describeError(error) });
  }
}
