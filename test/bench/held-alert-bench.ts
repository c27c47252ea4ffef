import { startEmulators } from '../../infra/local/emulators';
import type { BenchSection } from './section';

/**
 * `heldAlertUnitsPerHour`: DynamoDB units an alert costs per hour it waits for a long retry (target ≤ 1), over
 * the retry schedule's waits longer than the deliveries queue holds a message; see held-alert-cost-scenario.ts.
 */
const ALERTS = 48;

const hours = (seconds: number) => (seconds < 3_600 ? `${seconds / 60} min` : `${seconds / 3_600} h`);

export async function runHeldAlertBench(): Promise<BenchSection> {
  const emulators = await startEmulators({ prefix: `bench-held-${process.pid}` });
  try {
    const { measureHeldAlertCost } = await import('../pipeline/held-alert-cost-scenario');
    const cost = await measureHeldAlertCost({ alerts: ALERTS });
    return {
      lines: [
        `(h) an alert waiting for a long retry (${cost.alerts} alerts, each to a webhook endpoint of its own answering 503 throughout, on DynamoDB Local): ` +
          `${cost.unitsPerHour.toFixed(3)} units per alert-hour of waiting (target ≤ 1); per wait, scheduling write + due pass: ` +
          cost.waits.map((wait) => `${hours(wait.seconds)} ${wait.scheduleUnits.toFixed(2)} + ${wait.duePassUnits.toFixed(2)}`).join(', '),
      ],
      figures: { heldAlertUnitsPerHour: Math.round(cost.unitsPerHour * 1000) / 1000 },
    };
  } finally {
    await emulators.stop();
  }
}
