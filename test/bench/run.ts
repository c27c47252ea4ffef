import { runEvaluationBench } from './evaluation-bench';
import { runGeozoneBench } from './geozone-bench';
import { runMessageCostBench } from './message-cost-bench';
import type { BenchResult } from './bench-result';

/**
 * `npm run bench`: every measurement and its baseline in one run, printed as compact tables;
 * `npm run bench -- --json` prints the figures alone, under stable names, as one JSON object.
 */

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  // the handlers' logs and EMF metrics are measured by the cost bench and must not reach the console
  const results: BenchResult[] = [runEvaluationBench(), runGeozoneBench(), await runMessageCostBench()];
  if (json) {
    console.log(JSON.stringify(Object.assign({}, ...results.map((result) => result.figures)), null, 2));
    return;
  }
  console.log(results.map((result) => result.lines.join('\n')).join('\n\n'));
}

await main();
