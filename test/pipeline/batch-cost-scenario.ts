import { resourcesConfig } from '../../shared/config';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import { countDynamoRequests } from '../support/count-requests';
import { drainQueue, invoke, putRule, sqsRecord, storedRule, T0, terminalMessage } from './support';

/**
 * DynamoDB cost of one batch of 1,000 messages over 1,000 vehicles, measured with the real evaluate handler
 * against the emulators (which must be running). Shared by the pipeline test and `npm run bench`.
 */
export const VEHICLES = 1_000;
const FIRST_VEHICLE = 10_001;
const SPEEDERS = 100;

export interface BatchCost {
  label: string;
  total: number;
  byCommand: Record<string, number>;
  /** Requests to the rules and geozones tables, keyed `${command} rules|geozones`. */
  ruleReads: Record<string, number>;
  /** Scans of the rules and geozones tables (a full reload of the rule index reads both). */
  ruleTableScans: number;
  alertsRaised: number;
  failures: number;
  /** Request attempts that failed (and were retried or thrown), by command and error. */
  failedAttempts: Record<string, number>;
}

export async function measureBatchCost(): Promise<BatchCost[]> {
  const vehicleIds = Array.from({ length: VEHICLES }, (_, index) => FIRST_VEHICLE + index);
  await putRule(storedRule({ id: 101, name: 'Speeding over 90 (fleet)', vehicleIds, settings: { limit: '90', minDuration: '0' } }));
  const { RULES_TABLE, GEOZONES_TABLE, DELIVERIES_QUEUE_URL } = resourcesConfig();
  let now = T0;
  const handler = createEvaluateHandler({ clock: () => now });
  const counter = countDynamoRequests();
  const results: BatchCost[] = [];

  const run = async (label: string, secondsAfterT0: number, speedOf: (index: number) => number) => {
    now = T0 + secondsAfterT0 * 1000;
    const records = vehicleIds.map((vehicleId, index) => sqsRecord(terminalMessage(vehicleId, secondsAfterT0, speedOf(index))));
    counter.reset();
    const response = await invoke(handler, records);
    const byTable = counter.byTable();
    const ruleReads: Record<string, number> = {};
    for (const [key, count] of Object.entries(byTable)) {
      const [command, table] = key.split(' ');
      const role = table === RULES_TABLE ? 'rules' : table === GEOZONES_TABLE ? 'geozones' : undefined;
      if (role) ruleReads[`${command} ${role}`] = count;
    }
    const raised = await drainQueue(DELIVERIES_QUEUE_URL);
    results.push({
      label,
      total: counter.total(),
      byCommand: counter.byCommand(),
      ruleReads,
      ruleTableScans: Object.entries(ruleReads).filter(([key]) => key.startsWith('Scan ')).reduce((sum, [, count]) => sum + count, 0),
      alertsRaised: raised.length,
      failures: response.batchItemFailures.length,
      failedAttempts: counter.failures(),
    });
  };

  try {
    // cold: rules loaded, 1,000 new vehicle states created
    await run('warm-up (cold rule cache, 1,000 new vehicles)', 0, () => 50);
    // 2 s later: 100 vehicles start speeding; the other 900 only report, which moves their watched clocks
    await run('steady batch (100 alerts, 900 clocks moved)', 2, (index) => (index < SPEEDERS ? 120 : 50));
    // 65 s later: every vehicle's heartbeat is due, 100 more start speeding; the rules version is checked again
    await run('worst-case batch (1,000 state writes, 100 alerts)', 65, (index) => (index < 2 * SPEEDERS ? 120 : 50));
  } finally {
    counter.detach();
  }
  return results;
}

export function formatBatchCost(cost: BatchCost): string {
  const commands = Object.entries(cost.byCommand)
    .map(([command, count]) => `${command} ${count}`)
    .join(', ');
  return `${cost.label}: ${cost.total} DynamoDB requests (${commands}); rules/geozones table requests ${JSON.stringify(cost.ruleReads)}; alerts ${cost.alertsRaised}; failed records ${cost.failures}`;
}
