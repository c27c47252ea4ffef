import type { z } from 'zod';
import type { RuleEvent } from '../schemas/alert';
import { RULE_TYPES } from '../schemas/notification';
import { NO_EVENTS, deviceMs, messageEvent, numericParameter, round } from './message-values';
import { booleanSetting, numberSetting, onceReadable, parameterKeySetting, settingsMap } from './settings';
import type { RuleEvaluator } from './types';
import type { TypeReference } from './reference';

const fuelSettings = () => ({
  /** Message parameter holding the fuel level in litres. */
  parameter: parameterKeySetting('fuel'),
  /** Smallest change of the filtered level, litres, that counts as a drain or a fuelling. */
  threshold: numberSetting(10, { min: 0.1, max: 100_000 }),
  /** Number of readings in the median filter (odd); spikes, sloshing and tilting shorter than half of it are ignored. */
  window: numberSetting(5, { min: 1, max: 31, int: true }).refine((size) => size % 2 === 1, { message: 'must be odd' }),
  /** Below this speed, km/h, the vehicle counts as parked. */
  parkedSpeed: numberSetting(5, { min: 0, max: 200 }),
  /** Only watch while parked (default): level changes while driving are consumption and sloshing. */
  onlyParked: booleanSetting(true),
  /**
   * The change must happen within this many seconds: the reference level is renewed when older, so slow
   * consumption (an idling engine) never adds up to a drain.
   */
  referenceWindow: numberSetting(900, { min: 60, max: 86_400 }),
  /** Seconds without further change after which the drain or fuelling is reported with its full volume. */
  settle: numberSetting(120, { min: 0, max: 86_400 }),
});

export const fuelChangeSettingsSchema = settingsMap(fuelSettings).refine((settings) => !settings.onlyParked || settings.parkedSpeed > 0, {
  path: ['parkedSpeed'],
  message: 'must be above 0 while onlyParked is true: no reported speed is below 0',
  ...onceReadable,
});
export type FuelChangeSettings = z.infer<typeof fuelChangeSettingsSchema>;

export interface FuelChangeState {
  /** The last `window` raw readings, litres. */
  samples: number[];
  /** Reference level (filtered, litres) and since when it holds (epoch ms); null while the filter fills. */
  reference: number | null;
  referenceTime: number;
  /** A change beyond the threshold, waiting to settle. */
  change: { from: number; extreme: number; extremeTime: number; detectedAt: number } | null;
}

const scratch = new Float64Array(31);

/** Median (lower middle) of at most 31 readings, by insertion sort into a reused buffer: no allocation. */
function median(values: readonly number[]): number {
  const count = values.length;
  for (let i = 0; i < count; i++) {
    const value = values[i]!;
    let j = i - 1;
    while (j >= 0 && scratch[j]! > value) {
      scratch[j + 1] = scratch[j]!;
      j--;
    }
    scratch[j + 1] = value;
  }
  return scratch[(count - 1) >> 1]!;
}

/**
 * Drain (level falls) and fuelling (level rises) share one detector, with the sign flipped. The level is the
 * median of the last `window` readings; a change is the distance between that level and a reference level
 * kept from the last `referenceWindow` seconds. Once the change exceeds the threshold it is followed until
 * the level stops moving for `settle` seconds (or the vehicle drives off), then reported once with its volume,
 * unless the level has come back in the meantime.
 */
function fuelChangeEvaluator(kind: 'drain' | 'fuelling'): RuleEvaluator<FuelChangeSettings, FuelChangeState> {
  const sign = kind === 'drain' ? -1 : 1;
  /** How far the level moved in this evaluator's direction from `from` to `to`. */
  const moved = (from: number, to: number) => sign * (to - from);

  return {
    type: kind === 'drain' ? RULE_TYPES.drain : RULE_TYPES.fuelling,
    settingsSchema: fuelChangeSettingsSchema,

    evaluate({ settings }, state, message) {
      const reading = numericParameter(message, settings.parameter);
      if (reading === undefined) return { state, events: NO_EVENTS };
      const time = deviceMs(message);
      const samples = state ? state.samples.slice(Math.max(0, state.samples.length - settings.window + 1)) : [];
      samples.push(reading);
      if (samples.length < settings.window) return { state: { samples, reference: null, referenceTime: time, change: null }, events: NO_EVENTS };

      const level = median(samples);
      const watching = !settings.onlyParked || message.speed < settings.parkedSpeed;
      let reference = state?.reference ?? null;
      let referenceTime = state?.referenceTime ?? time;
      let change = state?.change ?? null;
      const events: RuleEvent[] = [];

      if (change !== null) {
        if (moved(change.extreme, level) > 0) {
          change = { ...change, extreme: level, extremeTime: time };
        }
        if (!watching || time - change.extremeTime >= settings.settle * 1000) {
          if (moved(change.from, level) >= settings.threshold) {
            events.push(
              messageEvent(kind, message, {
                before: round(change.from),
                after: round(change.extreme),
                volume: round(Math.abs(change.extreme - change.from)),
                parameter: settings.parameter,
                since: new Date(change.detectedAt).toISOString(),
              }),
            );
          }
          change = null;
          reference = level;
          referenceTime = time;
        }
      } else if (reference === null || !watching) {
        reference = level;
        referenceTime = time;
      } else if (moved(reference, level) >= settings.threshold) {
        change = { from: reference, extreme: level, extremeTime: time, detectedAt: time };
      } else if (moved(reference, level) < 0 || time - referenceTime > settings.referenceWindow * 1000) {
        // A level moving the other way, or a stale reference, becomes the new reference.
        reference = level;
        referenceTime = time;
      }
      return { state: { samples, reference, referenceTime, change }, events };
    },
  };
}

export const drainEvaluator = fuelChangeEvaluator('drain');
export const fuellingEvaluator = fuelChangeEvaluator('fuelling');

/** What the settings of types 4 and 5 mean and default to, for people (settings-reference.ts). */
const fuelReference = (kind: 'drain' | 'fuelling'): TypeReference => ({
  name: kind,
  events: kind,
  settings: [
    { key: 'parameter', default: 'fuel', meaning: 'message parameter with the fuel level, litres' },
    { key: 'threshold', default: '10', meaning: 'smallest change of the filtered level that counts, litres (0.1–100000)' },
    { key: 'window', default: '5', meaning: 'readings in the median filter (odd, 1–31)' },
    { key: 'onlyParked', default: 'true', meaning: 'watch only while parked (true/false)' },
    { key: 'parkedSpeed', default: '5', meaning: 'km/h below which the vehicle is parked (0–200)' },
    { key: 'referenceWindow', default: '900', meaning: 'seconds within which the change must happen (60–86400)' },
    { key: 'settle', default: '120', meaning: 'seconds without further change before reporting (0–86400)' },
  ],
  constraints: ['parkedSpeed must be above 0 while onlyParked is true'],
  example: {},
});
export const drainReference = fuelReference('drain');
export const fuellingReference = fuelReference('fuelling');
