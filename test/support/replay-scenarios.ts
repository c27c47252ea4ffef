import type { SQSRecord } from 'aws-lambda';
import { toSqsRecord } from '../../infra/local/sqs-poller';
import { diceFor, MAX_REORDER_MS, type Trace } from './trace-generator';

/**
 * How a trace reaches the evaluate function in each replay scenario. The FIFO input queue hands messages out
 * in arrival order per message group (vehicle); a batch is a run of consecutive arrivals, several vehicles
 * mixed, as Lambda's event source mapping takes them.
 *
 * - inOrder: every message arrives 2 s after its device time.
 * - duplicated: every message arrives twice (a producer retry: new message id, same body), the copy either
 *   right behind it (usually the same batch) or up to 2 minutes later (a later batch).
 * - reordered: each message is late by 0–30 s of device time, so a vehicle's arrival order differs from its
 *   device-time order (buffered terminal data delivered late).
 * - crashing: in order, but some invocations die after committing, either before asking for delivery (the
 *   enqueue fails) or after it (the response is lost); SQS then hands the same batch out again.
 */
export const SCENARIOS = ['inOrder', 'duplicated', 'reordered', 'crashing'] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** What happens to an invocation of the crashing scenario. */
export type Crash = 'none' | 'beforeEnqueue' | 'afterEnqueue';

export interface PlannedBatch {
  records: SQSRecord[];
  /** Evaluation time of the batch (the function's clock), epoch ms: a second after its last arrival. */
  now: number;
  crash: Crash;
}

export interface ReplayPlan {
  scenario: Scenario;
  batches: PlannedBatch[];
  /** Records handed to the function, duplicates included (redeliveries of crashed batches not included). */
  records: number;
  /** Second copies in the same batch as their first, and in a later batch. */
  duplicatesInSameBatch: number;
  duplicatesInLaterBatch: number;
  /** Records arriving after a record of the same vehicle with a later device time. */
  outOfOrder: number;
}

const TRANSMISSION_DELAY_MS = 2_000;
/** Like an event source mapping's batching window: a batch is handed over once it is full or this old. */
export const BATCH_WINDOW_MS = 10_000;
const INPUT_QUEUE_ARN = 'arn:aws:sqs:us-east-1:000000000000:fleetwatch-messages.fifo';
/** Share of crashing-scenario invocations that die before the delivery enqueue, and after it. */
const CRASH_BEFORE_ENQUEUE = 0.15;
const CRASH_AFTER_ENQUEUE = 0.05;

interface Arrival {
  at: number;
  /** Tie-break keeping each vehicle's planned order. */
  sequence: number;
  vehicleId: number;
  body: string;
}

export interface PlanOptions {
  /** Most records in a batch; a batch also never gathers arrivals over more than BATCH_WINDOW_MS. */
  batchSize: number;
  /** Seed of the scenario's randomness (delays, duplicates, crashes). */
  seed: number;
}

export function planReplay(trace: Trace, scenario: Scenario, options: PlanOptions): ReplayPlan {
  const arrivals: Arrival[] = [];
  let sequence = 0;
  for (const vehicle of trace.vehicles) {
    const dice = diceFor(options.seed, vehicle.vehicleId);
    for (const message of vehicle.messages) {
      const deviceMs = Date.parse(message.deviceTime);
      const delay = scenario === 'reordered' ? dice.int(0, MAX_REORDER_MS) : TRANSMISSION_DELAY_MS;
      const at = deviceMs + delay;
      const body = JSON.stringify({ ...message, serverTime: new Date(at).toISOString() });
      arrivals.push({ at, sequence: sequence++, vehicleId: vehicle.vehicleId, body });
      if (scenario === 'duplicated') {
        const later = dice.real(0, 1) < 0.4 ? dice.int(0, 1_500) : dice.int(1_500, 120_000);
        arrivals.push({ at: at + later, sequence: sequence++, vehicleId: vehicle.vehicleId, body });
      }
    }
  }
  arrivals.sort((a, b) => a.at - b.at || a.sequence - b.sequence);

  const crashDice = diceFor(options.seed, 0);
  const batches: PlannedBatch[] = [];
  const firstCopyBatch = new Map<string, number>();
  const latestDeviceTime = new Map<number, number>();
  let duplicatesInSameBatch = 0;
  let duplicatesInLaterBatch = 0;
  let outOfOrder = 0;
  const batchOf: number[] = [];
  let batchStart = 0;
  let batchIndex = 0;
  arrivals.forEach((arrival, index) => {
    if (index - batchStart >= options.batchSize || arrival.at - arrivals[batchStart]!.at > BATCH_WINDOW_MS) {
      batchStart = index;
      batchIndex++;
    }
    batchOf.push(batchIndex);
  });
  arrivals.forEach((arrival, index) => {
    const batch = batchOf[index]!;
    const first = firstCopyBatch.get(arrival.body);
    if (first === undefined) firstCopyBatch.set(arrival.body, batch);
    else if (first === batch) duplicatesInSameBatch++;
    else duplicatesInLaterBatch++;
    const deviceMs = Date.parse((JSON.parse(arrival.body) as { deviceTime: string }).deviceTime);
    if (deviceMs < (latestDeviceTime.get(arrival.vehicleId) ?? -Infinity)) outOfOrder++;
    latestDeviceTime.set(arrival.vehicleId, Math.max(deviceMs, latestDeviceTime.get(arrival.vehicleId) ?? -Infinity));
  });
  for (let start = 0; start < arrivals.length; ) {
    let end = start + 1;
    while (end < arrivals.length && batchOf[end] === batchOf[start]) end++;
    const chunk = arrivals.slice(start, end);
    const records = chunk.map((arrival, index) =>
      toSqsRecord(
        {
          MessageId: `${scenario}-${start + index}`,
          ReceiptHandle: `rh-${scenario}-${start + index}`,
          Body: arrival.body,
          Attributes: { MessageGroupId: String(arrival.vehicleId), ApproximateReceiveCount: '1', SentTimestamp: String(arrival.at) },
        },
        INPUT_QUEUE_ARN,
      ),
    );
    let crash: Crash = 'none';
    if (scenario === 'crashing') {
      const roll = crashDice.real(0, 1);
      crash = roll < CRASH_BEFORE_ENQUEUE ? 'beforeEnqueue' : roll < CRASH_BEFORE_ENQUEUE + CRASH_AFTER_ENQUEUE ? 'afterEnqueue' : 'none';
    }
    batches.push({ records, now: chunk.at(-1)!.at + 1_000, crash });
    start = end;
  }
  return { scenario, batches, records: arrivals.length, duplicatesInSameBatch, duplicatesInLaterBatch, outOfOrder };
}

/** The same records handed out again by the queue (their receive count goes up). */
export function redelivered(records: readonly SQSRecord[]): SQSRecord[] {
  return records.map((record) => ({
    ...record,
    attributes: { ...record.attributes, ApproximateReceiveCount: String(Number(record.attributes.ApproximateReceiveCount) + 1) },
  }));
}
