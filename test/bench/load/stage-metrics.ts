import { readFileSync, readdirSync } from 'node:fs';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { documentClient, sqsClient } from '../../../shared/aws/clients';
import { resourcesConfig } from '../../../shared/config';
import { pressKey } from './load-generator';

/** What one load stage is judged by: latency percentiles, memory, and what the queue still holds. */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

/** Messages waiting in a queue, visible or in flight. */
export async function queueBacklog(queueUrl: string): Promise<number> {
  const { Attributes = {} } = await sqsClient().send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
  );
  return Number(Attributes.ApproximateNumberOfMessages ?? 0) + Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0);
}

/**
 * Enqueue-to-SES latency of each panic press: the e-mail's `sent` entry on its alert is stamped by the deliver
 * function as soon as SES accepted the message. Presses without a sent e-mail yet are returned apart.
 */
export async function pressLatencies(
  presses: ReadonlyMap<string, number>,
  panicRuleId: number,
  email: string,
): Promise<{ latencies: number[]; undeliveredSince: number[] }> {
  const latencies: number[] = [];
  const seen = new Set<string>();
  let start: Record<string, unknown> | undefined;
  do {
    const output = await documentClient().send(
      new ScanCommand({
        TableName: resourcesConfig().ALERTS_TABLE,
        ExclusiveStartKey: start,
        FilterExpression: 'ruleId = :rule',
        ExpressionAttributeValues: { ':rule': panicRuleId },
      }),
    );
    for (const item of output.Items ?? []) {
      const event = item.event as { time: string };
      const key = pressKey(Number(item.vehicleId), event.time);
      const enqueuedAt = presses.get(key);
      const sent = (item.deliveries as Record<string, { status: string; at: string }> | undefined)?.[`email:${email}`];
      if (enqueuedAt === undefined || sent?.status !== 'sent') continue;
      seen.add(key);
      latencies.push(Date.parse(sent.at) - enqueuedAt);
    }
    start = output.LastEvaluatedKey;
  } while (start);
  latencies.sort((a, b) => a - b);
  return { latencies, undeliveredSince: [...presses].filter(([key]) => !seen.has(key)).map(([, enqueuedAt]) => enqueuedAt) };
}

/** Resident set size (bytes) of this process and each of its child processes (DynamoDB Local's JVM). */
export function residentBytes(): { node: number; children: number } {
  const node = process.memoryUsage.rss();
  let children = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      if (Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]) !== process.pid) continue;
      children += Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
    } catch {
      // the process ended while we looked
    }
  }
  return { node, children };
}

/** CPU seconds (user + system) used so far by this process and by its children. */
export function cpuSeconds(): { node: number; children: number } {
  const ticks = 100;
  const usage = process.cpuUsage();
  let children = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ');
      if (Number(fields[1]) !== process.pid) continue;
      children += (Number(fields[11]) + Number(fields[12])) / ticks;
    } catch {
      // the process ended while we looked
    }
  }
  return { node: (usage.user + usage.system) / 1e6, children };
}
