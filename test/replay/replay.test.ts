import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { replayAndCheck, startReplayChannels, type ReplayChannels } from '../support/replay-check';
import { startReplayEmulators } from '../support/replay-emulators';
import { CHAOS_SCENARIOS, DURABLE_SCENARIOS, SCENARIOS } from '../support/replay-scenarios';
import { countByKind, generateTrace, SMALL_TRACE, type ExpectedAlert } from '../support/trace-generator';

/**
 * Replay proof, small version (40 vehicles, 4,000 messages): the trace's planted episodes through the real
 * evaluate, deliver and sweep functions against the emulators, in order, duplicated, reordered and with
 * crashes between commit and delivery enqueue (the chaos scenarios are in chaos.test.ts). The full version (500 vehicles, 100,000 messages) is
 * test/replay/full, run by `npm run test:replay`.
 */
const trace = generateTrace(SMALL_TRACE);

describe('trace generator', () => {
  it('is deterministic for a seed and differs between seeds', () => {
    expect(generateTrace(SMALL_TRACE)).toEqual(trace);
    expect(generateTrace({ ...SMALL_TRACE, seed: SMALL_TRACE.seed + 1 }).expected).not.toEqual(trace.expected);
  });

  it('has the requested size, messages about every 10 s in device-time order, apart from planted silences', () => {
    expect(trace.vehicles).toHaveLength(SMALL_TRACE.vehicles);
    let silences = 0;
    for (const vehicle of trace.vehicles) {
      expect(vehicle.messages).toHaveLength(SMALL_TRACE.messagesPerVehicle);
      const times = vehicle.messages.map((message) => Date.parse(message.deviceTime));
      for (let index = 1; index < times.length; index++) {
        const interval = times[index]! - times[index - 1]!;
        if (interval > 60_000) {
          silences++;
          expect(interval).toBeGreaterThanOrEqual(24 * 60_000);
          expect(interval).toBeLessThanOrEqual(28 * 60_000);
          continue;
        }
        expect(interval).toBeGreaterThanOrEqual(9_000);
        expect(interval).toBeLessThanOrEqual(11_000);
      }
    }
    expect(silences).toBe(trace.planted.silence);
  });

  it('plants every kind of episode, with disjoint windows per vehicle, rule and kind', () => {
    expect(Object.keys(countByKind(trace.expected)).sort()).toEqual([
      'connectionLost',
      'connectionRestored',
      'deviceAlarm',
      'drain',
      'drivingLimit',
      'drivingLimitNear',
      'fuelling',
      'idle',
      'movement',
      'panic',
      'parking',
      'parkingEnded',
      'speeding',
      'zoneEntry',
      'zoneExit',
    ]);
    const byKey = new Map<string, ExpectedAlert[]>();
    for (const episode of trace.expected) {
      expect(episode.from).toBeLessThanOrEqual(episode.to);
      const key = `${episode.ruleId}|${episode.vehicleId}|${episode.kind}`;
      byKey.set(key, [...(byKey.get(key) ?? []), episode]);
    }
    for (const episodes of byKey.values()) {
      const sorted = [...episodes].sort((a, b) => a.from - b.from);
      for (let index = 1; index < sorted.length; index++) expect(sorted[index]!.from).toBeGreaterThan(sorted[index - 1]!.to);
    }
    for (const lookAlike of [
      'speedBlip (no alert)',
      'nearLimit (no alert)',
      'shortStop (no alert)',
      'parked (no alert)',
      'borderHover (no alert)',
      'fuelSpike (no alert)',
      'longPark',
      'tow',
      'voltageDip (no alert)',
    ]) {
      expect(trace.planted[lookAlike], lookAlike).toBeGreaterThan(0);
    }
  });
});

// the chaos and durable-delivery scenarios have files of their own (chaos.test.ts, durable.test.ts)
const plain = SCENARIOS.filter((scenario) => !CHAOS_SCENARIOS.includes(scenario) && !DURABLE_SCENARIOS.includes(scenario));

describe.each(plain)('replay of %s messages', (scenario) => {
  let emulators: Emulators;
  let channels: ReplayChannels;
  beforeAll(async () => {
    emulators = await startReplayEmulators(`replay-${scenario}`, scenario);
    channels = await startReplayChannels();
  });
  afterAll(async () => {
    await channels?.stop();
    await emulators?.stop();
  });

  it('raises exactly one alert per planted episode, inside its window, and e-mails and Telegrams each alert once', async () => {
    const summary = await replayAndCheck(trace, scenario, emulators, channels, 100);
    expect(summary.alerts).toBe(trace.expected.length);
  }, 600_000);
});
