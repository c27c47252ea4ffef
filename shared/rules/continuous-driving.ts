import type { z } from 'zod';
import { RULE_TYPES } from '../schemas/notification';
import { NO_EVENTS, deviceMs, messageEvent } from './message-values';
import { numberSetting, onceReadable, optionalNumberSetting, settingsMap } from './settings';
import type { RuleEvaluator } from './types';
import type { TypeReference } from './reference';

export const continuousDrivingSettingsSchema = settingsMap(() => ({
  /** Above this speed, km/h, the vehicle is driving. */
  maxSpeed: numberSetting(5, { min: 0, max: 200 }),
  /** Hours of driving allowed without a full rest. */
  hours: numberSetting(4.5, { min: 0.01, max: 24 }),
  /** Minutes one uninterrupted rest must last to start the count afresh. */
  restMinutes: numberSetting(45, { min: 1, max: 1_440 }),
  /** Minutes before the limit at which to warn; left out, no warning. */
  warnBefore: optionalNumberSetting({ min: 0.1, max: 1_440 }),
  /** Driving shorter than this (seconds) does not interrupt a rest: GPS noise, or moving the vehicle a few metres. */
  minDriving: numberSetting(60, { min: 0, max: 3_600 }),
  /** Seconds of a silence counted as what the vehicle was doing before it; the rest of a longer silence is a rest. */
  maxGap: numberSetting(300, { min: 10, max: 86_400 }),
})).refine((settings) => settings.warnBefore === undefined || settings.warnBefore < settings.hours * 60, {
  path: ['warnBefore'],
  message: 'must be less than the limit (hours × 60 minutes)',
  ...onceReadable,
});

export type ContinuousDrivingSettings = z.infer<typeof continuousDrivingSettingsSchema>;

/** Times are epoch ms of device time, lengths ms. */
export interface ContinuousDrivingState {
  /** The last message: when, and whether it showed the vehicle driving. */
  last: number;
  driving: boolean;
  /** Driving counted since the last full rest, and when that driving began (null: none yet). */
  driven: number;
  since: number | null;
  /** Length of the rest going on; 0 while driving. */
  rest: number;
  /** Driving since the rest was interrupted, not yet `minDriving` long: it may still prove to be noise. */
  pending: number;
  /** Whether this driving period's warning and limit alert were raised. */
  warned: boolean;
  alerted: boolean;
}

function rested(state: ContinuousDrivingState, length: number, settings: ContinuousDrivingSettings): void {
  // driving too short to end the rest was part of it
  state.rest += state.pending + length;
  state.pending = 0;
  if (state.rest >= settings.restMinutes * 60_000) {
    state.driven = 0;
    state.since = null;
    state.warned = false;
    state.alerted = false;
  }
}

function drove(state: ContinuousDrivingState, length: number, end: number, settings: ContinuousDrivingSettings): void {
  let counted = length;
  if (state.rest > 0) {
    state.pending += length;
    if (state.pending < settings.minDriving * 1000) return;
    counted = state.pending;
    state.pending = 0;
    state.rest = 0;
  }
  state.since ??= end - counted;
  state.driven += counted;
}

/**
 * Counts the time between two messages as what the earlier one showed (driving above `maxSpeed`, or resting),
 * at most `maxGap` of it; the rest of a longer silence is a rest. Only a rest of `restMinutes` in one piece
 * starts the count afresh. Alerts are judged at each message, once its time is counted.
 */
function advance(previous: ContinuousDrivingState, time: number, settings: ContinuousDrivingSettings): ContinuousDrivingState {
  const state = { ...previous };
  const elapsed = time - previous.last;
  const observed = Math.min(elapsed, settings.maxGap * 1000);
  if (previous.driving) drove(state, observed, previous.last + observed, settings);
  else rested(state, observed, settings);
  if (elapsed > observed) rested(state, elapsed - observed, settings);
  return state;
}

/**
 * `drivingLimit` once the vehicle has driven `hours` without a rest of `restMinutes` in one piece, and
 * `drivingLimitNear` `warnBefore` minutes earlier; each once per driving period. Late messages are ignored:
 * their time was already counted as what the message before them showed.
 */
export const continuousDrivingEvaluator: RuleEvaluator<ContinuousDrivingSettings, ContinuousDrivingState> = {
  type: RULE_TYPES.continuousDriving,
  settingsSchema: continuousDrivingSettingsSchema,

  evaluate({ settings }, previous, message) {
    const time = deviceMs(message);
    const driving = message.speed > settings.maxSpeed;
    if (previous === undefined) {
      return { state: { last: time, driving, driven: 0, since: null, rest: 0, pending: 0, warned: false, alerted: false }, events: NO_EVENTS };
    }
    const state = advance(previous, time, settings);
    state.last = time;
    state.driving = driving;
    const limit = settings.hours * 3_600_000;
    const warn = settings.warnBefore !== undefined && !state.warned && state.driven >= limit - settings.warnBefore * 60_000;
    const alert = !state.alerted && state.driven >= limit;
    // most messages raise nothing: the events and their values are built only when one is due
    if (!warn && !alert) return { state, events: NO_EVENTS };
    const values = {
      drivingMinutes: Math.floor(state.driven / 60_000),
      hours: settings.hours,
      restMinutes: settings.restMinutes,
      since: new Date(state.since!).toISOString(),
    };
    const events = [];
    if (warn) {
      state.warned = true;
      events.push(messageEvent('drivingLimitNear', message, { ...values, minutesLeft: Math.max(0, Math.ceil((limit - state.driven) / 60_000)) }));
    }
    if (alert) {
      state.alerted = true;
      events.push(messageEvent('drivingLimit', message, values));
    }
    return { state, events };
  },
};

/** What the settings of type 15 mean and default to, for people (settings-reference.ts). */
export const continuousDrivingReference: TypeReference = {
  name: 'continuous driving',
  events: 'drivingLimitNear (with warnBefore), drivingLimit',
  settings: [
    { key: 'maxSpeed', default: '5', meaning: 'km/h above which the vehicle is driving (0–200)' },
    { key: 'hours', default: '4.5', meaning: 'hours of driving allowed without a full rest (0.01–24)' },
    { key: 'restMinutes', default: '45', meaning: 'minutes a rest must last in one piece to start the count afresh (1–1440)' },
    { key: 'warnBefore', default: null, meaning: 'minutes before the limit at which to warn (0.1–1440); left out, no warning' },
    {
      key: 'minDriving',
      default: '60',
      meaning: 'seconds of driving needed to interrupt a rest; shorter movement (GPS noise, shunting) counts as part of the rest (0–3600)',
    },
    {
      key: 'maxGap',
      default: '300',
      meaning: 'seconds of a silence counted as what the vehicle was doing before it; the rest of a longer silence counts as a rest (10–86400)',
    },
  ],
  constraints: ['warnBefore must be less than hours × 60'],
  example: {},
};
