import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulators } from '../../../infra/local/emulators';
import { startTestEmulators } from '../../support/emulators';
import { describeTrace, replayAndCheck, type ScenarioSummary } from '../../support/replay-check';
import { SCENARIOS } from '../../support/replay-scenarios';
import { FULL_TRACE, generateTrace } from '../../support/trace-generator';

/**
 * Replay proof, full version: 500 vehicles, 100,000 messages, each scenario through the real evaluate,
 * deliver and sweep functions against the emulators. Run by `npm run test:replay` only.
 */
const trace = generateTrace(FULL_TRACE);
const summaries: ScenarioSummary[] = [];

describe('full replay', () => {
  afterAll(() => {
    console.log(`replay trace: ${describeTrace(trace)}`);
    console.table(
      summaries.map(({ crashes, ...summary }) => ({ ...summary, crashesBeforeEnqueue: crashes.beforeEnqueue, crashesAfterEnqueue: crashes.afterEnqueue })),
    );
  });

  it('is at least 500 vehicles and 100,000 messages', () => {
    expect(trace.vehicles.length).toBeGreaterThanOrEqual(500);
    expect(trace.vehicles.reduce((sum, vehicle) => sum + vehicle.messages.length, 0)).toBeGreaterThanOrEqual(100_000);
  });

  describe.each(SCENARIOS)('%s', (scenario) => {
    let emulators: Emulators;
    beforeAll(async () => {
      emulators = await startTestEmulators(`replay-full-${scenario}`);
    });
    afterAll(async () => emulators.stop());

    it('raises exactly one alert per planted episode, inside its window, and e-mails each alert once', async () => {
      const summary = await replayAndCheck(trace, scenario, emulators, 250);
      summaries.push(summary);
      expect(summary.alerts).toBe(trace.expected.length);
    });
  });
});
