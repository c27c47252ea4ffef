import { describe, expect, it } from 'vitest';
import { durationAtMemory, fromBatches, monthlyCost, sqsFloorUsd, type Configuration, type Measured } from './cost-model';
import { PRICES } from './prices';

const measured: Measured = {
  evaluate: {
    readUnitsPerMessage: 0.5,
    writeUnitsPerMessage: 1.2,
    vehicleTableReadUnitsPerMessage: 0.5,
    vehicleTableWriteUnitsPerMessage: 1,
    vehicleIndexWriteUnitsPerMessage: { bySilence: 0.1 },
    alertsPerMessage: 1 / 120,
    ms: { fixed: 20, perMessage: 5 },
    cpuMs: { fixed: 4, perMessage: 1 },
    logBytes: { fixed: 0, perMessage: 10 },
    memoryMb: 1024,
  },
  sweep: { unitsPerRun: { read: 0, write: 0 }, msPerRun: 5, logBytesPerRun: 0, memoryMb: 1024 },
  delivery: {
    createReadUnits: 0,
    createWriteUnits: 6,
    createVehicleWriteUnits: 1,
    deliverReadUnits: 2,
    deliverWriteUnits: 12,
    enqueueRequests: 1,
    deliverSqsRequests: 2,
    deliverInvocations: 1,
    deliverMsPerInvocation: 100,
    deliverLogBytesPerInvocation: 400,
    memoryMb: 1024,
    emails: 1,
  },
  fixedUsdPerMonth: 15,
};
const recommended: Configuration = { consumerBatch: 10, producerBatch: 10, vehicleTable: 'provisioned' };

describe('the cost model', () => {
  it('measures against a fixed SQS floor: send, receive and delete each shared by 10 messages, $12.96 for 1,000 vehicle-months', () => {
    expect(sqsFloorUsd()).toBeCloseTo(12.96, 6);
    // the floor does not move with the batching priced: worse batching costs more over the same floor
    const atOne = monthlyCost(measured, { ...recommended, consumerBatch: 1 });
    const atTen = monthlyCost(measured, recommended);
    expect(atOne.sqsFloor).toBe(atTen.sqsFloor);
    expect(atOne.overFloor).toBeGreaterThan(atTen.overFloor);
    // a batch of one: a receive and a delete per message instead of per ten
    expect(atOne.sqs - atTen.sqs).toBeCloseTo(2 * 86_400_000 * 0.9 * PRICES.sqsFifoPerRequest, 6);
  });

  it('prices the vehicle-state table as provisioned capacity at 70% utilization, each index at least its minimum', () => {
    const onDemand = monthlyCost(measured, { ...recommended, vehicleTable: 'onDemand' });
    const provisioned = monthlyCost(measured, recommended);
    // the deployment's 10,000 vehicles, a tenth of it for 1,000: the table and bySilence follow their traffic,
    // byOwner (no message writes it) and the indexes' reads sit at the minimum of 5 units
    const perSecond = 10_000 / 30;
    const hourly = (read: number, write: number) => 720 * (read * PRICES.dynamoPerRcuHour + write * PRICES.dynamoPerWcuHour);
    const capacity = hourly((perSecond * 0.5) / 0.7, (perSecond * 0.9) / 0.7) + hourly(5, Math.max(5, (perSecond * 0.1) / 0.7)) + hourly(5, 5);
    // the other tables' writes stay on demand, less the alerts' creation on the alerts table, which delivery
    // prices (the vehicle item's share of it is in the table's capacity)
    const rest = 86_400_000 * (0.2 - 5 / 120) * PRICES.dynamoPerWriteUnit;
    expect(provisioned.dynamo).toBeCloseTo(capacity / 10 + rest, 6);
    expect(onDemand.dynamo).toBeCloseTo(86_400_000 * (0.5 * PRICES.dynamoPerReadUnit + (1.2 - 6 / 120) * PRICES.dynamoPerWriteUnit), 6);
    // a deployment of 1,000 vehicles alone pays its minimums whole
    const small = monthlyCost(measured, recommended, { vehicles: 1_000, fixedCostFleet: 1_000 });
    const smallCapacity =
      hourly(((1_000 / 30) * 0.5) / 0.7, ((1_000 / 30) * 0.9) / 0.7) + hourly(5, Math.max(5, ((1_000 / 30) * 0.1) / 0.7)) + hourly(5, 5);
    expect(small.dynamo).toBeCloseTo(smallCapacity + rest, 6);
  });

  it('includes an alert per vehicle-hour delivered and the fixed costs shared by 10,000 vehicles, the SES fee apart', () => {
    const month = monthlyCost(measured, recommended);
    expect(month.alerts).toBe(720_000);
    expect(month.sesFee).toBeCloseTo(720_000 * PRICES.sesPerEmail, 6);
    // the SES fee is reported apart, outside the total the floor is compared with
    expect(month.totalWithSes - month.total).toBeCloseTo(month.sesFee, 6);
    expect(month.overFloor).toBeCloseTo(month.total / 12.96, 6);
    expect(month.fixed).toBeCloseTo(1.5, 6);
    const perAlert =
      6 * PRICES.dynamoPerWriteUnit +
      2 * PRICES.dynamoPerReadUnit +
      12 * PRICES.dynamoPerWriteUnit +
      3 * PRICES.sqsStandardPerRequest +
      PRICES.lambdaPerInvocation +
      0.1 * PRICES.lambdaPerGbSecond +
      (400 / 1024 ** 3) * PRICES.logsPerGb;
    // the vehicle item's share of the alert's creation is in the provisioned table's capacity, on demand in delivery
    expect(month.delivery).toBeCloseTo(720_000 * (perAlert - PRICES.dynamoPerWriteUnit), 6);
    expect(monthlyCost(measured, { ...recommended, vehicleTable: 'onDemand' }).delivery).toBeCloseTo(720_000 * perAlert, 6);
    expect(monthlyCost(measured, recommended, { vehicles: 10_000, fixedCostFleet: 10_000 }).fixed).toBe(15);
  });

  it("shares the sweep's minute runs by the fleet, like the fixed costs", () => {
    const run = PRICES.lambdaPerInvocation + 0.005 * PRICES.lambdaPerGbSecond;
    // 43,200 runs a month for a deployment, a tenth of them for 1,000 of its 10,000 vehicles
    expect(monthlyCost(measured, recommended).sweep).toBeCloseTo((43_200 * run) / 10, 9);
    expect(monthlyCost(measured, recommended, { vehicles: 1_000, fixedCostFleet: 1_000 }).sweep).toBeCloseTo(43_200 * run, 9);
  });

  it('splits handler time into what every invocation pays and what each message adds', () => {
    expect(fromBatches(25, 70)).toEqual({ fixed: 20, perMessage: 5 });
    const month = monthlyCost(measured, { ...recommended, consumerBatch: 3 });
    const invocations = 86_400_000 / 3;
    // 35 ms of which 7 ms CPU, measured on one core; at 1,024 MB Lambda gives 1,024 / 1,769 of a vCPU
    const seconds = (28 + (7 * 1769) / 1024) / 1000;
    expect(month.evaluateLambda).toBeCloseTo(invocations * (PRICES.lambdaPerInvocation + seconds * PRICES.lambdaPerGbSecond), 6);
  });

  it('stretches only the CPU time below one vCPU (1,769 MB), and gains nothing above it', () => {
    expect(durationAtMemory(50, 10, 1769)).toBeCloseTo(50, 9);
    expect(durationAtMemory(50, 10, 1769 / 2)).toBeCloseTo(60, 9);
    expect(durationAtMemory(50, 10, 1769 / 4)).toBeCloseTo(80, 9);
    expect(durationAtMemory(50, 10, 3538)).toBeCloseTo(50, 9);
    // halving the memory halves the GB-seconds only while the waiting dominates
    const at = (memoryMb: number) => monthlyCost({ ...measured, evaluate: { ...measured.evaluate, memoryMb } }, recommended).evaluateLambda;
    expect(at(512)).toBeLessThan(at(1024));
  });
});
