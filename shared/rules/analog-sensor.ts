import type { z } from 'zod';
import { RULE_TYPES } from '../schemas/notification';
import { NO_EVENTS, deviceMs, messageEvent, numericParameter } from './message-values';
import { onceReadable, enumSetting, numberSetting, optionalNumberSetting, parameterKeySetting, settingsMap } from './settings';
import type { RuleEvaluator } from './types';
import type { TypeReference } from './reference';

export const analogSensorSettingsSchema = settingsMap(() => ({
  /** Numeric parameter to watch. */
  parameter: parameterKeySetting('ain1'),
  /** The range, inclusive; either bound may be left out (open range), not both. */
  min: optionalNumberSetting(),
  max: optionalNumberSetting(),
  /** Alert when the value is outside the range (default) or inside it. */
  mode: enumSetting(['outside', 'inside'], 'outside'),
  /** Seconds the condition must hold before the alert; 0 alerts on the first reading. */
  minDuration: numberSetting(0, { min: 0, max: 86_400 }),
  /** The condition ends only once the value is this far (parameter units) back on the other side, against flapping. */
  hysteresis: numberSetting(0, { min: 0, max: 1_000_000 }),
}))
  .refine((settings) => settings.min !== undefined || settings.max !== undefined, {
    path: ['min'],
    message: 'min or max is required',
    ...onceReadable,
  })
  .refine((settings) => settings.min === undefined || settings.max === undefined || settings.min <= settings.max, {
    path: ['min'],
    message: 'min must not exceed max',
    ...onceReadable,
  })
  // Outside a two-sided range an episode ends only inside [min + hysteresis, max − hysteresis]: that band must exist.
  .refine(
    (settings) =>
      settings.mode !== 'outside' ||
      settings.min === undefined ||
      settings.max === undefined ||
      settings.hysteresis === 0 ||
      2 * settings.hysteresis < settings.max - settings.min,
    {
      path: ['hysteresis'],
      message: 'with mode outside, twice the hysteresis must be less than max − min, or an episode could never end',
      ...onceReadable,
    },
  );

export type AnalogSensorSettings = z.infer<typeof analogSensorSettingsSchema>;

/** Present while the condition holds: since when (epoch ms) and whether it was reported. */
export interface AnalogSensorState {
  since: number;
  alerted: boolean;
}

function inRange(value: number, min: number | undefined, max: number | undefined, widen: number): boolean {
  return (min === undefined || value >= min - widen) && (max === undefined || value <= max + widen);
}

/**
 * One alert per episode: `sensorOutOfRange` (mode outside) or `sensorInRange` (mode inside) once the condition
 * has held for `minDuration`. An episode ends when the value is back beyond the hysteresis band; a reading
 * without the parameter changes nothing.
 */
export const analogSensorEvaluator: RuleEvaluator<AnalogSensorSettings, AnalogSensorState> = {
  type: RULE_TYPES.analogSensor,
  settingsSchema: analogSensorSettingsSchema,

  evaluate({ settings }, state, message) {
    const value = numericParameter(message, settings.parameter);
    if (value === undefined) return { state, events: NO_EVENTS };
    const { min, max, hysteresis } = settings;
    // While an episode runs, the band that ends it is narrowed (mode outside) or widened (mode inside).
    const band = state === undefined ? 0 : settings.mode === 'outside' ? -hysteresis : hysteresis;
    const holds = settings.mode === 'outside' ? !inRange(value, min, max, band) : inRange(value, min, max, band);
    if (!holds) return { state: undefined, events: NO_EVENTS };
    const time = deviceMs(message);
    const since = state?.since ?? time;
    if (state?.alerted || time - since < settings.minDuration * 1000) {
      return { state: state ?? { since, alerted: false }, events: NO_EVENTS };
    }
    return {
      state: { since, alerted: true },
      events: [
        messageEvent(settings.mode === 'outside' ? 'sensorOutOfRange' : 'sensorInRange', message, {
          parameter: settings.parameter,
          value,
          min: min ?? null,
          max: max ?? null,
          since: new Date(since).toISOString(),
        }),
      ],
    };
  },

  episode: ({ settings }, state) =>
    state?.alerted ? { since: state.since, kind: settings.mode === 'outside' ? 'sensorOutOfRange' : 'sensorInRange' } : undefined,

  cutShort: (_rule, before, after) => !before.alerted && after?.since !== before.since,
};

/** What the settings of type 9 mean and default to, for people (settings-reference.ts). */
export const analogSensorReference: TypeReference = {
  name: 'analog sensor',
  events: 'sensorOutOfRange (mode outside), sensorInRange (mode inside)',
  settings: [
    { key: 'parameter', default: 'ain1', meaning: 'numeric parameter' },
    { key: 'min', default: null, meaning: 'lower bound of the range, inclusive' },
    { key: 'max', default: null, meaning: 'upper bound of the range, inclusive' },
    { key: 'mode', default: 'outside', meaning: 'alert when the value is outside or inside the range' },
    { key: 'minDuration', default: '0', meaning: 'seconds the condition must hold (0–86400)' },
    { key: 'hysteresis', default: '0', meaning: 'how far back across a bound (parameter units) the value must come to end an episode (0–1000000)' },
  ],
  constraints: [
    'min or max is required',
    'min must not exceed max',
    'with mode outside and both bounds, twice the hysteresis must be less than max − min',
  ],
  example: { max: '100' },
};
