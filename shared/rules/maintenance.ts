import * as z from 'zod';
import { RULE_TYPES } from '../schemas/notification';
import { NO_EVENTS, messageEvent, numericParameter, round } from './message-values';
import { enumSetting, numberSetting, optionalNumberSetting, settingsMap } from './settings';
import type { RuleEvaluator } from './types';
import type { TypeReference } from './reference';

const COUNTERS = {
  mileage: { parameter: 'mileage', unit: 'km', interval: 10_000 },
  engineHours: { parameter: 'engineHours', unit: 'h', interval: 250 },
} as const;

export const maintenanceSettingsSchema = settingsMap(() => ({
  /** What is counted: mileage (km) or engineHours (h). Names are matched case-insensitively. */
  counter: enumSetting(['mileage', 'enginehours'], 'mileage'),
  /** Message parameter with the counter's value; defaults to `mileage` or `engineHours`. */
  parameter: z.string().trim().min(1).max(64).optional(),
  /** Service interval in the counter's unit; defaults to 10,000 km or 250 h. */
  interval: optionalNumberSetting({ min: 1, max: 1_000_000_000 }),
  /** Counter value the intervals are counted from (the last service). */
  base: numberSetting(0, { min: 0, max: 1_000_000_000 }),
})).transform(({ counter, parameter, interval, base }) => {
  const defaults = counter === 'mileage' ? COUNTERS.mileage : COUNTERS.engineHours;
  return {
    counter: counter === 'mileage' ? ('mileage' as const) : ('engineHours' as const),
    parameter: parameter ?? defaults.parameter,
    unit: defaults.unit,
    interval: interval ?? defaults.interval,
    base,
  };
});

export type MaintenanceSettings = z.infer<typeof maintenanceSettingsSchema>;

export interface MaintenanceState {
  /** Index of the last service threshold passed (0 below base + interval); null until two readings agree. */
  level: number | null;
  /** A different index read once, awaiting confirmation by the next reading. */
  candidate: number | null;
}

/**
 * `maintenanceDue` each time the counter passes base + k × interval. A new index must be read twice in a row
 * before it counts, so one garbage reading neither alerts nor hides the next real threshold. Passing several
 * thresholds at once (after a long silence) raises one alert naming the highest. The first readings set the
 * starting point without alerting; a counter that goes down (replaced unit) moves it down silently.
 */
export const maintenanceEvaluator: RuleEvaluator<MaintenanceSettings, MaintenanceState> = {
  type: RULE_TYPES.maintenance,
  settingsSchema: maintenanceSettingsSchema,

  evaluate({ settings }, state, message) {
    const value = numericParameter(message, settings.parameter);
    if (value === undefined) return { state, events: NO_EVENTS };
    const index = Math.max(0, Math.floor((value - settings.base) / settings.interval));
    const level = state?.level ?? null;
    if (index === level) return { state: state!.candidate === null ? state! : { level, candidate: null }, events: NO_EVENTS };
    if (state?.candidate !== index) return { state: { level, candidate: index }, events: NO_EVENTS };
    if (level === null || index < level) return { state: { level: index, candidate: null }, events: NO_EVENTS };
    return {
      state: { level: index, candidate: null },
      events: [
        messageEvent('maintenanceDue', message, {
          counter: settings.counter,
          parameter: settings.parameter,
          value: round(value),
          threshold: settings.base + index * settings.interval,
          interval: settings.interval,
          unit: settings.unit,
          thresholdsPassed: index - level,
        }),
      ],
    };
  },
};

/** What the settings of type 12 mean and default to, for people (settings-reference.ts). */
export const maintenanceReference: TypeReference = {
  name: 'maintenance',
  events: 'maintenanceDue',
  settings: [
    { key: 'counter', default: 'mileage', meaning: 'what is counted: mileage (km) or engineHours (h)' },
    { key: 'parameter', default: null, meaning: 'counter parameter; when left out, mileage or engineHours after counter' },
    { key: 'interval', default: null, meaning: 'service interval; when left out, 10000 km or 250 h after counter (1–1000000000)' },
    { key: 'base', default: '0', meaning: 'counter value the intervals are counted from, the last service (0–1000000000)' },
  ],
  constraints: [],
  example: {},
};
