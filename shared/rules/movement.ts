import type { z } from 'zod';
import { RULE_TYPES } from '../schemas/notification';
import type { TerminalMessage } from '../schemas/terminal-message';
import { NO_EVENTS, deviceMs, messageEvent, round, switchParameter } from './message-values';
import { booleanSetting, numberSetting, parameterKeySetting, settingsMap } from './settings';
import { followStop, stopAt, type StopPoint } from './stop-point';
import type { RuleEvaluator } from './types';
import type { TypeReference } from './reference';

/**
 * Type 14, movement: the vehicle leaves a place where it stood for `minStop` minutes. With a schedule it
 * watches for use after hours; with `ignitionOff`, for towing or theft.
 */
export const movementSettingsSchema = settingsMap(() => ({
  /** Metres from the stop point beyond which the vehicle has moved. */
  distance: numberSetting(200, { min: 10, max: 100_000 }),
  /** Minutes the vehicle must have stood before moving counts. */
  minStop: numberSetting(10, { min: 1, max: 10_080 }),
  /** A stop begins at a fix at or below this speed, km/h. */
  maxSpeed: numberSetting(5, { min: 0, max: 200 }),
  /** Only movement with the ignition off counts: an ignition reading on ends the watch. */
  ignitionOff: booleanSetting(false),
  /** Digital parameter of the ignition. */
  parameter: parameterKeySetting('ignition'),
  /** Fixes in a row beyond `distance` that make a movement: 2 or more, and a lone stray fix raises nothing. */
  confirmFixes: numberSetting(1, { min: 1, max: 10, int: true }),
}));

export type MovementSettings = z.infer<typeof movementSettingsSchema>;

/** Present while the vehicle stands. */
export type MovementState = StopPoint;

/**
 * One `movement` alert when the vehicle, having stood for `minStop` minutes, has `confirmFixes` fixes in a row
 * farther than `distance` from where it stood. Movement is judged by that displacement alone, never by the
 * reported speed. With `ignitionOff`, a stop begins only at a fix with the ignition off and ends silently at
 * one with it on; fixes without the ignition parameter leave it as last read.
 */
/** The stop is over, or there is none: this fix may begin one. */
function nextStop(settings: MovementSettings, message: TerminalMessage, time: number, ignition: boolean | undefined): StopPoint | undefined {
  return message.speed <= settings.maxSpeed && (!settings.ignitionOff || ignition === false) ? stopAt(message, time) : undefined;
}

export const movementEvaluator: RuleEvaluator<MovementSettings, MovementState> = {
  type: RULE_TYPES.movement,
  settingsSchema: movementSettingsSchema,

  evaluate({ settings }, state, message) {
    const time = deviceMs(message);
    const ignition = switchParameter(message, settings.parameter);
    if (state === undefined || (settings.ignitionOff && ignition === true))
      return { state: nextStop(settings, message, time, ignition), events: NO_EVENTS };
    const followed = followStop(state, message, time, settings.distance, settings.confirmFixes);
    if (followed.verdict !== 'left') return { state: followed.stop, events: NO_EVENTS };
    if (state.last - state.since < settings.minStop * 60_000) return { state: nextStop(settings, message, time, ignition), events: NO_EVENTS };
    return {
      state: nextStop(settings, message, time, ignition),
      events: [
        messageEvent('movement', message, {
          distance: round(followed.distance, 0),
          stoppedSince: new Date(state.since).toISOString(),
          stoppedMinutes: Math.floor((state.last - state.since) / 60_000),
          ignitionOff: settings.ignitionOff,
        }),
      ],
    };
  },
};

/** What the settings of type 14 mean and default to, for people (settings-reference.ts). */
export const movementReference: TypeReference = {
  name: 'movement',
  events: 'movement',
  settings: [
    { key: 'distance', default: '200', meaning: 'metres from where the vehicle stood beyond which it has moved (10–100000)' },
    { key: 'minStop', default: '10', meaning: 'minutes the vehicle must have stood before moving counts (1–10080)' },
    { key: 'maxSpeed', default: '5', meaning: 'km/h at or below which a fix begins a stop (0–200)' },
    {
      key: 'ignitionOff',
      default: 'false',
      meaning:
        'only movement with the ignition off counts (towing, theft): a stop begins with the ignition off and a reading on ends it (true/false)',
    },
    { key: 'parameter', default: 'ignition', meaning: 'digital parameter of the ignition' },
    { key: 'confirmFixes', default: '1', meaning: 'fixes in a row beyond distance that make a movement; 2 or more ignore a lone stray fix (1–10)' },
  ],
  constraints: [],
  example: {},
};
