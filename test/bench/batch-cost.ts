import { startEmulators } from '../../infra/local/emulators';
import { formatBatchCost, measureBatchCost } from '../pipeline/batch-cost-scenario';

/**
 * DynamoDB requests spent by the evaluate function on one batch of 1,000 messages over 1,000 vehicles:
 * the cold warm-up batch, a steady batch, and a batch in which every vehicle state is due for a write.
 */
export async function runBatchCostBench(): Promise<string[]> {
  const emulators = await startEmulators({ prefix: `bench-batch-cost-${process.pid}` });
  try {
    const started = performance.now();
    const costs = await measureBatchCost();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    return [...costs.map(formatBatchCost), `(3 batches of 1,000 messages evaluated in ${seconds} s on the emulators)`];
  } finally {
    await emulators.stop();
  }
}
