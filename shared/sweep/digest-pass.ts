import { digestIntervalMs } from '../delivery/digest-hold';
import { logger } from '../observability/logger';
import { dueDigests, postponeDueDigest, type DigestId } from '../store/email-digests';
import { enqueueDigests } from '../queues/enqueue-deliveries';

/**
 * Digests go to the deliveries queue once due: those of alert e-mails held while the SES quota was nearly used,
 * an interval after the first, and those of a user's quiet hours, when they end. Each is first made due again an
 * interval later (a conditional update, so overlapping sweeps enqueue it once): if its request is lost, or the
 * quota is still spent when the deliver function takes it, the next interval hands it back again, until it has
 * gone out.
 */
export async function runDigestPass(now: number, intervalMs: number = digestIntervalMs()): Promise<number> {
  const claimed: DigestId[] = [];
  for (const digest of await dueDigests(now)) {
    if (await postponeDueDigest(digest, now + intervalMs)) claimed.push(digest.id);
  }
  const enqueued = await enqueueDigests(claimed);
  if (enqueued > 0) logger.info('e-mail digests enqueued', { count: enqueued });
  return enqueued;
}
