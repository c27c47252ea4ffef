import { digestIntervalMs } from '../../delivery/digest-hold';
import { logger } from '../../observability/logger';
import { dueDigests, postponeDueDigest } from '../../store/email-digests';
import { enqueueDigests } from '../enqueue-deliveries';

/**
 * Digests of alert e-mails held while the SES quota was nearly used go to the deliveries queue once due. Each
 * is first made due again an interval later (a conditional update, so overlapping sweeps enqueue it once): if
 * its request is lost, or the quota is still spent when the deliver function takes it, the next interval
 * hands it back again, until it has gone out.
 */
export async function runDigestPass(now: number, intervalMs: number = digestIntervalMs()): Promise<number> {
  const claimed = [];
  for (const digest of await dueDigests(now)) {
    if (await postponeDueDigest(digest, now + intervalMs)) claimed.push({ clientId: digest.clientId, address: digest.address });
  }
  const enqueued = await enqueueDigests(claimed);
  if (enqueued > 0) logger.info('e-mail digests enqueued', { count: enqueued });
  return enqueued;
}
