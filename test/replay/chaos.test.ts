import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { replayAndCheck, startReplayChannels, type ReplayChannels } from '../support/replay-check';
import { startReplayEmulators } from '../support/replay-emulators';
import { CHAOS_SCENARIOS } from '../support/replay-scenarios';
import { generateTrace, SMALL_CHAOS_TRACE, SMALL_KILLED_TRACE } from '../support/trace-generator';

/**
 * Chaos replay, small version: DynamoDB Local stopped and restarted with its data twice, fauxqs stopped and
 * restarted with its data, SES throttling and failing for 2 minutes (through a fault proxy, since
 * aws-ses-v2-local cannot be told to fail), the Telegram Bot API fake unreachable for 5 minutes and then
 * answering 429 with retry_after, and evaluate invocations killed inside their batch. Each ends with every
 * planted alert raised once and e-mailed and sent to Telegram once. The full version runs with
 * `npm run test:replay`.
 */
const trace = generateTrace(SMALL_CHAOS_TRACE);
// a minute's batch of this fleet commits in two transactions, so an invocation can die between them
const killedTrace = generateTrace(SMALL_KILLED_TRACE);

describe.each(CHAOS_SCENARIOS)('chaos replay: %s', (scenario) => {
  let emulators: Emulators;
  let channels: ReplayChannels;
  beforeAll(async () => {
    emulators = await startReplayEmulators(`chaos-${scenario}`, scenario);
    channels = await startReplayChannels();
  });
  afterAll(async () => {
    await channels?.stop();
    await emulators?.stop();
  });

  it('raises exactly one alert per planted episode and e-mails and Telegrams each alert once', async () => {
    const scenarioTrace = scenario === 'killed' ? killedTrace : trace;
    const summary = await replayAndCheck(scenarioTrace, scenario, emulators, channels, scenario === 'killed' ? 1_000 : 100);
    console.log(`chaos replay ${scenario}: ${JSON.stringify(summary)}`);
    expect(summary.missing + summary.duplicated).toBe(0);
    expect(summary.alerts).toBe(scenarioTrace.expected.length);
  }, 300_000);
});
