import type { z } from 'zod';
import { RULE_TYPES } from '../schemas/notification';
import { NO_EVENTS, deviceMs, messageEvent, switchParameter } from './message-values';
import { numberSetting, parameterKeySetting, settingsMap } from './settings';
import type { RuleEvaluator } from './types';
import type { TypeReference } from './reference';

export const idleSettingsSchema = settingsMap(() => ({
  /** Digital parameter of the ignition. */
  ignition: parameterKeySetting('ignition'),
  /** Below this speed, km/h, the vehicle is standing. */
  maxSpeed: numberSetting(5, { max: 200 }).refine((speed) => speed > 0, { message: 'must be above 0: no reported speed is below 0' }),
  /** Minutes of standing with the ignition on before the alert. */
  minutes: numberSetting(10, { min: 1, max: 10_080 }),
  /** A silence longer than this (seconds) ends the episode: idling is not assumed across unobserved time. */
  maxGap: numberSetting(1_800, { min: 60, max: 86_400 }),
}));

export type IdleSettings = z.infer<typeof idleSettingsSchema>;

/** Present while idling: since when, the last idle reading (epoch ms), and whether it was reported. */
export interface IdleState {
  since: number;
  last: number;
  alerted: boolean;
}

/** One `idle` alert per episode of ignition on and standing still for longer than `minutes`. */
export const idleEvaluator: RuleEvaluator<IdleSettings, IdleState> = {
  type: RULE_TYPES.idle,
  settingsSchema: idleSettingsSchema,

  evaluate({ settings }, previous, message) {
    const ignition = switchParameter(message, settings.ignition);
    if (ignition === undefined && message.speed < settings.maxSpeed) return { state: previous, events: NO_EVENTS };
    if (ignition !== true || message.speed >= settings.maxSpeed) return { state: undefined, events: NO_EVENTS };
    const time = deviceMs(message);
    const state = previous !== undefined && time - previous.last <= settings.maxGap * 1000 ? previous : undefined;
    const since = state?.since ?? time;
    if (state?.alerted || time - since < settings.minutes * 60_000) {
      return { state: { since, last: time, alerted: state?.alerted ?? false }, events: NO_EVENTS };
    }
    return {
      state: { since, last: time, alerted: true },
      events: [
        messageEvent('idle', message, {
          idleMinutes: Math.floor((time - since) / 60_000),
          since: new Date(since).toISOString(),
          minutes: settings.minutes,
        }),
      ],
    };
  },

  episode: (_rule, state) => (state?.alerted ? { since: state.since, kind: 'idle' } : undefined),

  cutShort: (_rule, before, after) => !before.alerted && after?.since !== before.since,
};

/** What the settings of type 11 mean and default to, for people (settings-reference.ts). */
export const idleReference: TypeReference = {
  name: 'idle',
  events: 'idle',
  settings: [
    { key: 'ignition', default: 'ignition', meaning: 'digital parameter of the ignition' },
    { key: 'maxSpeed', default: '5', meaning: 'km/h below which the vehicle stands (above 0, at most 200)' },
    { key: 'minutes', default: '10', meaning: 'minutes of standing with the ignition on before the alert (1–10080)' },
    { key: 'maxGap', default: '1800', meaning: 'seconds of silence that end the episode (60–86400)' },
  ],
  constraints: [],
  example: {},
};
