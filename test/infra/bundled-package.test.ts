import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { createEvaluateHandler } from '../../functions/evaluate/handler';
import { bundleOptions } from '../../infra/bundling/bundle';
import { sdkSource } from '../../infra/constructs/fleetwatch-function';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { alertsInTable, drainQueue, invoke, putRule, sqsRecord, storedRule, T0, terminalMessage } from '../pipeline/support';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The evaluate package as the stack builds it, with the SDK's DynamoDB and SQS clients inside (sdkSource), run
 * against DynamoDB Local and fauxqs. It sits in a folder with no node_modules above it, as in Lambda's /var/task:
 * a client it did not hold would fail to load.
 */
describe('the evaluate package with its own SDK clients', () => {
  let emulators: Emulators;
  let packageDir: string;
  beforeAll(async () => {
    emulators = await startTestEmulators('infra-bundled-package');
    packageDir = mkdtempSync(join(tmpdir(), 'fleetwatch-evaluate-package-'));
    await build({ ...bundleOptions('functions/evaluate/handler.ts', ROOT, sdkSource('evaluate')), outdir: packageDir, logLevel: 'silent' });
    await putRule(storedRule({ id: 81, name: 'Speeding at once', vehicleIds: [801], settings: { limit: '90', minDuration: '0' } }));
  });
  afterAll(async () => {
    await emulators.stop();
    rmSync(packageDir, { recursive: true, force: true });
  });

  it('reads the vehicle and its rules, stores the alert and hands it to delivery', async () => {
    expect(sdkSource('evaluate')).toBe('bundled');
    const bundled = (await import(pathToFileURL(join(packageDir, 'index.mjs')).href)) as { createEvaluateHandler: typeof createEvaluateHandler };
    const handler = bundled.createEvaluateHandler({ clock: () => T0 + 60_500 });
    expect(await invoke(handler, [sqsRecord(terminalMessage(801, 60, 150))])).toEqual({ batchItemFailures: [] });
    expect((await alertsInTable()).filter((alert) => alert.vehicleId === 801)).toEqual([expect.objectContaining({ ruleId: 81 })]);
    expect(await drainQueue(emulators.queues.deliveries)).toHaveLength(1);
  });
});
