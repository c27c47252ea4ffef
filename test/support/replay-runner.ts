import { randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import { documentClient, sqsClient } from '../../shared/aws/clients';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import { createSweepHandler } from '../../functions/sweep/handler';
import { lambdaContext, pollOnce, type SqsHandler } from '../../infra/local/sqs-poller';
import type { Emulators } from '../../infra/local/emulators';
import { geozoneMeasures } from '../../shared/api/geozone-measures';
import { resourcesConfig, type FeedOutageConfig } from '../../shared/config';
import type { FeedReading } from '../../shared/sweep/feed-rate';
import { notificationBodySchema, RULE_TYPES, type StoredRule } from '../../shared/schemas/notification';
import type { GeozoneGeometry } from '../../shared/schemas/geozone';
import { createGeozone } from '../../shared/store/geozones-store';
import { createRule } from '../../shared/store/rules-store';
import { deliverHandler } from './deliver-handler';
import { projectRules } from './project-rules';
import { confirmSideEmails, linkChats, registerFleet } from './owned-fleet';
import { createUser } from '../../shared/store/directory-store';
import { sentEmails, type SentEmail } from './emulators';
import type { ChaosController } from './chaos';
import { InvocationKiller, type KillPoint } from './invocation-killer';
import { redelivered, type ReplayPlan } from './replay-scenarios';
import { holdQueueDelays } from './queue-delays';
import { DEPOT, depotRing, REPLAY_RULE_IDS, REPLAY_SETTINGS, TRACE_START, type ReplayRuleName, type Trace } from './trace-generator';

/**
 * Replays a planned trace through the deployed handlers against the emulators: evaluate on each batch (its
 * clock set to the batch's arrival time), deliver on whatever reaches the deliveries queue (on the same clock), and the sweep on
 * its schedule, every simulated minute whether or not messages arrive, then once more well after the end so
 * that its outbox pass picks up any alert left pending. Returns what a person could observe: the alerts table
 * and the SES inbox.
 */
export const REPLAY_PARENT_ID = '3f6c2a10-8d4e-4b7a-9c1d-5e2f7a8b9c0d';
export const SIDE_EMAIL = 'dispatch@fleet.example.com';
/** The Telegram chat every replay rule also sends to. */
export const REPLAY_CHAT_ID = '-1001700';

const RULE_TYPE_OF: Record<ReplayRuleName, number> = {
  speeding: RULE_TYPES.speeding,
  geozone: RULE_TYPES.geozone,
  idle: RULE_TYPES.idle,
  panic: RULE_TYPES.panic,
  drain: RULE_TYPES.drain,
  fuelling: RULE_TYPES.fuelling,
  connectionLoss: RULE_TYPES.connectionLoss,
  parking: RULE_TYPES.parking,
  movement: RULE_TYPES.movement,
  continuousDriving: RULE_TYPES.continuousDriving,
  deviceAlarm: RULE_TYPES.deviceAlarm,
};

/**
 * What a scenario changes in a rule of the replay: settings added to its REPLAY_SETTINGS, whether its alerts are
 * stored, and whether it is active at all.
 */
export type RuleOverrides = Partial<Record<ReplayRuleName, { settings?: Record<string, string>; stored?: boolean; active?: boolean }>>;

/**
 * The depot geozone and the rules of the replay (one per REPLAY_SETTINGS entry, with the scenario's
 * `overrides`), created through the stores the API uses.
 */
export async function seedReplay(trace: Trace, overrides: RuleOverrides = {}, { toClient = false } = {}): Promise<StoredRule[]> {
  const created = new Date(TRACE_START - 86_400_000).toISOString();
  const geometry: GeozoneGeometry = { type: 'Polygon', coordinates: [depotRing()] };
  const zone = await createGeozone({
    name: DEPOT.name,
    type: 'polygon',
    parentId: REPLAY_PARENT_ID,
    radius: null,
    description: 'Replay depot',
    geometry,
    ...geozoneMeasures(geometry, null),
    createDate: created,
  });
  if (zone.id !== DEPOT.id) throw new Error(`depot geozone got id ${zone.id}, expected ${DEPOT.id}`);

  const vehicleIds = trace.vehicles.map((vehicle) => vehicle.vehicleId);
  await registerFleet(REPLAY_PARENT_ID, vehicleIds);
  await confirmSideEmails(REPLAY_PARENT_ID, [SIDE_EMAIL]);
  // the rules' chat is linked by a dispatcher of the client, as delivery requires
  const dispatcher = await createUser({
    parentId: REPLAY_PARENT_ID,
    login: `replay-dispatcher-${randomUUID()}`,
    password: randomUUID(),
    email: 'dispatcher@replay.test',
    sessionDuration: null,
  });
  await linkChats(dispatcher.id, [REPLAY_CHAT_ID]);
  const rules: StoredRule[] = [];
  for (const name of Object.keys(REPLAY_RULE_IDS) as ReplayRuleName[]) {
    const body = notificationBodySchema.parse({
      type: RULE_TYPE_OF[name],
      parentId: REPLAY_PARENT_ID,
      name: `Replay ${name}`,
      active: overrides[name]?.active ?? true,
      vehicleIds,
      geoids: name === 'geozone' ? [DEPOT.id] : [],
      settings: { ...REPLAY_SETTINGS[name], ...overrides[name]?.settings },
      stored: overrides[name]?.stored ?? false,
      enableSideEmails: true,
      sideEmails: [SIDE_EMAIL],
      toTelegram: true,
      telegrams: [{ id: REPLAY_CHAT_ID, info: 'Replay dispatch' }],
      toClient,
      timezone: 'UTC',
      validity: 90,
    });
    const rule = await createRule({
      ...body,
      parentName: '',
      version: 1,
      createdAt: created,
      updatedAt: created,
      validFrom: created,
      expiresAt: new Date(TRACE_START + 30 * 86_400_000).toISOString(),
    });
    if (rule.id !== REPLAY_RULE_IDS[name]) throw new Error(`rule ${name} got id ${rule.id}, expected ${REPLAY_RULE_IDS[name]}`);
    rules.push(rule);
  }
  await projectRules(rules);
  return rules;
}

export interface StoredAlert {
  alertId: string;
  ruleId: number;
  vehicleId: number;
  kind: string;
  /** Event time, epoch ms. */
  time: number;
  /** When the alert was raised (the raising function's clock), epoch ms. */
  createdAt: number;
  status: string;
  outbox: unknown;
  /** Each target's outcome, as recorded on the alert. */
  deliveries: Record<string, { status: string; at: string; attempts: number; error?: string }>;
}

export interface ReplayRun {
  alerts: StoredAlert[];
  emails: SentEmail[];
  invocations: number;
  /** Batches handed out again after a crash or with failed items. */
  redeliveries: number;
  crashes: { beforeEnqueue: number; afterEnqueue: number };
  /** killed scenario: where invocations died. */
  kills: Record<KillPoint, number>;
  /** Records the evaluate function reported as failed (each was handed out again). */
  itemFailures: number;
  /** Evaluate invocations that threw (the whole batch was handed out again). */
  failedInvocations: number;
  sweeps: number;
  /** Sweeps that failed (run again a minute later). */
  failedSweeps: number;
  /** Pending alerts the sweep's outbox pass asked to deliver again. */
  outboxReenqueued: number;
  deliverInvocations: number;
  /** Delivery requests the deliver function failed, handed out again after the queue's visibility timeout. */
  deliveryRetries: number;
  /** Polls of the deliveries queue that found SQS unreachable. */
  failedPolls: number;
  /** Interrupted feeds the sweeps first saw (their scopes, in order), and the most connection losses one sweep held. */
  feedOutagesBegun: string[];
  mostHeld: number;
}

const SWEEP_EVERY_MS = 60_000;
/** After the trace of a durable-delivery scenario, the sweep runs every 5 simulated minutes: hours pass in seconds. */
const TAIL_STEP_MS = 5 * 60_000;
/**
 * Except for the first half hour after a fault ends, when it runs every minute, as deployed: the breakers drain
 * what they held at a bounded rate per sweep, so a 5-minute step would stretch the drain fivefold.
 */
const RECOVERY_SWEEPS_MS = 30 * 60_000;
/** Long enough after the trace for the outbox (2 minutes by default) to pick up anything still pending. */
const FINAL_SWEEP_DELAY_MS = 60 * 60_000;
/**
 * The deployed deliveries queue's visibility timeout (six times the deliver function's 60 s timeout): a
 * delivery request that failed is handed out again this much later, in simulated time.
 */
const DELIVERIES_VISIBILITY_MS = 6 * 60_000;
/** Real seconds a received delivery request stays invisible; the runner makes it visible when it is due. */
const HELD_VISIBILITY_S = 3_600;

export interface ReplayFaults {
  chaos?: ChaosController;
}

/**
 * Off: every trace ends with its whole fleet falling silent at once and never heard again, which the sweep
 * would rightly take for an interrupted feed and hold; the replays that check those last losses turn it off.
 */
const FEED_OUTAGE_OFF: FeedOutageConfig = { FEED_OUTAGE_SHARE: 0, FEED_OUTAGE_MIN_VEHICLES: 1, FEED_OUTAGE_GRACE_MINUTES: 1 };
/** The input queue's NumberOfMessagesSent as the sweep reads it: the busiest minute is looked for this far back. */
const FEED_LOOKBACK_MINUTES = 15;

export interface ReplayOptions {
  /**
   * Durable-delivery scenarios: the deliver function runs on the simulated clock, as evaluate and the sweep do,
   * and after the trace the replay goes on, a sweep every TAIL_STEP_MS, until `tailAfterFaults` after the last
   * fault ended, so that every target held through the fault has its next scheduled attempt, or until nothing is
   * left for a sweep to do once the faults are over.
   */
  durable?: { tailAfterFaults: number };
  /**
   * The sweep's feed-outage settings; given, the sweep also reads the replay's message rate (the records sent
   * to the input queue per minute, as the queue counts them). Default: off.
   */
  feedOutage?: FeedOutageConfig;
}

/** Messages sent per minute up to `now` (by their SentTimestamp), over the look-back window, as CloudWatch has NumberOfMessagesSent. */
function feedRate(plan: ReplayPlan, now: number): FeedReading {
  const minutes = Array.from({ length: FEED_LOOKBACK_MINUTES }, () => 0);
  for (const record of plan.batches.flatMap((batch) => batch.records)) {
    const sent = Number(record.attributes.SentTimestamp);
    const minute = Math.floor((now - sent) / 60_000);
    if (sent <= now && minute < FEED_LOOKBACK_MINUTES) minutes[minute]! += 1;
  }
  return { kind: 'measured', lastMinute: minutes[0]!, busiestMinute: Math.max(...minutes) };
}

export async function runReplay(
  plan: ReplayPlan,
  trace: Trace,
  emulators: Emulators,
  faults: ReplayFaults = {},
  options: ReplayOptions = {},
): Promise<ReplayRun> {
  let now = plan.batches[0]?.now ?? TRACE_START;
  const clock = () => now;
  const evaluate = createEvaluateHandler({ clock });
  // deliver keeps the replay's time as well: a circuit breaker opened by a fault probes a simulated minute later
  const deliver = deliverHandler({ clock });
  const sweep = createSweepHandler({
    clock,
    feedOutage: options.feedOutage ?? FEED_OUTAGE_OFF,
    ...(options.feedOutage ? { readFeed: (at: number) => Promise.resolve(feedRate(plan, at)) } : {}),
  });
  const queueUrl = resourcesConfig().DELIVERIES_QUEUE_URL;
  const { chaos } = faults;
  // a queue that does not exist: SendMessageBatch fails at once, as it would with SQS unreachable
  const unreachableQueue = `${emulators.sqsEndpoint}/000000000000/missing-deliveries-queue`;
  const killer = new InvocationKiller(() => {
    process.env.DELIVERIES_QUEUE_URL = unreachableQueue;
  });
  const run: ReplayRun = {
    alerts: [],
    emails: [],
    invocations: 0,
    redeliveries: 0,
    crashes: { beforeEnqueue: 0, afterEnqueue: 0 },
    kills: { afterCommit: 0, betweenTransactions: 0, beforeReport: 0 },
    itemFailures: 0,
    failedInvocations: 0,
    sweeps: 0,
    failedSweeps: 0,
    outboxReenqueued: 0,
    deliverInvocations: 0,
    deliveryRetries: 0,
    failedPolls: 0,
    feedOutagesBegun: [],
    mostHeld: 0,
  };

  const advance = async (to: number) => {
    now = to;
    await chaos?.advance(to);
  };

  /** The batch's response, or undefined when the invocation threw (the queue hands the whole batch out again). */
  const invokeEvaluate = async (records: SQSRecord[]): Promise<SQSBatchResponse | undefined> => {
    run.invocations++;
    const event: SQSEvent = { Records: records };
    try {
      return (await evaluate(event, lambdaContext('evaluate'))) ?? { batchItemFailures: [] };
    } catch {
      run.failedInvocations++;
      return undefined;
    }
  };

  /** A killed invocation: whatever it returns never reaches the queue. */
  const invokeKilled = async (records: SQSRecord[], afterTransactions: number) => {
    killer.install(documentClient());
    killer.arm(afterTransactions);
    try {
      await invokeEvaluate(records);
    } finally {
      process.env.DELIVERIES_QUEUE_URL = queueUrl;
      run.kills[killer.disarm()]++;
    }
  };

  // delivery requests that failed, with the simulated time at which the queue hands them out again: after the
  // wait the deliver function set on them (its retry schedule), or else after the queue's visibility timeout
  let held: { receiptHandle: string; dueAt: number }[] = [];
  const delays = holdQueueDelays(queueUrl, clock);
  /** When the faults and their deliveries are over: the trace's end, or for a durable-delivery scenario its tail's. */
  let settled = trace.end;
  const deliverAndHoldFailures: SqsHandler = async (event, context) => {
    const failedAt = now;
    const hold = (records: SQSRecord[]) => {
      run.deliveryRetries += records.length;
      const waiting = records.filter((record) => !delays.holds(record.receiptHandle));
      held.push(...waiting.map((record) => ({ receiptHandle: record.receiptHandle, dueAt: failedAt + DELIVERIES_VISIBILITY_MS })));
    };
    try {
      const response = await deliver(event, context);
      const failed = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
      hold(event.Records.filter((record) => failed.has(record.messageId)));
      return response;
    } catch (error) {
      hold(event.Records);
      throw error;
    }
  };

  const releaseDueDeliveries = async () => {
    await delays.release();
    const due = held.filter((entry) => entry.dueAt <= now);
    if (due.length === 0) return;
    const stillHeld = held.filter((entry) => entry.dueAt > now);
    for (const entry of due) {
      try {
        await sqsClient().send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: entry.receiptHandle, VisibilityTimeout: 0 }));
      } catch (error) {
        // SQS unreachable: try again on the next drain; a receipt the queue no longer knows is gone for good
        if ((error as Error).name !== 'ReceiptHandleIsInvalid' && (error as Error).name !== 'MessageNotInflight') stillHeld.push(entry);
      }
    }
    held = stillHeld;
  };

  const drainDeliveries = async () => {
    try {
      await releaseDueDeliveries();
      for (let round = 0; round < 1_000; round++) {
        const received = await pollOnce({
          queueUrl,
          handler: deliverAndHoldFailures,
          functionName: 'deliver',
          visibilityTimeoutSeconds: HELD_VISIBILITY_S,
        });
        if (received === 0) return;
        run.deliverInvocations++;
      }
    } catch (error) {
      // the queue itself is unreachable: the event source mapping polls again later
      if (!chaos?.isActive('sqsDown')) throw error;
      run.failedPolls++;
      return;
    }
    throw new Error('deliveries queue not drained');
  };

  const runSweep = async (at: number) => {
    await advance(at);
    run.sweeps++;
    try {
      const report = await sweep({}, lambdaContext('sweep'));
      run.outboxReenqueued += report.reenqueued.length;
      run.feedOutagesBegun.push(...report.feedOutages.begun);
      run.mostHeld = Math.max(run.mostHeld, report.connectionLossesHeld);
    } catch (error) {
      if (!chaos?.anyActive()) throw error;
      run.failedSweeps++;
    }
  };

  try {
    let nextSweep = now + SWEEP_EVERY_MS;
    let carried: SQSRecord[] = [];
    for (const batch of plan.batches) {
      for (; nextSweep <= batch.now; nextSweep += SWEEP_EVERY_MS) {
        await runSweep(nextSweep);
        await drainDeliveries();
      }
      now = batch.now;
      // FIFO: records reported failed come back before anything later of their group
      let records = [...carried, ...batch.records];
      carried = [];
      let crash = batch.crash;
      const kills = [...batch.kills];
      for (;;) {
        const killAfter = kills.shift();
        if (killAfter !== undefined) {
          await invokeKilled(records, killAfter);
        } else if (crash === 'beforeEnqueue') {
          run.crashes.beforeEnqueue++;
          process.env.DELIVERIES_QUEUE_URL = unreachableQueue;
          try {
            await invokeEvaluate(records);
          } finally {
            process.env.DELIVERIES_QUEUE_URL = queueUrl;
          }
        } else if (crash === 'afterEnqueue') {
          run.crashes.afterEnqueue++;
          await invokeEvaluate(records);
        } else {
          const response = await invokeEvaluate(records);
          if (!response) {
            // the invocation failed as a whole (an emulator is down): the batch waits for the next one
            run.redeliveries++;
            carried = redelivered(records);
            break;
          }
          const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
          if (failed.size > 0) {
            run.itemFailures += failed.size;
            run.redeliveries++;
            carried = redelivered(records.filter((record) => failed.has(record.messageId)));
          }
          break;
        }
        // the invocation died: its response never reached the queue, which hands the whole batch out again
        run.redeliveries++;
        records = redelivered(records);
        crash = 'none';
      }
      // a fault due at this time strikes after the batch's evaluation and before its deliveries
      await advance(batch.now);
      await drainDeliveries();
    }
    if (options.durable) {
      // the faults run their course after the trace: hours pass a sweep at a time
      settled = Math.max(trace.end, chaos?.lastFaultEnd ?? 0) + options.durable.tailAfterFaults;
      const faultEnds = chaos?.windowEnds ?? [];
      const recovering = (at: number) => faultEnds.some((end) => at >= end && at < end + RECOVERY_SWEEPS_MS);
      for (let at = Math.max(nextSweep, trace.end); at <= settled; at += recovering(at) ? SWEEP_EVERY_MS : TAIL_STEP_MS) {
        await runSweep(at);
        await drainDeliveries();
        // the rest of the tail would only sweep an empty house: the final sweeps below still look an hour and two later
        if (at >= (chaos?.lastFaultEnd ?? 0) && held.length === 0 && delays.pending().length === 0 && (await nothingLeftToDo())) {
          settled = at;
          break;
        }
      }
    }
    await chaos?.endAll();
    for (let attempt = 0; carried.length > 0 && attempt < 5; attempt++) {
      run.redeliveries++;
      const records = carried;
      const response = await invokeEvaluate(records);
      const failed = response
        ? new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier))
        : new Set(records.map((record) => record.messageId));
      run.itemFailures += failed.size;
      carried = redelivered(records.filter((record) => failed.has(record.messageId)));
    }

    for (const delay of [FINAL_SWEEP_DELAY_MS, 2 * FINAL_SWEEP_DELAY_MS]) {
      await advance(settled + delay);
      await drainDeliveries();
      await runSweep(settled + delay);
      await drainDeliveries();
    }
  } finally {
    delays.detach();
  }

  run.alerts = (await scanTable(resourcesConfig().ALERTS_TABLE)).map((item) => {
    const event = item.event as { kind: string; time: string } | undefined;
    // an update that ran on a missing alert would have created an item without its event
    if (!event) throw new Error(`alerts table holds an item that is no alert: ${JSON.stringify(item)}`);
    return {
      alertId: String(item.alertId),
      ruleId: Number(item.ruleId),
      vehicleId: Number(item.vehicleId),
      kind: event.kind,
      time: Date.parse(event.time),
      createdAt: Date.parse(String(item.createdAt)),
      status: String(item.status),
      outbox: item.outbox,
      deliveries: (item.deliveries ?? {}) as StoredAlert['deliveries'],
    };
  });
  run.emails = await sentEmails(emulators);
  return run;
}

/**
 * Whether no later sweep has anything to do: no alert pending, in the outbox or on the due index (a retry,
 * escalation or auto-close to come). The durable tail then ends early instead of stepping through the rest of
 * the retry schedule's longest wait.
 */
async function nothingLeftToDo(): Promise<boolean> {
  const items = await scanTable(resourcesConfig().ALERTS_TABLE);
  return items.every((item) => item.status !== 'pending' && item.outbox === undefined && item.dueAt === undefined);
}

async function scanTable(tableName: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const output = await documentClient().send(new ScanCommand({ TableName: tableName, ExclusiveStartKey: start, ConsistentRead: true }));
    items.push(...(output.Items ?? []));
    start = output.LastEvaluatedKey;
  } while (start);
  return items;
}
