import { SEGMENT_PRICES_USD } from '../../shared/channels/sms/prices';
import { PRICES } from './prices';
import { TABLES } from '../../shared/store/tables';
import { DEFAULT_VEHICLE_STATE_MIN_CAPACITY } from '../../infra/context';

/**
 * What a fleet costs for a month (30 days) when each vehicle reports once every 30 s and raises one alert an hour
 * (e-mailed to one recipient): SQS FIFO requests; evaluate invocations and GB-seconds (handler time at the
 * configured memory, from its measured waiting and CPU time: `durationAtMemory`, × that memory); DynamoDB units (measured), on demand or, for the vehicle-state table, provisioned; the
 * sweep; CloudWatch Logs bytes actually written (measured); delivery of the alerts (measured: their creation,
 * the deliveries queue, the deliver function, its DynamoDB writes); and the fixed costs
 * (alarms, dashboard, keys, secrets, custom metrics, the sweep's metric reads), shared by a fleet of
 * FIXED_COST_FLEET vehicles unless told otherwise. SES's fee per e-mail is priced apart (`sesFee`, in
 * `totalWithSes` only): every design that e-mails an alert pays it alike. The functions log at system level WARN (the stack test holds
 * it), so Lambda writes no START/END/REPORT lines of its own.
 */
export const VEHICLES = 1_000;
export const MESSAGE_INTERVAL_S = 30;
export const MONTH_S = 30 * 86_400;
const MONTH_HOURS = MONTH_S / 3_600;
/** The most messages one SQS request carries. */
export const IDEAL_BATCH = 10;
export const ALERTS_PER_VEHICLE_HOUR = 1;
/** The fleet the fixed costs are shared by in the figures per 1,000 vehicles. */
export const FIXED_COST_FLEET = 10_000;
/** Provisioned capacity autoscaling's target utilization: capacity = units per second ÷ target. */
export const AUTOSCALING_TARGET = 0.7;
/** Autoscaling's floor for the table and for each of its indexes, read and write (`-c vehicleStateMinCapacity`). */
export const PROVISIONED_MIN_CAPACITY = DEFAULT_VEHICLE_STATE_MIN_CAPACITY;
const VEHICLE_STATE_INDEXES = TABLES.vehicleState.indexes.map((index) => index.indexName);

export const messagesPerMonth = (vehicles: number = VEHICLES) => (vehicles * MONTH_S) / MESSAGE_INTERVAL_S;
export const alertsPerMonth = (vehicles: number = VEHICLES) => vehicles * MONTH_HOURS * ALERTS_PER_VEHICLE_HOUR;

/**
 * The fixed floor: no design costs less than carrying the messages, a SendMessageBatch, a ReceiveMessage and a
 * DeleteMessageBatch each shared by 10 messages. It does not move with the configuration being priced.
 */
export function sqsFloorUsd(vehicles: number = VEHICLES): number {
  return ((3 * messagesPerMonth(vehicles)) / IDEAL_BATCH) * PRICES.sqsFifoPerRequest;
}

/** A quantity per invocation made of a part every invocation pays and a part per message it carries. */
export interface PerInvocation {
  fixed: number;
  perMessage: number;
}

/** The fixed and per-message parts from what one invocation took at batches of 1 and of 10. */
export function fromBatches(atOne: number, atTen: number): PerInvocation {
  const perMessage = Math.max(0, (atTen - atOne) / 9);
  return { fixed: Math.max(0, atOne - perMessage), perMessage };
}

const atBatch = (value: PerInvocation, batch: number) => value.fixed + value.perMessage * batch;

/** Lambda's memory size that has the equivalent of one full vCPU; below it, a function gets that share of one. */
export const ONE_VCPU_MB = 1_769;

/**
 * A handler's duration at a memory size from what it took on the measuring machine, wall and CPU time, taking one
 * core of that machine for one vCPU: the waiting (on DynamoDB, SQS) stays, the CPU time stretches by the share of
 * a vCPU the memory size gets. A single-threaded handler gains nothing above one vCPU.
 */
export function durationAtMemory(wallMs: number, cpuMs: number, memoryMb: number): number {
  const cpu = Math.min(cpuMs, wallMs);
  return wallMs - cpu + cpu * Math.max(1, ONE_VCPU_MB / memoryMb);
}

/** Evaluate's duration per invocation of `batch` messages at its memory size. */
export const evaluateMsAt = (evaluate: MeasuredEvaluate, batch: number) =>
  durationAtMemory(atBatch(evaluate.ms, batch), atBatch(evaluate.cpuMs, batch), evaluate.memoryMb);

export interface MeasuredEvaluate {
  /** DynamoDB units per message, reads and writes, the alerts the measured fleet raised included. */
  readUnitsPerMessage: number;
  writeUnitsPerMessage: number;
  /** The part of them spent on the vehicle-state table, its indexes included. */
  vehicleTableReadUnitsPerMessage: number;
  vehicleTableWriteUnitsPerMessage: number;
  /** Of those writes, each index's (by index name; an index no message writes is left out). */
  vehicleIndexWriteUnitsPerMessage: Record<string, number>;
  /** Alerts the measured fleet raised per message: their creation is priced with delivery instead. */
  alertsPerMessage: number;
  /** Handler time, ms, wall and of it CPU time, on the measuring machine, and bytes logged (log lines and EMF metrics) per invocation. */
  ms: PerInvocation;
  cpuMs: PerInvocation;
  logBytes: PerInvocation;
  memoryMb: number;
}

export interface MeasuredSweep {
  unitsPerRun: { read: number; write: number };
  msPerRun: number;
  logBytesPerRun: number;
  memoryMb: number;
}

/** Per alert: its creation in evaluate and its delivery. Units are billed units. */
export interface MeasuredDelivery {
  createReadUnits: number;
  createWriteUnits: number;
  /** Of the creation's write units, the vehicle-state table's (its write turned into a transaction). */
  createVehicleWriteUnits: number;
  deliverReadUnits: number;
  deliverWriteUnits: number;
  /** Deliveries queue (SQS standard) requests: evaluate's enqueueing, and the deliver side's. */
  enqueueRequests: number;
  deliverSqsRequests: number;
  deliverInvocations: number;
  deliverMsPerInvocation: number;
  deliverLogBytesPerInvocation: number;
  memoryMb: number;
  emails: number;
}

export interface Measured {
  evaluate: MeasuredEvaluate;
  sweep: MeasuredSweep;
  delivery: MeasuredDelivery;
  /** USD a month whatever the traffic. */
  fixedUsdPerMonth: number;
}

export interface Configuration {
  /** Messages per evaluate invocation (Lambda's receive and delete share them too). */
  consumerBatch: number;
  /** Messages per producer send request: 10 with SendMessageBatch, 1 with SendMessage. */
  producerBatch: number;
  vehicleTable: 'onDemand' | 'provisioned';
}

export interface CostBreakdown {
  vehicles: number;
  messages: number;
  alerts: number;
  sqs: number;
  evaluateLambda: number;
  dynamo: number;
  sweep: number;
  logs: number;
  /** Alerts created and delivered, without the SES fee. */
  delivery: number;
  fixed: number;
  /** Everything but the SES fee. */
  total: number;
  sesFee: number;
  totalWithSes: number;
  sqsFloor: number;
  overFloor: number;
}

/**
 * The vehicle-state table's provisioned capacity for a deployment of `fleet` vehicles, a month: the table and each
 * of its indexes is its own pool, autoscaled to its units per second ÷ the target but never below the autoscaling
 * minimum. An index no message writes (`byOwner`), and the indexes' reads (the sweep's few queries), sit at that
 * minimum.
 */
export function provisionedUsd(evaluate: MeasuredEvaluate, fleet: number): number {
  const perSecond = messagesPerMonth(fleet) / MONTH_S;
  const capacity = (unitsPerMessage: number) => Math.max(PROVISIONED_MIN_CAPACITY, (perSecond * unitsPerMessage) / AUTOSCALING_TARGET);
  const indexWrites = VEHICLE_STATE_INDEXES.map((index) => evaluate.vehicleIndexWriteUnitsPerMessage[index] ?? 0);
  const pools = [
    {
      read: evaluate.vehicleTableReadUnitsPerMessage,
      write: evaluate.vehicleTableWriteUnitsPerMessage - indexWrites.reduce((sum, units) => sum + units, 0),
    },
    ...indexWrites.map((write) => ({ read: 0, write })),
  ];
  return pools.reduce(
    (sum, pool) => sum + MONTH_HOURS * (capacity(pool.read) * PRICES.dynamoPerRcuHour + capacity(pool.write) * PRICES.dynamoPerWcuHour),
    0,
  );
}

const gbSeconds = (ms: number, memoryMb: number) => (ms / 1000) * (memoryMb / 1024);
const logsUsd = (bytes: number) => (bytes / 1024 ** 3) * PRICES.logsPerGb;

/** What delivering one alert costs (its creation included), without the SES fee. */
export function deliveryCostPerAlert(delivery: MeasuredDelivery): number {
  return (
    (delivery.createReadUnits + delivery.deliverReadUnits) * PRICES.dynamoPerReadUnit +
    (delivery.createWriteUnits + delivery.deliverWriteUnits) * PRICES.dynamoPerWriteUnit +
    (delivery.enqueueRequests + delivery.deliverSqsRequests) * PRICES.sqsStandardPerRequest +
    delivery.deliverInvocations *
      (PRICES.lambdaPerInvocation +
        gbSeconds(delivery.deliverMsPerInvocation, delivery.memoryMb) * PRICES.lambdaPerGbSecond +
        logsUsd(delivery.deliverLogBytesPerInvocation))
  );
}

export const sesFeePerAlert = (delivery: MeasuredDelivery) => delivery.emails * PRICES.sesPerEmail;

/**
 * The SMS fee of an alert that goes by SMS: one segment (the templates' default length) to the cost model's
 * default country, from the deployment's price table (shared/channels/sms/prices.ts). Reported apart, like SES's:
 * only rules with toSms pay it, and by default only for critical alerts.
 */
export const SMS_DEFAULT_COUNTRY = 'AZ';
export const smsFeePerAlert = () => SEGMENT_PRICES_USD[SMS_DEFAULT_COUNTRY]!;

export function monthlyCost(
  measured: Measured,
  configuration: Configuration,
  fleet: { vehicles?: number; fixedCostFleet?: number } = {},
): CostBreakdown {
  const { evaluate, sweep, delivery } = measured;
  const vehicles = fleet.vehicles ?? VEHICLES;
  const messages = messagesPerMonth(vehicles);
  const alerts = alertsPerMonth(vehicles);
  const invocations = messages / configuration.consumerBatch;
  // producer send, Lambda's ReceiveMessage and DeleteMessageBatch
  const sqs = (messages / configuration.producerBatch + 2 * invocations) * PRICES.sqsFifoPerRequest;
  const evaluateLambda =
    invocations *
    (PRICES.lambdaPerInvocation + gbSeconds(evaluateMsAt(evaluate, configuration.consumerBatch), evaluate.memoryMb) * PRICES.lambdaPerGbSecond);
  // the measured alerts' creation moves to delivery, priced at the stated alert rate; with the vehicle-state table
  // provisioned, the creation's share of it stays in the table's capacity, measured with the messages
  const provisioned = configuration.vehicleTable === 'provisioned';
  const createdRead = evaluate.alertsPerMessage * delivery.createReadUnits;
  const createdWrite = evaluate.alertsPerMessage * (delivery.createWriteUnits - (provisioned ? delivery.createVehicleWriteUnits : 0));
  const onDemand = (read: number, write: number) => messages * (read * PRICES.dynamoPerReadUnit + write * PRICES.dynamoPerWriteUnit);
  // what a deployment pays whatever its size (fixed costs, the sweep, capacity minimums) is shared by its vehicles
  const deploymentFleet = fleet.fixedCostFleet ?? FIXED_COST_FLEET;
  const fleetShare = vehicles / deploymentFleet;
  const dynamo = provisioned
    ? provisionedUsd(evaluate, deploymentFleet) * fleetShare +
      onDemand(
        Math.max(0, evaluate.readUnitsPerMessage - evaluate.vehicleTableReadUnitsPerMessage - createdRead),
        Math.max(0, evaluate.writeUnitsPerMessage - evaluate.vehicleTableWriteUnitsPerMessage - createdWrite),
      )
    : onDemand(evaluate.readUnitsPerMessage - createdRead, evaluate.writeUnitsPerMessage - createdWrite);
  // the sweep runs once a minute whatever the fleet: like the fixed costs, a deployment's run is shared by its vehicles
  const sweepRuns = MONTH_S / 60;
  const sweepCost =
    fleetShare *
    sweepRuns *
    (PRICES.lambdaPerInvocation +
      gbSeconds(sweep.msPerRun, sweep.memoryMb) * PRICES.lambdaPerGbSecond +
      sweep.unitsPerRun.read * PRICES.dynamoPerReadUnit +
      sweep.unitsPerRun.write * PRICES.dynamoPerWriteUnit);
  const logs = logsUsd(invocations * atBatch(evaluate.logBytes, configuration.consumerBatch) + fleetShare * sweepRuns * sweep.logBytesPerRun);
  const deliveryCost = alerts * (deliveryCostPerAlert(delivery) - (provisioned ? delivery.createVehicleWriteUnits * PRICES.dynamoPerWriteUnit : 0));
  const sesFee = alerts * sesFeePerAlert(delivery);
  const fixed = measured.fixedUsdPerMonth * fleetShare;
  const total = sqs + evaluateLambda + dynamo + sweepCost + logs + deliveryCost + fixed;
  const sqsFloor = sqsFloorUsd(vehicles);
  return {
    vehicles,
    messages,
    alerts,
    sqs,
    evaluateLambda,
    dynamo,
    sweep: sweepCost,
    logs,
    delivery: deliveryCost,
    fixed,
    total,
    sesFee,
    totalWithSes: total + sesFee,
    sqsFloor,
    overFloor: total / sqsFloor,
  };
}
