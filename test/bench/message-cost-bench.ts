import { writeFileSync } from 'node:fs';
import { startEmulators } from '../../infra/local/emulators';
import {
  deliveryCostPerAlert,
  evaluateMsAt,
  fromBatches,
  IDEAL_BATCH,
  monthlyCost,
  ONE_VCPU_MB,
  sesFeePerAlert,
  smsFeePerAlert,
  sqsFloorUsd,
  VEHICLES,
  type Configuration,
  type CostBreakdown,
  type Measured,
  type MeasuredDelivery,
  type MeasuredEvaluate,
  type MeasuredSweep,
  type PerInvocation,
} from './cost-model';
import { measureFixedCosts, type FixedCosts } from './fixed-costs';
import { PRICES } from './prices';
import { MEASURED_PATH, type SavedMeasurements } from './scale-page';
import type { BenchSection } from './section';
import type { MessageCost, MessageCostOptions } from '../pipeline/message-cost-scenario';
import type { DeliveryCost } from '../pipeline/delivery-cost-scenario';

/**
 * DynamoDB units per message and per alert, and what 1,000 vehicles cost a month in each configuration, from
 * runs on DynamoDB Local with the real functions: units counted with ReturnConsumedCapacity, handler time and
 * logged bytes measured, fixed costs counted from the synthesized stack, prices from prices.ts.
 */

/** The runs of the evaluate traffic, each on its own emulators. */
type MeasurementName = 'exact' | 'exactSilenced' | 'coalesced' | 'stamped' | 'stampedGrouped' | 'exactBatchOfOne' | 'worstCase';
const MEASUREMENTS: Record<MeasurementName, MessageCostOptions> = {
  exact: { vehicles: 100, minutes: 70, warmUpMinutes: 10, vehicleClock: 'exact' },
  // the same, with one active maintenance silence per client (over one vehicle)
  exactSilenced: { vehicles: 100, minutes: 70, warmUpMinutes: 10, vehicleClock: 'exact', silences: true },
  coalesced: { vehicles: 100, minutes: 70, warmUpMinutes: 10, vehicleClock: 'coalesced' },
  // the producer stamps every message (`previousDeviceTime`), under the default (exact) clock
  stamped: { vehicles: 100, minutes: 70, warmUpMinutes: 10, vehicleClock: 'exact', stamped: true },
  // and sends two consecutive messages of a vehicle together: each batch of 10 carries 5 vehicles
  stampedGrouped: { vehicles: 100, minutes: 70, warmUpMinutes: 10, vehicleClock: 'exact', stamped: true, messagesPerVehicle: 2 },
  // handler time and log bytes at one message per invocation, for the part of them every invocation pays
  exactBatchOfOne: { vehicles: 20, minutes: 25, warmUpMinutes: 5, vehicleClock: 'exact', batchSize: 1 },
  // priced in the recommended configuration, so stamped and sent like it
  worstCase: { vehicles: 50, minutes: 40, warmUpMinutes: 10, vehicleClock: 'exact', stamped: true, messagesPerVehicle: 2, tenant: 'worstCase' },
};
const DELIVERY_ALERTS = 20;

/**
 * The configurations priced. Each names the run it is priced from; `suffix` ends its figure names (the
 * recommended production configuration has none).
 */
interface PricedConfiguration extends Configuration {
  suffix: string;
  label: string;
  measurement: Exclude<MeasurementName, 'exactBatchOfOne' | 'exactSilenced'>;
}
const RECOMMENDED_TABLE: Omit<Configuration, 'vehicleTable'> = { consumerBatch: IDEAL_BATCH, producerBatch: IDEAL_BATCH };
const CONFIGURATIONS: PricedConfiguration[] = [
  {
    suffix: 'OnDemand',
    label: 'exact clock, every table on demand (the default deployment)',
    measurement: 'exact',
    ...RECOMMENDED_TABLE,
    vehicleTable: 'onDemand',
  },
  { suffix: 'Coalesced', label: 'coalesced clock, every table on demand', measurement: 'coalesced', ...RECOMMENDED_TABLE, vehicleTable: 'onDemand' },
  {
    suffix: 'Stamped',
    label: 'producer-stamped messages, every table on demand',
    measurement: 'stamped',
    ...RECOMMENDED_TABLE,
    vehicleTable: 'onDemand',
  },
  {
    suffix: '',
    label: 'recommended: producer-stamped messages, two of a vehicle sent together, vehicle-state table provisioned at 70% target',
    measurement: 'stampedGrouped',
    ...RECOMMENDED_TABLE,
    vehicleTable: 'provisioned',
  },
  {
    suffix: 'Ungrouped',
    label: 'recommended, but every message of a vehicle sent on its own',
    measurement: 'stamped',
    ...RECOMMENDED_TABLE,
    vehicleTable: 'provisioned',
  },
];
/** Evaluate's memory sizes the recommended configuration is also priced at (MB). */
const EVALUATE_MEMORY = [1024, 512, 256] as const;
const CONSUMER_BATCHES = [1, 3, 10] as const;

async function withEmulators<T>(name: string, run: () => Promise<T>): Promise<T> {
  const emulators = await startEmulators({ prefix: `bench-cost-${name}-${process.pid}` });
  try {
    return await run();
  } finally {
    await emulators.stop();
  }
}

async function measureEvaluate(name: MeasurementName): Promise<MessageCost> {
  const { measureMessageCost } = await import('../pipeline/message-cost-scenario');
  return withEmulators(name, () => measureMessageCost(MEASUREMENTS[name]));
}

async function measureDelivery(): Promise<DeliveryCost> {
  const { measureDeliveryCost } = await import('../pipeline/delivery-cost-scenario');
  return withEmulators('delivery', () => measureDeliveryCost({ alerts: DELIVERY_ALERTS }));
}

function evaluateInput(cost: MessageCost, batchOfOne: MessageCost, memoryMb: number): MeasuredEvaluate {
  return {
    readUnitsPerMessage: cost.readUnitsPerMessage,
    writeUnitsPerMessage: cost.writeUnitsPerMessage,
    vehicleTableReadUnitsPerMessage: cost.vehicleTableReadUnitsPerMessage,
    vehicleTableWriteUnitsPerMessage: cost.vehicleTableWriteUnitsPerMessage,
    vehicleIndexWriteUnitsPerMessage: cost.vehicleIndexWriteUnitsPerMessage,
    alertsPerMessage: cost.alerts / cost.messages,
    ms: fromBatches(batchOfOne.msPerInvocation, cost.msPerInvocation),
    cpuMs: fromBatches(batchOfOne.cpuMsPerInvocation, cost.cpuMsPerInvocation),
    logBytes: fromBatches(batchOfOne.logBytesPerInvocation, cost.logBytesPerInvocation),
    memoryMb,
  };
}

function sweepInput(cost: MessageCost, memoryMb: number): MeasuredSweep {
  const runs = Math.max(1, cost.sweep.runs);
  return {
    unitsPerRun: { read: cost.sweep.readUnits / runs, write: cost.sweep.writeUnits / runs },
    msPerRun: cost.sweep.msPerRun,
    logBytesPerRun: cost.sweep.logBytesPerRun,
    memoryMb,
  };
}

function deliveryInput(cost: DeliveryCost, memoryMb: number): MeasuredDelivery {
  return {
    createReadUnits: cost.createReadUnitsPerAlert,
    createWriteUnits: cost.createWriteUnitsPerAlert,
    createVehicleWriteUnits: cost.createVehicleWriteUnitsPerAlert,
    deliverReadUnits: cost.deliverReadUnitsPerAlert,
    deliverWriteUnits: cost.deliverWriteUnitsPerAlert,
    enqueueRequests: cost.enqueueRequestsPerAlert,
    deliverSqsRequests: cost.deliverSqsRequestsPerAlert,
    deliverInvocations: cost.deliverInvocationsPerAlert,
    deliverMsPerInvocation: cost.deliverMsPerInvocation,
    deliverLogBytesPerInvocation: cost.deliverLogBytesPerInvocation,
    memoryMb,
    emails: cost.emailsPerAlert,
  };
}

const atBatch10 = (value: PerInvocation) => value.fixed + value.perMessage * IDEAL_BATCH;
const usd = (value: number) => `$${value.toFixed(2)}`;
const round = (value: number) => Math.round(value * 1000) / 1000;
const roundUsd = (value: number) => Math.round(value * 1e8) / 1e8;

const unitsLine = (cost: MessageCost) =>
  `${cost.unitsPerMessage.toFixed(3)} units per message: ${cost.readUnitsPerMessage.toFixed(3)} read, ${cost.writeUnitsPerMessage.toFixed(3)} write ` +
  `(vehicle-state table ${cost.vehicleTableReadUnitsPerMessage.toFixed(3)} read, ${cost.vehicleTableWriteUnitsPerMessage.toFixed(3)} write); ` +
  `${cost.alerts} alerts from ${cost.messages} messages; rules/geozones table units ${cost.ruleTableUnits}; ${cost.failures} failed records`;
const monthLine = (month: CostBreakdown) =>
  `SQS FIFO ${usd(month.sqs)}, evaluate Lambda ${usd(month.evaluateLambda)}, DynamoDB ${usd(month.dynamo)}, sweep ${usd(month.sweep)}, logs ${usd(month.logs)}, ` +
  `delivery ${usd(month.delivery)}, fixed ${usd(month.fixed)}; total ${usd(month.total)} = ${month.overFloor.toFixed(2)}× the SQS floor; SES fee ${usd(month.sesFee)} more`;

export async function runMessageCostBench(options: { save?: boolean } = {}): Promise<BenchSection> {
  // the deployed functions log at INFO and publish EMF metrics: both are measured, then swallowed
  process.env.POWERTOOLS_LOG_LEVEL ??= 'INFO';
  const started = performance.now();
  const fixed: FixedCosts = await measureFixedCosts();
  const runs = {} as Record<MeasurementName, MessageCost>;
  for (const name of Object.keys(MEASUREMENTS) as MeasurementName[]) runs[name] = await measureEvaluate(name);
  const deliveryCost = await measureDelivery();
  const delivery = deliveryInput(deliveryCost, fixed.memoryMb.deliver);
  const measuredFrom = (name: PricedConfiguration['measurement']): Measured => ({
    evaluate: evaluateInput(runs[name], runs.exactBatchOfOne, fixed.memoryMb.evaluate),
    sweep: sweepInput(runs[name], fixed.memoryMb.sweep),
    delivery,
    fixedUsdPerMonth: fixed.usd.total,
  });
  const priced = CONFIGURATIONS.map((configuration) => ({
    configuration,
    month: monthlyCost(measuredFrom(configuration.measurement), configuration),
  }));
  const recommended = CONFIGURATIONS.find((configuration) => configuration.suffix === '')!;
  const recommendedMonth = priced.find(({ configuration }) => configuration === recommended)!.month;
  const worstCase = monthlyCost(measuredFrom('worstCase'), recommended);
  // a batch of one cannot carry two messages of a vehicle, and a producer sending one message per request
  // cannot send two together: both are priced from the vehicles' messages sent one by one
  const ungrouped = CONFIGURATIONS.find((configuration) => configuration.suffix === 'Ungrouped')!;
  const atBatch = Object.fromEntries(
    CONSUMER_BATCHES.map((batch) => [String(batch), monthlyCost(measuredFrom(ungrouped.measurement), { ...ungrouped, consumerBatch: batch })]),
  );
  const unbatchedProducer = monthlyCost(measuredFrom(ungrouped.measurement), { ...ungrouped, producerBatch: 1 });
  const recommendedMeasured = measuredFrom(recommended.measurement);
  const atMemory = EVALUATE_MEMORY.map((memoryMb) => {
    const evaluate = { ...recommendedMeasured.evaluate, memoryMb };
    return { memoryMb, ms: evaluateMsAt(evaluate, IDEAL_BATCH), month: monthlyCost({ ...recommendedMeasured, evaluate }, recommended) };
  });
  if (options.save) {
    const saved: SavedMeasurements = {
      recommended: { ...RECOMMENDED_TABLE, vehicleTable: recommended.vehicleTable },
      measured: recommendedMeasured,
    };
    writeFileSync(MEASURED_PATH, `${JSON.stringify(saved, null, 2)}\n`);
  }
  const evaluate = recommendedMeasured.evaluate;
  const perAlert = deliveryCostPerAlert(delivery);

  return {
    lines: [
      '(c) DynamoDB units per message (100 vehicles, one message per 30 s, FIFO batches of 10, 60 measured minutes, on DynamoDB Local)',
      `exact vehicle clock (the default): ${unitsLine(runs.exact)}`,
      `exact vehicle clock, one active maintenance silence per client: ${unitsLine(runs.exactSilenced)}`,
      `coalesced vehicle clock (-c vehicleClock=coalesced): ${unitsLine(runs.coalesced)}`,
      `producer-stamped messages (exact clock configured): ${unitsLine(runs.stamped)}`,
      `producer-stamped, two messages of a vehicle sent together: ${unitsLine(runs.stampedGrouped)}`,
      `worst-case tenant (3 owner levels, 10 rules, 2 open visits; producer-stamped, two messages of a vehicle together): ${unitsLine(runs.worstCase)}`,
      `evaluate per invocation, recommended: ${evaluate.ms.fixed.toFixed(1)} ms + ${evaluate.ms.perMessage.toFixed(1)} ms a message wall time, of it CPU ` +
        `${evaluate.cpuMs.fixed.toFixed(1)} ms + ${evaluate.cpuMs.perMessage.toFixed(2)} ms a message; ` +
        `${evaluate.logBytes.fixed.toFixed(0)} + ${evaluate.logBytes.perMessage.toFixed(0)} log bytes a message (batches of 1 and 10); ` +
        `sweep ${runs.stampedGrouped.sweep.msPerRun.toFixed(0)} ms, ${(runs.stampedGrouped.sweep.readUnits + runs.stampedGrouped.sweep.writeUnits) / Math.max(1, runs.stampedGrouped.sweep.runs)} units per run`,
      `evaluate memory, recommended configuration, batch of 10 (one local core taken for one vCPU, ${ONE_VCPU_MB} MB): ` +
        atMemory
          .map(
            ({ memoryMb, ms, month }) =>
              `${memoryMb} MB ${ms.toFixed(1)} ms, evaluate Lambda ${usd(month.evaluateLambda)}, total ${usd(month.total)}`,
          )
          .join('; ') +
        ` (deployed: ${fixed.memoryMb.evaluate} MB)`,
      `per alert (${deliveryCost.alerts} alerts, one e-mail target): created ${delivery.createReadUnits.toFixed(1)} read + ${delivery.createWriteUnits.toFixed(1)} write units; ` +
        `delivered ${delivery.deliverReadUnits.toFixed(1)} read + ${delivery.deliverWriteUnits.toFixed(1)} write units, ` +
        `${(delivery.enqueueRequests + delivery.deliverSqsRequests).toFixed(1)} deliveries-queue requests, ${delivery.deliverInvocations.toFixed(1)} deliver invocations of ` +
        `${delivery.deliverMsPerInvocation.toFixed(0)} ms; ${usd(perAlert * 1000)} per 1,000 alerts + SES ${usd(sesFeePerAlert(delivery) * 1000)}`,
      `fixed: ${fixed.alarms} alarms (${fixed.alarmMetrics} metrics), ${fixed.dashboards} dashboard, ${fixed.kmsKeys} KMS keys, ${fixed.secrets} secrets, ` +
        `${fixed.customMetrics} custom metrics (${fixed.incidentMetrics} of them published only during incidents), ${fixed.metricRequestsPerMonth} GetMetricStatistics a month: ${usd(fixed.usd.total)} a month`,
      '',
      `(d) cost of ${VEHICLES.toLocaleString('en')} vehicles for a month, one message per 30 s and one alert per vehicle-hour, fixed costs shared by 10,000 vehicles ` +
        `(${PRICES.region}, prices of ${PRICES.asOf}); SQS floor ${usd(sqsFloorUsd())}`,
      ...priced.map(({ configuration, month }) => `${configuration.label}: ${monthLine(month)}`),
      `worst-case tenant, recommended configuration: ${monthLine(worstCase)}`,
      `recommended with every message sent on its own, at consumer batches of ${CONSUMER_BATCHES.join(', ')}: ${CONSUMER_BATCHES.map((batch) => usd(atBatch[String(batch)]!.total)).join(', ')}; ` +
        `producer sending one message per request: ${usd(unbatchedProducer.total)}`,
      `(measured in ${((performance.now() - started) / 1000).toFixed(0)} s)`,
    ],
    figures: {
      ddbUnitsPerMessage: round(runs.exact.unitsPerMessage),
      ddbUnitsPerMessageSilenced: round(runs.exactSilenced.unitsPerMessage),
      ddbUnitsPerMessageCoalesced: round(runs.coalesced.unitsPerMessage),
      ddbUnitsPerMessageWorstCase: round(runs.worstCase.unitsPerMessage),
      ...Object.fromEntries(
        priced.flatMap(({ configuration, month }) => [
          [`costPer1000VehicleMonthsUsd${configuration.suffix}`, round(month.total)],
          [`costOverSqsFloor${configuration.suffix}`, round(month.overFloor)],
        ]),
      ),
      costPer1000VehicleMonthsUsdWorstCase: round(worstCase.total),
      costOverSqsFloorWorstCase: round(worstCase.overFloor),
      sqsFloorPer1000VehicleMonthsUsd: round(recommendedMonth.sqsFloor),
      costAtBatch: Object.fromEntries(Object.entries(atBatch).map(([batch, month]) => [batch, round(month.total)])),
      costUnbatchedProducer: round(unbatchedProducer.total),
      ddbUnitsPerMessageStamped: round(runs.stamped.unitsPerMessage),
      ddbUnitsPerMessageProducerGrouped: round(runs.stampedGrouped.unitsPerMessage),
      evaluateCpuShare: round(atBatch10(evaluate.cpuMs) / atBatch10(evaluate.ms)),
      evaluateMsAtMemory: Object.fromEntries(atMemory.map(({ memoryMb, ms }) => [String(memoryMb), round(ms)])),
      costAtEvaluateMemory: Object.fromEntries(atMemory.map(({ memoryMb, month }) => [String(memoryMb), round(month.total)])),
      ddbUnitsPerAlert: round(delivery.createReadUnits + delivery.createWriteUnits + delivery.deliverReadUnits + delivery.deliverWriteUnits),
      deliveryCostPerAlertUsd: roundUsd(perAlert),
      sesFeePerAlertUsd: roundUsd(sesFeePerAlert(delivery)),
      smsFeePerAlertUsd: roundUsd(smsFeePerAlert()),
      sesFeePer1000VehicleMonthsUsd: round(recommendedMonth.sesFee),
      deliveryPer1000VehicleMonthsUsd: round(recommendedMonth.delivery),
      fixedCostPerMonthUsd: round(fixed.usd.total),
    },
  };
}
