import { runBundleBench } from './bundle-bench';
import { runEvaluationBench } from './evaluation-bench';
import { runGeozoneBench } from './geozone-bench';
import { runHotKeyBench } from './hot-key-bench';
import { runMessageCostBench } from './message-cost-bench';
import type { BenchSection } from './section';

/**
 * `npm run bench`: every measurement and its baseline in one run, printed as compact tables;
 * `npm run bench -- --json`: the same figures as one JSON object with stable names.
 */
async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const sections: BenchSection[] = [
    await runEvaluationBench(),
    runGeozoneBench(),
    await runMessageCostBench(),
    await runHotKeyBench(),
    runBundleBench(),
  ];
  if (json) {
    console.log(JSON.stringify(Object.assign({}, ...sections.map((section) => section.figures))));
  } else {
    console.log(sections.map((section) => section.lines.join('\n')).join('\n\n'));
  }
}

await main();
