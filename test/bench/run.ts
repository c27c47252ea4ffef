import { existsSync } from 'node:fs';
import { runEvaluationBench } from './evaluation-bench';
import { runGeozoneBench } from './geozone-bench';

/** `npm run bench`: every measurement and its baseline in one run, printed as compact tables. */
async function main(): Promise<void> {
  const lines = [...runEvaluationBench(), '', ...runGeozoneBench()];
  const batchCost = new URL('./batch-cost.ts', import.meta.url);
  if (existsSync(batchCost)) {
    const module = (await import(batchCost.href)) as { runBatchCostBench?: () => Promise<string[]> };
    if (typeof module.runBatchCostBench === 'function') lines.push('', ...(await module.runBatchCostBench()));
  }
  console.log(lines.join('\n'));
}

await main();
