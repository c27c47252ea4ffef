import type { SQSRecord } from 'aws-lambda';
import { toSqsRecord } from '../../infra/local/sqs-poller';
import type { FaultWindow } from './chaos';
import { diceFor, MAX_REORDER_MS, TRACE_START, type Trace } from './trace-generator';

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
 *
 * Chaos scenarios, in order like inOrder, with faults at fixed points of the trace (simulated time):
 * - dynamodbRestarts: DynamoDB Local is stopped for a minute and started again with its data folder, twice;
 * - sqsRestart: fauxqs is stopped for 2 minutes, from when an alert is due, and started again with its data
 *   folder (queued and in-flight messages survive);
 * - sesFailing: for 2 minutes SES answers every request with throttling or a 5xx, alternately;
 * - telegramDown: the Telegram Bot API is unreachable for 5 minutes, then throttles (429 with retry_after)
 *   every other request for 2 more;
 * - killed: some evaluate invocations are killed inside their batch: after their commit, between two
 *   TransactWriteItems, or before reporting batch item failures; a redelivered batch may be killed again.
 *
 * Durable-delivery scenarios, in order like inOrder, with every alert also posted to the client's webhook
 * endpoint, the deliver function on the simulated clock, and the replay going on after the trace until every
 * held alert had its chance after the fault ended:
 * - telegramLongOutage: the Telegram Bot API is unreachable for 3 hours;
 * - receiverDown: the client's webhook receiver answers 503 for 6 hours, then takes deliveries again;
 * - sesThrottled: SES throttles every request for 30 minutes.
 */
export const SCENARIOS = [
  'inOrder',
  'duplicated',
  'reordered',
  'crashing',
  'dynamodbRestarts',
  'sqsRestart',
  'sesFailing',
  'telegramDown',
  'killed',
  'telegramLongOutage',
  'receiverDown',
  'sesThrottled',
] as const;
export type Scenario = (typeof SCENARIOS)[number];
export const CHAOS_SCENARIOS: readonly Scenario[] = ['dynamodbRestarts', 'sqsRestart', 'sesFailing', 'telegramDown', 'killed'];
/** Scenarios of a channel's or a receiver's long outage: deliveries wait through it, and none is lost. */
export const DURABLE_SCENARIOS: readonly Scenario[] = ['telegramLongOutage', 'receiverDown', 'sesThrottled'];
/** Scenarios that stop and restart an emulator: they need emulators of their own with a data folder. */
export const RESTARTING_SCENARIOS: readonly Scenario[] = ['dynamodbRestarts', 'sqsRestart'];

/** What happens to an invocation of the crashing scenario. */
export type Crash = 'none' | 'beforeEnqueue' | 'afterEnqueue';

export interface PlannedBatch {
  records: SQSRecord[];
  /** Evaluation time of the batch (the function's clock), epoch ms: a second after its last arrival. */
  now: number;
  crash: Crash;
  /**
   * killed scenario: for each attempt at the batch in turn, the number of committed TransactWriteItems after
   * which that invocation is killed (an attempt past the list runs normally).
   */
  kills: number[];
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
  faults: FaultWindow[];
}

const TRANSMISSION_DELAY_MS = 2_000;
/** Like an event source mapping's batching window: a batch is handed over once it is full or this old. */
export const BATCH_WINDOW_MS = 10_000;
const INPUT_QUEUE_ARN = 'arn:aws:sqs:us-east-1:000000000000:fleetwatch-messages.fifo';
/** Share of crashing-scenario invocations that die before the delivery enqueue, and after it. */
const CRASH_BEFORE_ENQUEUE = 0.15;
const CRASH_AFTER_ENQUEUE = 0.05;
/** Share of killed-scenario invocations that are killed, and of their redeliveries killed again. */
const KILL_SHARE = 0.5;
const KILL_AGAIN_SHARE = 0.5;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The earliest moment at or after `after` at which an alert (other than a connection loss) can be raised. */
function firstAlertFrom(trace: Trace, after: number): number {
  return Math.min(...trace.expected.filter((alert) => alert.rule !== 'connectionLoss' && alert.from >= after).map((alert) => alert.from));
}

/** The fault windows of a scenario, placed at fractions of the trace so that both trace sizes see them. */
function faultsOf(scenario: Scenario, trace: Trace): FaultWindow[] {
  const at = (fraction: number) => TRACE_START + Math.round((trace.end - TRACE_START) * fraction);
  switch (scenario) {
    case 'dynamodbRestarts': {
      // where 30 % and 60 % of the messages have been sent, so that messages are in flight while it is down,
      // however the vehicles' silences stretch the trace
      const times = trace.vehicles.flatMap((vehicle) => vehicle.messages.map((message) => Date.parse(message.deviceTime))).sort((a, b) => a - b);
      const atMessages = (fraction: number) => times[Math.floor(fraction * (times.length - 1))]!;
      return [
        { kind: 'dynamodbDown', from: atMessages(0.3), to: atMessages(0.3) + MINUTE },
        { kind: 'dynamodbDown', from: atMessages(0.6), to: atMessages(0.6) + MINUTE },
      ];
    }
    case 'sqsRestart': {
      // from the earliest moment an alert of the second half can be raised: its delivery request is either
      // queued when fauxqs stops or cannot be sent at all
      const from = firstAlertFrom(trace, at(0.5));
      return [{ kind: 'sqsDown', from, to: from + 2 * MINUTE }];
    }
    case 'sesFailing': {
      // from the first alert due after 40 % of the trace, so that a small fleet has deliveries in the window too
      const from = firstAlertFrom(trace, at(0.4));
      return [{ kind: 'sesFailing', from, to: from + 2 * MINUTE }];
    }
    case 'telegramDown': {
      const from = firstAlertFrom(trace, at(0.4));
      return [
        { kind: 'telegramDown', from, to: from + 5 * MINUTE },
        { kind: 'telegramThrottled', from: from + 5 * MINUTE, to: from + 7 * MINUTE },
      ];
    }
    case 'telegramLongOutage':
      return [{ kind: 'telegramDown', from: at(0.3), to: at(0.3) + 3 * HOUR }];
    case 'receiverDown':
      return [{ kind: 'receiverDown', from: at(0.3), to: at(0.3) + 6 * HOUR }];
    case 'sesThrottled':
      return [{ kind: 'sesThrottled', from: at(0.4), to: at(0.4) + 30 * MINUTE }];
    default:
      return [];
  }
}

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

/**
 * The killed scenario gathers a minute of arrivals per batch, so that a batch holds every vehicle's state
 * write and commits in several TransactWriteItems (100 items each): only then can an invocation die between
 * two of them. Its callers give it a batch size to match.
 */
export const KILLED_BATCH_WINDOW_MS = 60_000;

export function planReplay(trace: Trace, scenario: Scenario, options: PlanOptions): ReplayPlan {
  const arrivals: Arrival[] = [];
  const killDice = diceFor(options.seed, 1);
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
  const batchWindow = scenario === 'killed' ? KILLED_BATCH_WINDOW_MS : BATCH_WINDOW_MS;
  arrivals.forEach((arrival, index) => {
    if (index - batchStart >= options.batchSize || arrival.at - arrivals[batchStart]!.at > batchWindow) {
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
  for (let start = 0; start < arrivals.length;) {
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
    const kills: number[] = [];
    if (scenario === 'killed' && killDice.real(0, 1) < KILL_SHARE) {
      kills.push(killDice.int(1, 3));
      if (killDice.real(0, 1) < KILL_AGAIN_SHARE) kills.push(killDice.int(1, 3));
    }
    batches.push({ records, now: chunk.at(-1)!.at + 1_000, crash, kills });
    start = end;
  }
  return {
    scenario,
    batches,
    records: arrivals.length,
    duplicatesInSameBatch,
    duplicatesInLaterBatch,
    outOfOrder,
    faults: faultsOf(scenario, trace),
  };
}

/** The same records handed out again by the queue (their receive count goes up). */
export function redelivered(records: readonly SQSRecord[]): SQSRecord[] {
  return records.map((record) => ({
    ...record,
    attributes: { ...record.attributes, ApproximateReceiveCount: String(Number(record.attributes.ApproximateReceiveCount) + 1) },
  }));
}
