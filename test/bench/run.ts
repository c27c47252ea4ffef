import { runBundleBench } from './bundle-bench';
import { runEvaluationBench } from './evaluation-bench';
import { runGeozoneBench } from './geozone-bench';
import { runHeldAlertBench } from './held-alert-bench';
import { runHotKeyBench } from './hot-key-bench';
import { runMessageCostBench } from './message-cost-bench';
import type { BenchSection } from './section';

/**
 * `npm run bench`: every measurement and its baseline in one run, printed as compact tables;
 * `npm run bench -- --json`: the same figures as one JSON object with stable names (the tables go to stderr);
 * `npm run bench -- --only cost` (or evaluation, geozone, held, hotKey, bundle; comma-separated): only those sections;
 * `--save`: the cost section also writes what it measured to test/bench/cost-measured.json (docs/scale.md).
 */
const SECTIONS = {
  evaluation: () => runEvaluationBench(),
  geozone: async () => runGeozoneBench(),
  cost: () => runMessageCostBench({ save: process.argv.includes('--save') }),
  held: () => runHeldAlertBench(),
  hotKey: () => runHotKeyBench(),
  bundle: async () => runBundleBench(),
} satisfies Record<string, () => Promise<BenchSection>>;
type SectionName = keyof typeof SECTIONS;

function chosenSections(): SectionName[] {
  const index = process.argv.indexOf('--only');
  if (index === -1) return Object.keys(SECTIONS) as SectionName[];
  const names = (process.argv[index + 1] ?? '').split(',').filter(Boolean);
  const unknown = names.filter((name) => !(name in SECTIONS));
  if (names.length === 0 || unknown.length > 0) {
    throw new Error(`--only takes section names among ${Object.keys(SECTIONS).join(', ')}; got "${process.argv[index + 1] ?? ''}"`);
  }
  return names as SectionName[];
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const sections: BenchSection[] = [];
  for (const name of chosenSections()) sections.push(await SECTIONS[name]());
  const tables = sections.map((section) => section.lines.join('\n')).join('\n\n');
  if (json) {
    console.error(tables);
    console.log(JSON.stringify(Object.assign({}, ...sections.map((section) => section.figures))));
  } else {
    console.log(tables);
  }
}

await main();
