import { startEmulators } from '../../infra/local/emulators';
import { monthlyCost, VEHICLES } from './cost-model';
import { PRICES } from './prices';
import type { BenchSection } from './section';
import type { VehicleClock } from '../../shared/config';
import type { MessageCost } from '../pipeline/message-cost-scenario';

/**
 * DynamoDB units per message in the deployed shape (FIFO batches of 10), and what 1,000 vehicles cost a month,
 * with each vehicle clock (the figures without a suffix are the default, exact), from runs on DynamoDB Local: units counted with ReturnConsumedCapacity, handler time and logged
 * bytes measured, prices from prices.ts.
 */
const EVALUATE_MEMORY_MB = 1024;
const SWEEP_MEMORY_MB = 1024;
const usd = (value: number) => `$${value.toFixed(2)}`;

type Measured = { cost: MessageCost; month: ReturnType<typeof monthlyCost>; seconds: number };

/** One run of the deployed traffic with the given vehicle clock, on its own emulators. */
async function measure(clock: VehicleClock): Promise<Measured> {
  const { measureMessageCost } = await import('../pipeline/message-cost-scenario');
  const emulators = await startEmulators({ prefix: `bench-message-cost-${clock}-${process.pid}` });
  try {
    const started = performance.now();
    const cost = await measureMessageCost({ vehicles: 100, minutes: 70, warmUpMinutes: 10, vehicleClock: clock });
    const month = monthlyCost(
      {
        readUnitsPerMessage: cost.readUnitsPerMessage,
        writeUnitsPerMessage: cost.writeUnitsPerMessage,
        msPerInvocation: cost.msPerInvocation,
        logBytesPerInvocation: cost.logBytesPerInvocation,
        memoryMb: EVALUATE_MEMORY_MB,
      },
      {
        unitsPerRun: { read: cost.sweep.readUnits / Math.max(1, cost.sweep.runs), write: cost.sweep.writeUnits / Math.max(1, cost.sweep.runs) },
        msPerRun: cost.sweep.msPerRun,
        logBytesPerRun: cost.sweep.logBytesPerRun,
        memoryMb: SWEEP_MEMORY_MB,
      },
    );
    return { cost, month, seconds: (performance.now() - started) / 1000 };
  } finally {
    await emulators.stop();
  }
}

const unitsLine = ({ cost }: Measured) =>
  `${cost.unitsPerMessage.toFixed(3)} units per message: ${cost.readUnitsPerMessage.toFixed(3)} read, ${cost.writeUnitsPerMessage.toFixed(3)} write; ` +
  `rules/geozones table units ${cost.ruleTableUnits}; ${cost.alerts} alerts; ${cost.failures} failed records`;
const monthLine = ({ month }: Measured) =>
  `SQS FIFO ${usd(month.sqs)} (the floor), evaluate Lambda ${usd(month.evaluateLambda)}, DynamoDB ${usd(month.dynamo)}, sweep ${usd(month.sweep)}, logs ${usd(month.logs)}; ` +
  `total ${usd(month.total)} = ${month.overFloor.toFixed(2)}× the SQS floor (target ≤ 2.0)`;

export async function runMessageCostBench(): Promise<BenchSection> {
  // the deployed functions log at INFO and publish EMF metrics: both are measured, then swallowed
  process.env.POWERTOOLS_LOG_LEVEL ??= 'INFO';
  const exact = await measure('exact');
  const coalesced = await measure('coalesced');
  return {
    lines: [
      '(c) DynamoDB units per message, FIFO batches of 10 (100 vehicles, one message per 30 s, 60 measured minutes, on DynamoDB Local)',
      `exact vehicle clock (the default): ${unitsLine(exact)}`,
      `coalesced vehicle clock (-c vehicleClock=coalesced): ${unitsLine(coalesced)}`,
      `evaluate ${exact.cost.msPerInvocation.toFixed(1)} ms and ${exact.cost.logBytesPerInvocation.toFixed(0)} log bytes per invocation; ` +
        `sweep ${exact.cost.sweep.msPerRun.toFixed(0)} ms, ${(exact.cost.sweep.readUnits + exact.cost.sweep.writeUnits) / Math.max(1, exact.cost.sweep.runs)} units per run`,
      '',
      `(d) cost of ${VEHICLES.toLocaleString('en')} vehicles for a month, one message per 30 s, producer batches of 10 (${PRICES.region}, prices of ${PRICES.asOf})`,
      `exact clock: ${monthLine(exact)}`,
      `coalesced clock: ${monthLine(coalesced)}`,
      `(measured in ${(exact.seconds + coalesced.seconds).toFixed(0)} s)`,
    ],
    figures: {
      ddbUnitsPerMessage: round(exact.cost.unitsPerMessage),
      costPer1000VehicleMonthsUsd: round(exact.month.total),
      costOverSqsFloor: round(exact.month.overFloor),
      ddbUnitsPerMessageCoalesced: round(coalesced.cost.unitsPerMessage),
      costPer1000VehicleMonthsUsdCoalesced: round(coalesced.month.total),
      costOverSqsFloorCoalesced: round(coalesced.month.overFloor),
    },
  };
}

const round = (value: number) => Math.round(value * 1000) / 1000;
