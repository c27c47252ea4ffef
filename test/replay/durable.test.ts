import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { replayAndCheck, startReplayChannels, type ReplayChannels } from '../support/replay-check';
import { startReplayEmulators } from '../support/replay-emulators';
import { DURABLE_SCENARIOS } from '../support/replay-scenarios';
import { generateTrace, SMALL_DURABLE_TRACE } from '../support/trace-generator';

/**
 * Durable delivery, small version: the Telegram Bot API down for 3 hours, the client's webhook receiver answering
 * 503 for 6 hours, SES throttling for 30 minutes, on a simulated clock so that hours pass in seconds. Each ends
 * with every planted alert raised once and delivered once per target (e-mail, Telegram, webhook), each target
 * held by the fault delivered within one step of the retry schedule after it ended, and the deliveries DLQ empty.
 * The full version runs with `npm run test:replay`.
 */
const trace = generateTrace(SMALL_DURABLE_TRACE);

describe.each(DURABLE_SCENARIOS)('durable delivery replay: %s', (scenario) => {
  let emulators: Emulators;
  let channels: ReplayChannels;
  beforeAll(async () => {
    emulators = await startReplayEmulators(`durable-${scenario}`, scenario);
    channels = await startReplayChannels();
  });
  afterAll(async () => {
    await channels?.stop();
    await emulators?.stop();
  });

  it('delivers every alert once per target through the outage, and leaves nothing on the DLQ', async () => {
    const summary = await replayAndCheck(trace, scenario, emulators, channels, 100);
    console.log(`durable replay ${scenario}: ${JSON.stringify(summary)}`);
    expect(summary.missing + summary.duplicated).toBe(0);
    expect(summary.alerts).toBe(trace.expected.length);
    expect(summary.webhooks).toBe(summary.alerts);
    expect(summary.deadLettered).toBe(0);
  }, 600_000);
});
