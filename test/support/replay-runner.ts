import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/clients';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import { createDeliverHandler } from '../../functions/deliver/handler';
import { createSweepHandler } from '../../functions/sweep/handler';
import { lambdaContext, pollOnce, type SqsHandler } from '../../infra/local/sqs-poller';
import type { Emulators } from '../../infra/local/emulators';
import { geozoneMeasures } from '../../shared/api/geozone-measures';
import { resourcesConfig } from '../../shared/config';
import { notificationBodySchema, RULE_TYPES, type StoredRule } from '../../shared/schemas/notification';
import type { GeozoneGeometry } from '../../shared/schemas/geozone';
import { createGeozone } from '../../shared/store/geozones-store';
import { createRule } from '../../shared/store/rules-store';
import { projectRules } from './project-rules';
import { confirmSideEmails, registerFleet } from './owned-fleet';
import { sentEmails, type SentEmail } from './emulators';
import { redelivered, type ReplayPlan } from './replay-scenarios';
import { DEPOT, depotRing, REPLAY_RULE_IDS, REPLAY_SETTINGS, TRACE_START, type ReplayRuleName, type Trace } from './trace-generator';

/**
 * Replays a planned trace through the deployed handlers against the emulators: evaluate on each batch (its
 * clock set to the batch's arrival time), deliver on whatever reaches the deliveries queue, and the sweep on
 * its schedule, every simulated minute whether or not messages arrive, then once more well after the end so
 * that its outbox pass picks up any alert left pending. Returns what a person could observe: the alerts table
 * and the SES inbox.
 */
export const REPLAY_PARENT_ID = '3f6c2a10-8d4e-4b7a-9c1d-5e2f7a8b9c0d';
export const SIDE_EMAIL = 'dispatch@fleet.example.com';

const RULE_TYPE_OF: Record<ReplayRuleName, number> = {
  speeding: RULE_TYPES.speeding,
  geozone: RULE_TYPES.geozone,
  idle: RULE_TYPES.idle,
  panic: RULE_TYPES.panic,
  drain: RULE_TYPES.drain,
  fuelling: RULE_TYPES.fuelling,
  connectionLoss: RULE_TYPES.connectionLoss,
};

/** The depot geozone and the rules of the replay (one per REPLAY_SETTINGS entry), created through the stores the API uses. */
export async function seedReplay(trace: Trace): Promise<StoredRule[]> {
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
  const rules: StoredRule[] = [];
  for (const name of Object.keys(REPLAY_RULE_IDS) as ReplayRuleName[]) {
    const body = notificationBodySchema.parse({
      type: RULE_TYPE_OF[name],
      parentId: REPLAY_PARENT_ID,
      name: `Replay ${name}`,
      active: true,
      vehicleIds,
      geoids: name === 'geozone' ? [DEPOT.id] : [],
      settings: REPLAY_SETTINGS[name],
      enableSideEmails: true,
      sideEmails: [SIDE_EMAIL],
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
  status: string;
  outbox: unknown;
}

export interface ReplayRun {
  alerts: StoredAlert[];
  emails: SentEmail[];
  invocations: number;
  /** Batches handed out again after a crash or with failed items. */
  redeliveries: number;
  crashes: { beforeEnqueue: number; afterEnqueue: number };
  /** Records the evaluate function reported as failed (each was handed out again). */
  itemFailures: number;
  sweeps: number;
  /** Pending alerts the sweep's outbox pass asked to deliver again. */
  outboxReenqueued: number;
  deliverInvocations: number;
}

const SWEEP_EVERY_MS = 60_000;
/** Long enough after the trace for the outbox (2 minutes by default) to pick up anything still pending. */
const FINAL_SWEEP_DELAY_MS = 60 * 60_000;

export async function runReplay(plan: ReplayPlan, trace: Trace, emulators: Emulators): Promise<ReplayRun> {
  let now = plan.batches[0]?.now ?? TRACE_START;
  const clock = () => now;
  const evaluate = createEvaluateHandler({ clock });
  const deliver = createDeliverHandler() as unknown as SqsHandler;
  const sweep = createSweepHandler({ clock });
  const queueUrl = resourcesConfig().DELIVERIES_QUEUE_URL;
  // a queue that does not exist: SendMessageBatch fails at once, as it would with SQS unreachable
  const unreachableQueue = `${emulators.sqsEndpoint}/000000000000/missing-deliveries-queue`;
  const run: ReplayRun = {
    alerts: [],
    emails: [],
    invocations: 0,
    redeliveries: 0,
    crashes: { beforeEnqueue: 0, afterEnqueue: 0 },
    itemFailures: 0,
    sweeps: 0,
    outboxReenqueued: 0,
    deliverInvocations: 0,
  };

  const invokeEvaluate = async (records: SQSRecord[]): Promise<SQSBatchResponse> => {
    run.invocations++;
    const event: SQSEvent = { Records: records };
    return (await evaluate(event, lambdaContext('evaluate'))) ?? { batchItemFailures: [] };
  };

  const drainDeliveries = async () => {
    for (let round = 0; round < 1_000; round++) {
      const received = await pollOnce({ queueUrl, handler: deliver, functionName: 'deliver', visibilityTimeoutSeconds: 0 });
      if (received === 0) return;
      run.deliverInvocations++;
    }
    throw new Error('deliveries queue not drained');
  };

  const runSweep = async (at: number) => {
    now = at;
    run.sweeps++;
    const report = await sweep({}, lambdaContext('sweep'));
    run.outboxReenqueued += report.reenqueued.length;
  };

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
    for (;;) {
      if (crash === 'beforeEnqueue') {
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
    await drainDeliveries();
  }
  if (carried.length > 0) {
    run.redeliveries++;
    const response = await invokeEvaluate(carried);
    run.itemFailures += response.batchItemFailures.length;
  }

  for (const delay of [FINAL_SWEEP_DELAY_MS, 2 * FINAL_SWEEP_DELAY_MS]) {
    await drainDeliveries();
    await runSweep(trace.end + delay);
    await drainDeliveries();
  }

  run.alerts = (await scanTable(resourcesConfig().ALERTS_TABLE)).map((item) => {
    const event = item.event as { kind: string; time: string };
    return {
      alertId: String(item.alertId),
      ruleId: Number(item.ruleId),
      vehicleId: Number(item.vehicleId),
      kind: event.kind,
      time: Date.parse(event.time),
      status: String(item.status),
      outbox: item.outbox,
    };
  });
  run.emails = await sentEmails(emulators);
  return run;
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
