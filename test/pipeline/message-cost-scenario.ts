import { createEvaluateHandler } from '../../functions/evaluate/handler';
import { createSweepHandler } from '../../functions/sweep/handler';
import { lambdaContext } from '../../infra/local/sqs-poller';
import { resourcesConfig, type VehicleClock } from '../../shared/config';
import { countCapacity } from '../support/count-capacity';
import { captureOutput } from '../support/replay-output';
import { projectRules } from '../support/project-rules';
import { drainQueue, invoke, putRule, sqsRecord, storeCircleZone, storedRule, T0, terminalMessage } from './support';

/**
 * The deployed shape of the evaluate traffic, measured on DynamoDB Local: a fleet whose vehicles each report
 * every 30 s, handed to the evaluate function in FIFO batches of 10 messages, with the sweep running every
 * minute. Every vehicle is under three rules of its client, a usual mix: speeding over 90 km/h, leaving the
 * depot (a geozone) and connection loss after 30 minutes. Each vehicle speeds for a minute once an hour.
 * Shared by the pipeline test and `npm run bench`.
 */
export interface MessageCostOptions {
  vehicles: number;
  minutes: number;
  /** Minutes at the start left out of the figures (cold caches, first writes). */
  warmUpMinutes: number;
  /** How evaluate and the sweep store the vehicles' clocks. */
  vehicleClock: VehicleClock;
  /** The producer stamps every message with the newest device time it sent before (`previousDeviceTime`). */
  stamped?: boolean;
}

export interface MessageCost {
  messages: number;
  invocations: number;
  readUnits: number;
  writeUnits: number;
  unitsPerMessage: number;
  readUnitsPerMessage: number;
  writeUnitsPerMessage: number;
  /** Requests to the rules and geozones tables after the warm-up. */
  ruleTableUnits: number;
  msPerInvocation: number;
  logBytesPerInvocation: number;
  alerts: number;
  failures: number;
  sweep: { runs: number; readUnits: number; writeUnits: number; msPerRun: number; logBytesPerRun: number };
}

const FIRST_VEHICLE = 40_001;
const FIFO_BATCH = 10;

export async function measureMessageCost(options: MessageCostOptions): Promise<MessageCost> {
  const vehicleIds = Array.from({ length: options.vehicles }, (_, index) => FIRST_VEHICLE + index);
  const depot = await storeCircleZone({
    parentId: storedRule().parentId,
    name: 'Depot',
    center: { latitude: 55.75, longitude: 37.62 },
    radius: 300,
    createDate: new Date(T0 - 86_400_000).toISOString(),
  });
  const rules = [
    storedRule({ id: 901, name: 'Speeding over 90', vehicleIds, settings: { limit: '90', minDuration: '10' } }),
    storedRule({ id: 902, type: 0, name: 'Left the depot', vehicleIds, geoids: [depot.id], settings: { mode: 'exit' } }),
    storedRule({ id: 903, type: 7, name: 'Silent for 30 minutes', vehicleIds, settings: { minutes: '30' } }),
  ];
  for (const rule of rules) await putRule(rule, { registerVehicles: false });
  await projectRules(rules);

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
    ruleTableUnits: 0,
    msPerInvocation: 0,
    logBytesPerInvocation: 0,
    alerts: 0,
    failures: 0,
    sweep: { runs: 0, readUnits: 0, writeUnits: 0, msPerRun: 0, logBytesPerRun: 0 },
  };
  let evaluateMs = 0;
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

  try {
    for (let second = 0; second < options.minutes * 60; second += 30) {
      const measured = second >= options.warmUpMinutes * 60;
      for (let start = 0; start < vehicleIds.length; start += FIFO_BATCH) {
        const records = vehicleIds.slice(start, start + FIFO_BATCH).map((vehicleId, offset) => {
          // vehicles report a few seconds apart, not all on the same second
          const message = terminalMessage(vehicleId, second + ((start + offset) % 29), speedOf(start + offset, second), stampOf(vehicleId));
          sent.set(vehicleId, message.deviceTime);
          return sqsRecord(message);
        });
        now = T0 + (second + 30) * 1000;
        capacity.reset();
        const output = captureOutput({ silent: true });
        const started = performance.now();
        let response;
        try {
          response = await invoke(evaluate, records);
        } finally {
          output.restore();
        }
        const elapsed = performance.now() - started;
        if (!measured) continue;
        result.messages += records.length;
        result.invocations++;
        result.failures += response.batchItemFailures.length;
        result.readUnits += capacity.readUnits();
        result.writeUnits += capacity.writeUnits();
        for (const [key, row] of Object.entries(capacity.byTable())) {
          const table = key.split(' ')[1];
          if (table === RULES_TABLE || table === GEOZONES_TABLE) result.ruleTableUnits += row.units;
        }
        evaluateMs += elapsed;
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
          result.sweep.readUnits += capacity.readUnits();
          result.sweep.writeUnits += capacity.writeUnits();
        }
      }
      result.alerts += (await drainQueue(DELIVERIES_QUEUE_URL)).length;
    }
  } finally {
    capacity.detach();
  }
  result.unitsPerMessage = (result.readUnits + result.writeUnits) / result.messages;
  result.readUnitsPerMessage = result.readUnits / result.messages;
  result.writeUnitsPerMessage = result.writeUnits / result.messages;
  result.msPerInvocation = evaluateMs / result.invocations;
  result.logBytesPerInvocation = evaluateLogBytes / result.invocations;
  result.sweep.msPerRun = sweepMs / Math.max(1, result.sweep.runs);
  result.sweep.logBytesPerRun = sweepLogBytes / Math.max(1, result.sweep.runs);
  return result;
}
