import type { SQSRecord } from 'aws-lambda';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import { createSweepHandler } from '../../functions/sweep/handler';
import { lambdaContext } from '../../infra/local/sqs-poller';
import { resourcesConfig, type VehicleClock } from '../../shared/config';
import { createAgent } from '../../shared/store/directory-store';
import { createSilence, newSilenceId } from '../../shared/store/silences-store';
import { vehicleStateTable } from '../../shared/store/vehicle-state-store';
import { deliveryRequestSchema } from '../../shared/schemas/alert';
import { countCapacity } from '../support/count-capacity';
import { captureOutput } from '../support/replay-output';
import { projectRules } from '../support/project-rules';
import { drainQueue, invoke, putRule, registerVehicles, sqsRecord, storeCircleZone, storedRule, T0, terminalMessage } from './support';

/**
 * The deployed shape of the evaluate traffic, measured on DynamoDB Local: a fleet whose vehicles each report
 * every 30 s, handed to the evaluate function in FIFO batches of 10 messages, with the sweep running every
 * minute. Every vehicle is under three rules of its client, a usual mix: speeding over 90 km/h, leaving the
 * depot (a geozone) and connection loss after 30 minutes. Each vehicle speeds for a minute once an hour, which
 * raises one alert per vehicle-hour. Shared by the pipeline test and `npm run bench`.
 *
 * The worst-case tenant's vehicles carry the largest item ordinary use makes (as in vehicle-item-size.test.ts):
 * a client three levels deep, whose top level has a zone around the vehicles besides the depot (two visits stay
 * open), and ten rules: the usual three and seven more speeding rules with every noise setting in use, limits
 * 100 to 130 km/h, so that four of them fire in the speeding minute too.
 */
export interface MessageCostOptions {
  vehicles: number;
  minutes: number;
  /** Minutes at the start left out of the figures (cold caches, first writes). */
  warmUpMinutes: number;
  /** How evaluate and the sweep store the vehicles' clocks. */
  vehicleClock: VehicleClock;
  /** Messages handed to evaluate per invocation (Lambda's batch); 10 unless told. */
  batchSize?: number;
  tenant?: Tenant;
  /** The producer stamps every message with the newest device time it sent before (`previousDeviceTime`). */
  stamped?: boolean;
  /**
   * Consecutive messages of one vehicle the producer holds and sends together in one SendMessageBatch (1 unless
   * told): a batch of 10 then carries k messages each of 10 ÷ k vehicles, the earlier ones held k − 1 intervals.
   */
  messagesPerVehicle?: number;
  /**
   * Each client of the tenant holds one maintenance silence, active throughout, over its first vehicle: what
   * reading and judging silences costs evaluation (their Query at most every SILENCE_CACHE_MS per client).
   */
  silences?: boolean;
}

export type Tenant = 'typical' | 'worstCase';

export interface MessageCost {
  messages: number;
  invocations: number;
  /** Units as DynamoDB bills them (CapacityCounter.billedWriteUnits), after the warm-up. */
  readUnits: number;
  writeUnits: number;
  unitsPerMessage: number;
  readUnitsPerMessage: number;
  writeUnitsPerMessage: number;
  /** The part of the units spent on the vehicle-state table (the table worth provisioning). */
  vehicleTableReadUnitsPerMessage: number;
  vehicleTableWriteUnitsPerMessage: number;
  /** Of those writes, each of the table's indexes' (by index name), as DynamoDB bills them. */
  vehicleIndexWriteUnitsPerMessage: Record<string, number>;
  /** Requests to the rules and geozones tables after the warm-up. */
  ruleTableUnits: number;
  msPerInvocation: number;
  /** CPU time (user and system, process.cpuUsage) the process spent per invocation, within msPerInvocation. */
  cpuMsPerInvocation: number;
  logBytesPerInvocation: number;
  /** Alerts raised (delivery requests enqueued) after the warm-up. */
  alerts: number;
  /** Every alert raised, warm-up included: ids derive from the events, so the same traffic raises the same ids. */
  alertIds: string[];
  failures: number;
  sweep: { runs: number; readUnits: number; writeUnits: number; msPerRun: number; logBytesPerRun: number };
}

const FIRST_VEHICLE = { typical: 40_001, worstCase: 50_001 } as const;
const POSITION = { latitude: 55.75, longitude: 37.62 };
const NOISY_SETTINGS = { minDuration: '10', endDuration: '0', cooldown: '60', maxPerDay: '2', repeat: '1', notifyCleared: 'true' };

export async function measureMessageCost(options: MessageCostOptions): Promise<MessageCost> {
  const tenant = options.tenant ?? 'typical';
  const batchSize = options.batchSize ?? 10;
  const vehicleIds = Array.from({ length: options.vehicles }, (_, index) => FIRST_VEHICLE[tenant] + index);
  const owners = await storeRules(tenant, vehicleIds);
  if (options.silences) for (const clientId of owners) await storeSilence(clientId, vehicleIds[0]!, options.minutes);

  let now = T0;
  const evaluate = createEvaluateHandler({ clock: () => now, vehicleClock: options.vehicleClock });
  // alerts are settled by the deliver function, which does not run here: the outbox must not take them for lost
  const sweep = createSweepHandler({ clock: () => now, vehicleClock: options.vehicleClock, outboxAgeMs: Number.MAX_SAFE_INTEGER / 2 });
  const capacity = countCapacity();
  const { RULES_TABLE, GEOZONES_TABLE, DELIVERIES_QUEUE_URL } = resourcesConfig();
  const result: MessageCost = {
    messages: 0,
    invocations: 0,
    readUnits: 0,
    writeUnits: 0,
    unitsPerMessage: 0,
    readUnitsPerMessage: 0,
    writeUnitsPerMessage: 0,
    vehicleTableReadUnitsPerMessage: 0,
    vehicleTableWriteUnitsPerMessage: 0,
    vehicleIndexWriteUnitsPerMessage: {},
    ruleTableUnits: 0,
    msPerInvocation: 0,
    cpuMsPerInvocation: 0,
    logBytesPerInvocation: 0,
    alerts: 0,
    alertIds: [],
    failures: 0,
    sweep: { runs: 0, readUnits: 0, writeUnits: 0, msPerRun: 0, logBytesPerRun: 0 },
  };
  let vehicleTableReads = 0;
  let vehicleTableWrites = 0;
  const vehicleIndexWrites: Record<string, number> = {};
  let evaluateMs = 0;
  let evaluateCpuMs = 0;
  let evaluateLogBytes = 0;
  let sweepMs = 0;
  let sweepLogBytes = 0;
  // a vehicle speeds (120 km/h) during one minute an hour, each at its own minute
  const speedOf = (index: number, second: number) => (Math.floor(second / 60) % 60 === index % 60 ? 120 : 50);
  const sent = new Map<number, string>();
  const stampOf = (vehicleId: number) => {
    const previous = sent.get(vehicleId);
    return options.stamped && previous !== undefined ? { previousDeviceTime: previous } : {};
  };

  const perVehicle = options.messagesPerVehicle ?? 1;
  const held: SQSRecord[][] = vehicleIds.map(() => []);

  try {
    for (let second = 0; second < options.minutes * 60; second += 30) {
      const measured = second >= options.warmUpMinutes * 60;
      vehicleIds.forEach((vehicleId, index) => {
        // vehicles report a few seconds apart, not all on the same second
        const message = terminalMessage(vehicleId, second + (index % 29), speedOf(index, second), stampOf(vehicleId));
        sent.set(vehicleId, message.deviceTime);
        held[index]!.push(sqsRecord(message));
      });
      now = T0 + (second + 30) * 1000;
      // the producer sends once it holds its k messages of every vehicle, each vehicle's together
      const sending = held[0]!.length === perVehicle ? held.flatMap((records) => records.splice(0)) : [];
      for (let start = 0; start < sending.length; start += batchSize) {
        const records = sending.slice(start, start + batchSize);
        capacity.reset();
        const output = captureOutput({ silent: true });
        const cpuStarted = process.cpuUsage();
        const started = performance.now();
        let response;
        try {
          response = await invoke(evaluate, records);
        } finally {
          output.restore();
        }
        const elapsed = performance.now() - started;
        const cpu = process.cpuUsage(cpuStarted);
        if (!measured) continue;
        result.messages += records.length;
        result.invocations++;
        result.failures += response.batchItemFailures.length;
        result.readUnits += capacity.readUnits();
        // billed units: DynamoDB Local reports a transaction's index writes twice (count-capacity.ts)
        result.writeUnits += capacity.billedWriteUnits();
        for (const [key, units] of Object.entries(capacity.writeUnitsByIndex())) {
          const [table, index] = key.split('/');
          if (table !== vehicleStateTable()) continue;
          vehicleTableWrites += units;
          if (index) vehicleIndexWrites[index] = (vehicleIndexWrites[index] ?? 0) + units;
        }
        for (const [key, row] of Object.entries(capacity.byTable())) {
          const [command, table] = key.split(' ');
          if (table === RULES_TABLE || table === GEOZONES_TABLE) result.ruleTableUnits += row.units;
          if (table === vehicleStateTable() && READS.has(command!)) vehicleTableReads += row.units;
        }
        evaluateMs += elapsed;
        evaluateCpuMs += (cpu.user + cpu.system) / 1000;
        evaluateLogBytes += Buffer.byteLength(output.text());
      }
      if (second % 60 === 30) {
        capacity.reset();
        const output = captureOutput({ silent: true });
        const started = performance.now();
        try {
          await sweep({}, lambdaContext('sweep'));
        } finally {
          output.restore();
        }
        if (measured) {
          sweepMs += performance.now() - started;
          sweepLogBytes += Buffer.byteLength(output.text());
          result.sweep.runs++;
          result.sweep.readUnits += capacity.billedReadUnits();
          result.sweep.writeUnits += capacity.billedWriteUnits();
        }
      }
      const enqueued = (await drainQueue(DELIVERIES_QUEUE_URL)).map((message) => deliveryRequestSchema.parse(JSON.parse(message.Body ?? '')).alertId);
      result.alertIds.push(...enqueued);
      if (measured) result.alerts += enqueued.length;
    }
  } finally {
    capacity.detach();
  }
  result.alertIds.sort();
  result.unitsPerMessage = (result.readUnits + result.writeUnits) / result.messages;
  result.readUnitsPerMessage = result.readUnits / result.messages;
  result.writeUnitsPerMessage = result.writeUnits / result.messages;
  result.vehicleTableReadUnitsPerMessage = vehicleTableReads / result.messages;
  result.vehicleTableWriteUnitsPerMessage = vehicleTableWrites / result.messages;
  result.vehicleIndexWriteUnitsPerMessage = Object.fromEntries(
    Object.entries(vehicleIndexWrites).map(([index, units]) => [index, units / result.messages]),
  );
  result.msPerInvocation = evaluateMs / result.invocations;
  result.cpuMsPerInvocation = evaluateCpuMs / result.invocations;
  result.logBytesPerInvocation = evaluateLogBytes / result.invocations;
  result.sweep.msPerRun = sweepMs / Math.max(1, result.sweep.runs);
  result.sweep.logBytesPerRun = sweepLogBytes / Math.max(1, result.sweep.runs);
  return result;
}

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);

/** One maintenance silence of the client over a vehicle, active from before the run to after it. */
async function storeSilence(clientId: string, vehicleId: number, minutes: number): Promise<void> {
  await createSilence(
    {
      id: newSilenceId(clientId),
      parentId: clientId,
      vehicleIds: [vehicleId],
      ruleIds: [],
      geozoneIds: [],
      from: new Date(T0 - 3_600_000).toISOString(),
      to: new Date(T0 + (minutes + 60) * 60_000).toISOString(),
      reason: 'in the workshop',
      schedule: null,
      timezone: 3,
      createdAt: new Date(T0 - 3_600_000).toISOString(),
      createdBy: 'bench',
      via: 'api',
      endedAt: null,
      endedBy: null,
    },
    100,
  );
}

/** The tenant's rules, stored and projected onto its vehicles; for the worst case, its clients and zones too. Answers the owner chain. */
async function storeRules(tenant: Tenant, vehicleIds: number[]): Promise<string[]> {
  const zone = (parentId: string, name: string, radius: number) =>
    storeCircleZone({ parentId, name, center: POSITION, radius, createDate: new Date(T0 - 86_400_000).toISOString() });
  let parentId = storedRule().parentId;
  let owners = [parentId];
  if (tenant === 'worstCase') {
    const root = await createAgent({ name: 'Worst Root' });
    const region = await createAgent({ name: 'Worst Region', parentId: root.agentId });
    const branch = await createAgent({ name: 'Worst Branch', parentId: region.agentId });
    await zone(root.agentId, 'Root yard', 800);
    parentId = branch.agentId;
    owners = [branch.agentId, region.agentId, root.agentId];
  }
  const depot = await zone(parentId, 'Depot', 300);
  const base = { parentId, vehicleIds };
  const rules = [
    storedRule({ ...base, id: 901, name: 'Speeding over 90', settings: { limit: '90', minDuration: '10' } }),
    storedRule({ ...base, id: 902, type: 0, name: 'Left the depot', geoids: [depot.id], settings: { mode: 'exit' } }),
    storedRule({ ...base, id: 903, type: 7, name: 'Silent for 30 minutes', settings: { minutes: '30' } }),
  ];
  if (tenant === 'worstCase') {
    for (let index = 0; index < 7; index++) {
      const limit = 100 + 5 * index;
      rules.push(storedRule({ ...base, id: 911 + index, name: `Speeding over ${limit}`, settings: { limit: String(limit), ...NOISY_SETTINGS } }));
    }
  }
  for (const rule of rules) await putRule(rule, { registerVehicles: false });
  await projectRules(rules, { registerVehicles: false });
  await registerVehicles(vehicleIds, owners);
  return owners;
}
