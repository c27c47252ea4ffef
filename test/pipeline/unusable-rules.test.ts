import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { captureOutput } from '../support/replay-output';
import { invoke, putRule, sqsRecord, storedRule, T0, terminalMessage } from './support';

/** A stored rule that cannot work (its only geozone is gone) is logged with the reason and counted in a metric. */
describe('unusable rules', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startTestEmulators('pipeline-unusable-rules');
    await putRule(storedRule({ id: 1, name: 'Speeding', vehicleIds: [1], settings: { limit: '90' } }));
    await putRule(storedRule({ id: 2, type: 0, name: 'Depot exit', vehicleIds: [1], geoids: [404], settings: { mode: 'exit' } }));
  });
  afterAll(async () => emulators.stop());

  it('logs each rule left out with its reason and counts them in UnusableRules', async () => {
    const output = captureOutput({ silent: true });
    try {
      const handler = createEvaluateHandler({ clock: () => T0 + 60_000 });
      expect(await invoke(handler, [sqsRecord(terminalMessage(1, 10, 50))])).toEqual({ batchItemFailures: [] });
    } finally {
      output.restore();
    }
    const lines = output.jsonLines();
    const warnings = lines.filter((line) => line.message === 'rule left out of evaluation: it cannot work');
    expect(warnings).toEqual([expect.objectContaining({ level: 'WARN', ruleId: 2, reason: expect.stringContaining('geoids') })]);
    const counted = lines.filter((line) => '_aws' in line && 'UnusableRules' in line).map((line) => line.UnusableRules);
    expect(counted).toEqual([1]);
  });
});
