import { startEmulators } from '../../infra/local/emulators';
import { monthlyCost, VEHICLES } from './cost-model';
import { PRICES } from './prices';
import type { BenchSection } from './section';

/**
 * DynamoDB units per message in the deployed shape (FIFO batches of 10), and what 1,000 vehicles cost a month,
 * from the same run on DynamoDB Local: units counted with ReturnConsumedCapacity, handler time and logged
 * bytes measured, prices from prices.ts.
 */
const EVALUATE_MEMORY_MB = 1024;
const SWEEP_MEMORY_MB = 1024;
const usd = (value: number) => `$${value.toFixed(2)}`;

export async function runMessageCostBench(): Promise<BenchSection> {
  // the deployed functions log at INFO and publish EMF metrics: both are measured, then swallowed
  process.env.POWERTOOLS_LOG_LEVEL ??= 'INFO';
  const { measureMessageCost } = await import('../pipeline/message-cost-scenario');
  const emulators = await startEmulators({ prefix: `bench-message-cost-${process.pid}` });
  try {
    const started = performance.now();
    const cost = await measureMessageCost({ vehicles: 100, minutes: 70, warmUpMinutes: 10 });
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
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
    return {
      lines: [
        '(c) DynamoDB units per message, FIFO batches of 10 (100 vehicles, one message per 30 s, 60 measured minutes, on DynamoDB Local)',
        `${cost.unitsPerMessage.toFixed(3)} units per message: ${cost.readUnitsPerMessage.toFixed(3)} read, ${cost.writeUnitsPerMessage.toFixed(3)} write; ` +
          `rules/geozones table units ${cost.ruleTableUnits}; ${cost.alerts} alerts; ${cost.failures} failed records`,
        `evaluate ${cost.msPerInvocation.toFixed(1)} ms and ${cost.logBytesPerInvocation.toFixed(0)} log bytes per invocation; ` +
          `sweep ${cost.sweep.msPerRun.toFixed(0)} ms, ${(cost.sweep.readUnits + cost.sweep.writeUnits) / Math.max(1, cost.sweep.runs)} units per run`,
        '',
        `(d) cost of ${VEHICLES.toLocaleString('en')} vehicles for a month, one message per 30 s, producer batches of 10 (${PRICES.region}, prices of ${PRICES.asOf})`,
        `SQS FIFO ${usd(month.sqs)} (the floor), evaluate Lambda ${usd(month.evaluateLambda)}, DynamoDB ${usd(month.dynamo)}, sweep ${usd(month.sweep)}, logs ${usd(month.logs)}`,
        `total ${usd(month.total)} = ${month.overFloor.toFixed(2)}× the SQS floor (target ≤ 2.0)`,
        `(measured in ${seconds} s)`,
      ],
      figures: {
        ddbUnitsPerMessage: round(cost.unitsPerMessage),
        costPer1000VehicleMonthsUsd: round(month.total),
        costOverSqsFloor: round(month.overFloor),
      },
    };
  } finally {
    await emulators.stop();
  }
}

const round = (value: number) => Math.round(value * 1000) / 1000;
