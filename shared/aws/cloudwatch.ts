import type * as CloudWatchSdkModule from '@aws-sdk/client-cloudwatch';
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { cachedClient } from './client-cache';

/** The CloudWatch calls the functions make. The SDK is loaded on first use: only the sweep reads metrics. */
type CloudWatchSdk = typeof CloudWatchSdkModule;
let sdk: Promise<CloudWatchSdk> | undefined;
const loadSdk = (): Promise<CloudWatchSdk> => (sdk ??= import('@aws-sdk/client-cloudwatch'));

const client = cachedClient(async (): Promise<CloudWatchClient> => new (await loadSdk()).CloudWatchClient({}));

export interface MetricQuery {
  namespace: string;
  metricName: string;
  dimensions: { Name: string; Value: string }[];
  /** Epoch ms: the window [now − lookbackMs, now] is read at one-minute resolution. */
  now: number;
  lookbackMs: number;
}

/** The Maximum of the most recent one-minute datapoint in the window, or null when there is none. */
export async function latestMetricMaximum(query: MetricQuery): Promise<number | null> {
  const output = await minuteStatistics(query, 'Maximum');
  let latest: { at: number; value: number } | null = null;
  for (const point of output.Datapoints ?? []) {
    if (point.Timestamp === undefined || point.Maximum === undefined) continue;
    const at = point.Timestamp.getTime();
    if (latest === null || at > latest.at) latest = { at, value: point.Maximum };
  }
  return latest?.value ?? null;
}

/** The Sum of each one-minute datapoint in the window, oldest first (minutes without a datapoint are left out). */
export async function metricMinuteSums(query: MetricQuery): Promise<{ at: number; value: number }[]> {
  const output = await minuteStatistics(query, 'Sum');
  return (output.Datapoints ?? [])
    .flatMap((point) => (point.Timestamp === undefined || point.Sum === undefined ? [] : [{ at: point.Timestamp.getTime(), value: point.Sum }]))
    .sort((a, b) => a.at - b.at);
}

/** One GetMetricStatistics request for the window at one-minute resolution. */
async function minuteStatistics(query: MetricQuery, statistic: 'Maximum' | 'Sum') {
  const { GetMetricStatisticsCommand } = await loadSdk();
  return (await client()).send(
    new GetMetricStatisticsCommand({
      Namespace: query.namespace,
      MetricName: query.metricName,
      Dimensions: query.dimensions,
      StartTime: new Date(query.now - query.lookbackMs),
      EndTime: new Date(query.now),
      Period: 60,
      Statistics: [statistic],
    }),
  );
}
