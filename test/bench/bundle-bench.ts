import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { packageCodeBytes } from '../../infra/bundling/bundle';
import { FleetwatchStack } from '../../infra/stack';
import { API_BUNDLE_BUDGET_BYTES, BUNDLE_BUDGET_BYTES, type FunctionName } from '../../infra/constructs/fleetwatch-function';
import { formatTable } from './timing';
import type { BenchSection } from './section';

const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FUNCTIONS: FunctionName[] = ['evaluate', 'sweep', 'deliver', 'api', 'telegram', 'project'];
const RUNS = 15;

/** The environment a function runs in, with placeholder names: enough for its modules to load. */
const FUNCTION_ENV = {
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  POWERTOOLS_SERVICE_NAME: 'fleetwatch-bench',
  POWERTOOLS_METRICS_NAMESPACE: 'fleetwatch',
};

/**
 * Milliseconds that one fresh Node.js process spends importing `specifier` (module load and top-level code), with
 * the NODE_OPTIONS the stack gives the functions (the source maps are read as the module loads).
 */
function importMs(specifier: string, cwd: string, nodeOptions: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t));`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd,
    env: { ...process.env, ...FUNCTION_ENV, NODE_OPTIONS: nodeOptions },
    encoding: 'utf8',
  });
  return Number(output);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Builds every function exactly as `cdk synth` does (infra/bundling/bundle.ts), then measures each package's code size (entry and chunks)
 * and the time a cold process spends loading it, against loading `@aws-sdk/client-dynamodb` alone, measured
 * in alternation in the same run. The SDK clients a package leaves to the runtime, and the baseline's, come from the
 * repository's node_modules, as Lambda's runtime supplies its own.
 */
export function runBundleBench(): BenchSection {
  const outdir = mkdtempSync(join(tmpdir(), 'fleetwatch-bench-bundles-'));
  try {
    const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
    const stack = new FleetwatchStack(app, 'FleetwatchBench');
    const template = app.synth().getStackByName(stack.stackName).template as {
      Resources: Record<string, { Metadata?: Record<string, unknown>; Properties?: { Environment?: { Variables?: Record<string, string> } } }>;
    };
    symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(outdir, 'node_modules'), 'dir');
    const resourceOf = (name: FunctionName) => template.Resources[stack.getLogicalId(stack.functions[name].function.node.defaultChild as never)]!;
    const bundles = Object.fromEntries(
      FUNCTIONS.map((name) => [name, join(outdir, resourceOf(name).Metadata!['aws:asset:path'] as string, 'index.mjs')]),
    ) as Record<FunctionName, string>;
    const nodeOptions = Object.fromEntries(
      FUNCTIONS.map((name) => [name, resourceOf(name).Properties?.Environment?.Variables?.NODE_OPTIONS ?? '']),
    ) as Record<FunctionName, string>;

    const samples = { baseline: [] as number[], ...Object.fromEntries(FUNCTIONS.map((name) => [name, [] as number[]])) } as Record<
      'baseline' | FunctionName,
      number[]
    >;
    for (let run = 0; run < RUNS; run++) {
      samples.baseline.push(importMs('@aws-sdk/client-dynamodb', outdir, nodeOptions.evaluate));
      for (const name of FUNCTIONS) samples[name].push(importMs(bundles[name], outdir, nodeOptions[name]));
    }
    const baselineMs = median(samples.baseline);
    const bundleBytes = Object.fromEntries(FUNCTIONS.map((name) => [name, packageCodeBytes(dirname(bundles[name]))])) as Record<FunctionName, number>;
    const initMs = Object.fromEntries(FUNCTIONS.map((name) => [name, Number(median(samples[name]).toFixed(1))])) as Record<FunctionName, number>;
    const initOverDynamoClientImport = Object.fromEntries(FUNCTIONS.map((name) => [name, Number((initMs[name] / baselineMs).toFixed(2))])) as Record<
      FunctionName,
      number
    >;
    return {
      lines: [
        `(d) bundles and module init: each function's bundle as synthesized, cold import in a fresh process (median of ${RUNS}), ` +
          `against importing @aws-sdk/client-dynamodb alone (target: ≤ ${(BUNDLE_BUDGET_BYTES / 1e6).toFixed(1)} MB, the api's ≤ ${API_BUNDLE_BUDGET_BYTES / 1e3} KB; evaluate and sweep ≤ 1.5×, deliver, api and telegram ≤ 2.0×)`,
        ...formatTable(
          ['function', 'bundle', 'init', 'ratio'],
          [
            ['@aws-sdk/client-dynamodb (baseline)', '', `${baselineMs.toFixed(1)} ms`, '1.00×'],
            ...FUNCTIONS.map((name) => [
              name,
              `${(bundleBytes[name] / 1e6).toFixed(3)} MB`,
              `${initMs[name].toFixed(1)} ms`,
              `${initOverDynamoClientImport[name].toFixed(2)}×`,
            ]),
          ],
        ),
      ],
      figures: { bundleBytes, initMs, dynamoClientImportMs: Number(baselineMs.toFixed(1)), initOverDynamoClientImport },
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
