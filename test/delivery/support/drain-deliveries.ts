import { pollOnce, type SqsHandler } from '../../../infra/local/sqs-poller';

/**
 * Hands the deliveries queue to the deliver handler as Lambda's mapping does, receive after receive, until a
 * receive finds it empty or `rounds` receives were made. Returns the records taken.
 */
export async function drainDeliveries(queueUrl: string, handler: SqsHandler, rounds = 1_000): Promise<number> {
  let taken = 0;
  for (let round = 0; round < rounds; round++) {
    const polled = await pollOnce({ queueUrl, handler, functionName: 'deliver', visibilityTimeoutSeconds: 0 });
    if (polled === 0) return taken;
    taken += polled;
  }
  return taken;
}
