import type { z } from 'zod';
import { RULE_TYPES } from '../schemas/notification';
import { NO_EVENTS, deviceMs, messageEvent, switchParameter } from './message-values';
import { booleanSetting, enumSetting, numberSetting, parameterKeySetting, settingsMap } from './settings';
import { followStop, stopAt, type StopPoint } from './stop-point';
import type { RuleEvaluator } from './types';
import type { TypeReference } from './reference';

/** Type 13, parking: the vehicle stands at one place for `minutes`, with the ignition as the rule asks. */
export const parkingSettingsSchema = settingsMap(() => ({
  /** Minutes of standing before the alert. */
  minutes: numberSetting(30, { min: 1, max: 10_080 }),
  /** A stop begins at a fix at or below this speed, km/h. */
  maxSpeed: numberSetting(5, { min: 0, max: 200 }),
  /** Metres from the stop point within which the vehicle still stands there (GPS drift). */
  radius: numberSetting(50, { min: 10, max: 10_000 }),
  /** Which stops count: with the ignition `off`, `on`, or `any`. */
  ignition: enumSetting(['off', 'on', 'any'], 'any'),
  /** Digital parameter of the ignition. */
  parameter: parameterKeySetting('ignition'),
  /** Also alert when an alerted stop ends. */
  notifyEnd: booleanSetting(false),
}));

export type ParkingSettings = z.infer<typeof parkingSettingsSchema>;

/** Present while the vehicle stands: the stop, and whether it was reported. */
export interface ParkingState extends StopPoint {
  alerted: boolean;
}

/** Fixes in a row beyond `radius` that end a stop: one stray fix does not. */
const LEAVING_FIXES = 2;

/** Whether the ignition reading is as the rule asks; undefined when it asks for one and the message has none. */
function ignitionFits(settings: ParkingSettings, reading: boolean | undefined): boolean | undefined {
  if (settings.ignition === 'any') return true;
  return reading === undefined ? undefined : reading === (settings.ignition === 'on');
}

const minutesBetween = (from: number, to: number) => Math.floor((to - from) / 60_000);

/**
 * One `parking` alert per stop that lasts `minutes`, and, with `notifyEnd`, one `parkingEnded` when that stop
 * ends: two fixes in a row beyond `radius`, or an ignition reading the rule does not ask for. A reading without
 * the ignition parameter changes nothing.
 */
export const parkingEvaluator: RuleEvaluator<ParkingSettings, ParkingState> = {
  type: RULE_TYPES.parking,
  settingsSchema: parkingSettingsSchema,

  evaluate({ settings }, state, message) {
    const time = deviceMs(message);
    const fits = ignitionFits(settings, switchParameter(message, settings.parameter));
    const starts = fits === true && message.speed <= settings.maxSpeed;
    if (state === undefined) return { state: starts ? { ...stopAt(message, time), alerted: false } : undefined, events: NO_EVENTS };
    if (fits !== false) {
      const followed = followStop(state, message, time, settings.radius, LEAVING_FIXES);
      if (followed.verdict === 'straying') return { state: { ...followed.stop, alerted: state.alerted }, events: NO_EVENTS };
      if (followed.verdict === 'at') {
        if (state.alerted || time - state.since < settings.minutes * 60_000)
          return { state: { ...followed.stop, alerted: state.alerted }, events: NO_EVENTS };
        return {
          state: { ...followed.stop, alerted: true },
          events: [
            messageEvent('parking', message, {
              parkedMinutes: minutesBetween(state.since, time),
              since: new Date(state.since).toISOString(),
              minutes: settings.minutes,
            }),
          ],
        };
      }
    }
    // the stop is over; this fix may begin the next one
    const next = starts ? { ...stopAt(message, time), alerted: false } : undefined;
    if (!state.alerted || !settings.notifyEnd) return { state: next, events: NO_EVENTS };
    return {
      state: next,
      events: [
        messageEvent('parkingEnded', message, {
          parkedMinutes: minutesBetween(state.since, state.last),
          parkedSince: new Date(state.since).toISOString(),
        }),
      ],
    };
  },

  episode: (_rule, state) => (state?.alerted ? { since: state.since, kind: 'parking' } : undefined),

  cutShort: (_rule, before, after) => !before.alerted && after?.since !== before.since,
};

/** What the settings of type 13 mean and default to, for people (settings-reference.ts). */
export const parkingReference: TypeReference = {
  name: 'parking',
  events: 'parking, parkingEnded (notifyEnd)',
  settings: [
    { key: 'minutes', default: '30', meaning: 'minutes standing at one place before the alert (1–10080)' },
    { key: 'maxSpeed', default: '5', meaning: 'km/h at or below which a fix begins a stop (0–200)' },
    {
      key: 'radius',
      default: '50',
      meaning:
        'metres from the stop point within which the vehicle still stands there, whatever speed GPS drift reports; two fixes in a row beyond it end the stop (10–10000)',
    },
    { key: 'ignition', default: 'any', meaning: 'which stops count: with the ignition off, on, or any; a reading otherwise ends the stop' },
    { key: 'parameter', default: 'ignition', meaning: 'digital parameter of the ignition' },
    { key: 'notifyEnd', default: 'false', meaning: 'also alert when a reported stop ends (true/false)' },
  ],
  constraints: [],
  example: {},
};
