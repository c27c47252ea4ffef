import { pollOnce, type SqsHandler } from '../../infra/local/sqs-poller';

export interface PollUntilEmptyOptions {
  /** The function the queue feeds, as its context and logs name it. */
  functionName: string;
  /** At most this many receives. */
  rounds?: number;
  /** Throw when `rounds` receives did not find the queue empty, instead of returning what was taken. */
  mustEmpty?: boolean;
}

/**
 * Hands a queue to a function as Lambda's event source mapping does, receive after receive, until a receive finds
 * it empty or `rounds` receives were made. Returns the records taken. Without vitest, so that benches may use it.
 */
export async function pollUntilEmpty(queueUrl: string, handler: SqsHandler, options: PollUntilEmptyOptions): Promise<number> {
  const { functionName, rounds = 1_000, mustEmpty = false } = options;
  let taken = 0;
  for (let round = 0; round < rounds; round++) {
    const polled = await pollOnce({ queueUrl, handler, functionName, visibilityTimeoutSeconds: 0 });
    if (polled === 0) return taken;
    taken += polled;
  }
  if (mustEmpty) throw new Error(`${functionName}: the queue is not drained after ${rounds} receives`);
  return taken;
}
