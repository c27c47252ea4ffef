import { logger } from '../observability/logger';
import { dueConfirmationWaits, forgetConfirmationWait, type ConfirmationWait } from '../store/sender-guard';
import { enqueueConfirmations } from '../queues/enqueue-deliveries';

/**
 * Confirmation links that waited for their client's daily budget go back on the deliveries queue once the day
 * they wait for has begun (one query of that day's waits). The deliver function takes them from the new day's
 * budget; what is still past it waits for the next day. A wait is forgotten only once it is enqueued.
 */
export async function runConfirmationWaitPass(now: number): Promise<number> {
  const waits = await dueConfirmationWaits(now);
  const byClient = new Map<string, ConfirmationWait[]>();
  for (const wait of waits) byClient.set(wait.clientId, [...(byClient.get(wait.clientId) ?? []), wait]);
  let enqueued = 0;
  for (const [clientId, ofClient] of byClient) {
    const sent = await enqueueConfirmations(
      clientId,
      ofClient.map((wait) => wait.address),
    );
    for (const wait of ofClient.filter((candidate) => sent.has(candidate.address))) {
      await forgetConfirmationWait(wait);
      enqueued++;
    }
  }
  if (enqueued > 0) logger.info('confirmations that waited for the daily budget enqueued again', { count: enqueued });
  return enqueued;
}
