import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulators } from '../../../infra/local/emulators';
import { describeTrace, replayAndCheck, startReplayChannels, type ReplayChannels, type ScenarioSummary } from '../../support/replay-check';
import { startReplayEmulators } from '../../support/replay-emulators';
import { SCENARIOS } from '../../support/replay-scenarios';
import { FULL_TRACE, generateTrace } from '../../support/trace-generator';

/**
 * Replay proof, full version: 500 vehicles, 100,000 messages, each scenario (the chaos ones included)
 * through the real evaluate, deliver and sweep functions against the emulators. Run by `npm run test:replay` only.
 */
const trace = generateTrace(FULL_TRACE);
const summaries: ScenarioSummary[] = [];

describe('full replay', () => {
  afterAll(() => {
    console.log(`replay trace: ${describeTrace(trace)}`);
    console.table(
      summaries.map(
        ({ scenario, records, expected, alerts, missing, duplicated, emails, telegrams, redeliveries, outboxReenqueued, deliveryRetries }) => ({
          scenario,
          records,
          expected,
          alerts,
          missing,
          duplicated,
          emails,
          telegrams,
          redeliveries,
          outboxReenqueued,
          deliveryRetries,
        }),
      ),
    );
    console.table(
      summaries.map(({ scenario, crashes, kills, failedInvocations, failedSweeps, chaos }) => ({
        scenario,
        ...crashes,
        ...kills,
        failedInvocations,
        failedSweeps,
        ...chaos,
      })),
    );
  });

  it('is at least 500 vehicles and 100,000 messages', () => {
    expect(trace.vehicles.length).toBeGreaterThanOrEqual(500);
    expect(trace.vehicles.reduce((sum, vehicle) => sum + vehicle.messages.length, 0)).toBeGreaterThanOrEqual(100_000);
  });

  describe.each(SCENARIOS)('%s', (scenario) => {
    let emulators: Emulators;
    let channels: ReplayChannels;
    beforeAll(async () => {
      emulators = await startReplayEmulators(`replay-full-${scenario}`, scenario);
      channels = await startReplayChannels();
    });
    afterAll(async () => {
      await channels?.stop();
      await emulators?.stop();
    });

    it('raises exactly one alert per planted episode, inside its window, and e-mails and Telegrams each alert once', async () => {
      // the killed scenario takes a minute of arrivals per batch, so that batches commit in several transactions
      const summary = await replayAndCheck(trace, scenario, emulators, channels, scenario === 'killed' ? 5_000 : 250);
      console.log(`replay ${scenario}: ${JSON.stringify(summary)}`);
      summaries.push(summary);
      expect(summary.alerts).toBe(trace.expected.length);
    });
  });
});
