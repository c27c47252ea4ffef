import { startEmulators } from '../../infra/local/emulators';
import type { BenchSection } from './section';

/**
 * DynamoDB requests spent by the evaluate function on one batch of 1,000 messages over 1,000 vehicles:
 * the cold warm-up batch, a steady batch, and a batch in which every vehicle state is due for a write.
 */
export async function runBatchCostBench(): Promise<BenchSection> {
  // the handler's own logs and EMF metrics would drown the printed table; they are read before the
  // observability singletons are created, hence the imports below come after
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  const { formatBatchCost, measureBatchCost } = await import('../pipeline/batch-cost-scenario');
  const emulators = await startEmulators({ prefix: `bench-batch-cost-${process.pid}` });
  try {
    const started = performance.now();
    const costs = await measureBatchCost();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    return {
      lines: [
        '(c) DynamoDB requests per evaluate batch (1,000 messages over 1,000 vehicles)',
        ...costs.map(formatBatchCost),
        `(3 batches evaluated in ${seconds} s on the emulators)`,
      ],
      figures: { batchRequests: costs.map((cost) => ({ label: cost.label, requests: cost.total })) },
    };
  } finally {
    await emulators.stop();
  }
}
