import type { z } from 'zod';
import type { RuleEvent } from '../schemas/alert';
import { RULE_TYPES } from '../schemas/notification';
import { NO_EVENTS, deviceMs, messageEvent, switchParameter } from './message-values';
import { enumSetting, numberSetting, parameterKeySetting, settingsMap } from './settings';
import type { RuleEvaluator } from './types';
import type { TypeReference } from './reference';

export const discreteSensorSettingsSchema = settingsMap(() => ({
  /** Digital parameter: 1/true/on (or non-zero) is on, 0/false/off is off. */
  parameter: parameterKeySetting('din1'),
  /** Which switch raises an alert: on (0 → 1), off (1 → 0) or both. */
  edge: enumSetting(['on', 'off', 'both'], 'on'),
  /** Seconds the new value must hold before the switch counts (debounces a chattering contact); 0: at once. */
  minDuration: numberSetting(0, { min: 0, max: 86_400 }),
}));

export type DiscreteSensorSettings = z.infer<typeof discreteSensorSettingsSchema>;

export interface DiscreteSensorState {
  on: boolean;
  /** Device time (epoch ms) since which the opposite value has been read, while it is not yet confirmed. */
  switchingSince?: number;
}

/** The first reading only records the value; later switches raise `sensorOn` / `sensorOff`. */
export const discreteSensorEvaluator: RuleEvaluator<DiscreteSensorSettings, DiscreteSensorState> = {
  type: RULE_TYPES.discreteSensor,
  settingsSchema: discreteSensorSettingsSchema,

  evaluate({ settings }, state, message) {
    const on = switchParameter(message, settings.parameter);
    if (on === undefined) return { state, events: NO_EVENTS };
    if (state === undefined) return { state: { on }, events: NO_EVENTS };
    if (on === state.on) return { state: state.switchingSince === undefined ? state : { on }, events: NO_EVENTS };
    const time = deviceMs(message);
    const since = state.switchingSince ?? time;
    if (time - since < settings.minDuration * 1000) {
      return { state: state.switchingSince === undefined ? { on: state.on, switchingSince: since } : state, events: NO_EVENTS };
    }
    const events: RuleEvent[] = [];
    if (settings.edge === 'both' || (settings.edge === 'on') === on) {
      events.push(
        messageEvent(on ? 'sensorOn' : 'sensorOff', message, {
          parameter: settings.parameter,
          value: message.parameters[settings.parameter] ?? null,
          since: new Date(since).toISOString(),
        }),
      );
    }
    return { state: { on }, events };
  },
};

/** What the settings of type 8 mean and default to, for people (settings-reference.ts). */
export const discreteSensorReference: TypeReference = {
  name: 'discrete sensor',
  events: 'sensorOn, sensorOff',
  settings: [
    { key: 'parameter', default: 'din1', meaning: 'digital parameter (1/true/on or non-zero is on; 0/false/off is off)' },
    { key: 'edge', default: 'on', meaning: 'which switch alerts: on, off or both' },
    { key: 'minDuration', default: '0', meaning: 'seconds the new value must hold before it counts (0–86400)' },
  ],
  constraints: [],
  example: {},
};
