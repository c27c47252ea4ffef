import { metricMinuteSums } from '../aws/cloudwatch';
import { resourcesConfig } from '../config';

/**
 * How many terminal messages the platform sends: the input queue's NumberOfMessagesSent, a free SQS metric,
 * read from CloudWatch per minute. It shows a platform-wide feed outage for what it is (the rate drops to
 * about nothing while the fleet's deadlines fall due), where evaluate being behind shows as a backlog instead
 * (backlog-hold.ts). Where no queue is configured for it (the local runtime) there is no reading.
 */
export type FeedReading =
  /** Messages sent in the newest minute, and in the busiest minute of the look-back window. */
  { kind: 'measured'; lastMinute: number; busiestMinute: number } | { kind: 'unavailable'; reason: string } | { kind: 'unmonitored' };

/** How far back the busiest minute is looked for; a feed silent for all of it reads 0 there too, still a drop to nothing. */
const LOOKBACK_MS = 15 * 60_000;

export async function readFeedRate(now: number, queueName: string = resourcesConfig().INPUT_QUEUE_NAME): Promise<FeedReading> {
  if (queueName === '') return { kind: 'unmonitored' };
  try {
    const sums = await metricMinuteSums({
      namespace: 'AWS/SQS',
      metricName: 'NumberOfMessagesSent',
      dimensions: [{ Name: 'QueueName', Value: queueName }],
      now,
      lookbackMs: LOOKBACK_MS,
    });
    const last = sums.at(-1);
    if (last === undefined) return { kind: 'unavailable', reason: `no NumberOfMessagesSent datapoint for ${queueName} in the last 15 minutes` };
    return { kind: 'measured', lastMinute: last.value, busiestMinute: Math.max(...sums.map((sum) => sum.value)) };
  } catch (error) {
    return { kind: 'unavailable', reason: `reading NumberOfMessagesSent failed: ${(error as Error).message}` };
  }
}
