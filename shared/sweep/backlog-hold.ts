import { latestMetricMaximum } from '../aws/cloudwatch';
import { resourcesConfig } from '../config';

/**
 * Connection loss is judged from what evaluate has stored. When evaluate is down or behind, a vehicle that
 * is still reporting looks silent: its messages wait in the input queue. A silence is only certain up to the
 * moment the queue's oldest waiting message was sent, so the sweep judges connection loss as of then, and
 * holds every alert a later moment would raise until the queue catches up.
 *
 * The signal is the input queue's ApproximateAgeOfOldestMessage. SQS publishes it only as a CloudWatch metric
 * (GetQueueAttributes has no such attribute, and neither has the local emulator), so on AWS it is read from
 * CloudWatch; where no queue is configured for it (the local runtime) there is no signal and nothing is held.
 */
export type InputBacklog =
  /** The oldest message waiting in the input queue, in ms (0 when the queue is empty). */
  | { kind: 'measured'; oldestMessageAgeMs: number }
  /** The signal is configured but could not be read: how far behind evaluate is, is unknown. */
  | { kind: 'unavailable'; reason: string }
  /** No signal is configured. */
  | { kind: 'unmonitored' };

/**
 * The latest moment (epoch ms) up to which a vehicle's silence is certain, or null when nothing can be
 * certain (the backlog is unknown): then every connection-loss alert is held. Pure.
 */
export function silenceCertainAsOf(now: number, backlog: InputBacklog): number | null {
  switch (backlog.kind) {
    case 'measured':
      return now - Math.max(0, backlog.oldestMessageAgeMs);
    case 'unavailable':
      return null;
    case 'unmonitored':
      return now;
  }
}

/** How far back CloudWatch is asked for the newest datapoint (its SQS metrics arrive a few minutes late). */
const METRIC_LOOKBACK_MS = 5 * 60_000;

/** Reads the input queue's ApproximateAgeOfOldestMessage from CloudWatch (the queue named by INPUT_QUEUE_NAME). */
export async function readInputBacklog(now: number, queueName: string = resourcesConfig().INPUT_QUEUE_NAME): Promise<InputBacklog> {
  if (queueName === '') return { kind: 'unmonitored' };
  try {
    const seconds = await latestMetricMaximum({
      namespace: 'AWS/SQS',
      metricName: 'ApproximateAgeOfOldestMessage',
      dimensions: [{ Name: 'QueueName', Value: queueName }],
      now,
      lookbackMs: METRIC_LOOKBACK_MS,
    });
    if (seconds === null) return { kind: 'unavailable', reason: `no ApproximateAgeOfOldestMessage datapoint for ${queueName} in the last 5 minutes` };
    return { kind: 'measured', oldestMessageAgeMs: seconds * 1000 };
  } catch (error) {
    return { kind: 'unavailable', reason: `reading ApproximateAgeOfOldestMessage failed: ${(error as Error).message}` };
  }
}
