import type { z } from 'zod';
import { RULE_TYPES } from '../schemas/notification';
import { NO_EVENTS, messageEvent } from './message-values';
import { booleanSetting, numberSetting, settingsMap } from './settings';
import type { RuleEvaluator } from './types';
import type { TypeReference } from './reference';

export const connectionLossSettingsSchema = settingsMap(() => ({
  /** Minutes without any message after which the connection counts as lost. */
  minutes: numberSetting(30, { min: 1, max: 43_200 }),
  /** Also alert when a message arrives after a reported loss; the type's older name for the common `notifyCleared`. */
  notifyRestored: booleanSetting(false),
}));

export type ConnectionLossSettings = z.infer<typeof connectionLossSettingsSchema>;

/** Present only after a loss was reported: the last-seen time (epoch ms) the silence started from. */
export interface ConnectionLossState {
  silentSince: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The sweep's `tick` raises `connectionLost` once per silence, timed at last seen + `minutes` whenever the
 * sweep happens to notice it, so a repeated sweep yields the same alert. A vehicle never heard from raises nothing.
 */
export const connectionLossEvaluator: RuleEvaluator<ConnectionLossSettings, ConnectionLossState> = {
  type: RULE_TYPES.connectionLoss,
  settingsSchema: connectionLossSettingsSchema,

  evaluate({ settings }, state, message) {
    if (state === undefined) return { state, events: NO_EVENTS };
    if (!settings.notifyRestored && settings.notifyCleared !== true) return { state: undefined, events: NO_EVENTS };
    const silentMinutes = Math.max(0, Math.round((Date.parse(message.deviceTime) - state.silentSince) / 60_000));
    return {
      state: undefined,
      events: [messageEvent('connectionRestored', message, { silentSince: iso(state.silentSince), silentMinutes })],
    };
  },

  episode: (_rule, state) => (state === undefined ? undefined : { since: state.silentSince, kind: 'connectionLost' }),

  tick({ settings }, state, vehicle, context) {
    const lastSeen = vehicle.lastSeenAt ?? (vehicle.lastDeviceTime === null ? null : Date.parse(vehicle.lastDeviceTime));
    if (lastSeen === null) return { state, events: NO_EVENTS };
    if (state !== undefined && state.silentSince === lastSeen) return { state, events: NO_EVENTS };
    const lostAt = lastSeen + settings.minutes * 60_000;
    // Not (yet) silent long enough; a loss reported for an earlier silence is over.
    if (context.now < lostAt) return { state: undefined, events: NO_EVENTS };
    return {
      state: { silentSince: lastSeen },
      events: [
        {
          kind: 'connectionLost',
          time: iso(lostAt),
          latitude: null,
          longitude: null,
          speed: null,
          values: { minutes: settings.minutes, lastSeenAt: iso(lastSeen), lastDeviceTime: vehicle.lastDeviceTime },
        },
      ],
    };
  },
};

/** What the settings of type 7 mean and default to, for people (settings-reference.ts). */
export const connectionLossReference: TypeReference = {
  name: 'connection loss',
  events: 'connectionLost, connectionRestored',
  settings: [
    { key: 'minutes', default: '30', meaning: 'minutes without a message before the connection counts as lost (1–43200)' },
    {
      key: 'notifyRestored',
      default: 'false',
      meaning: 'also alert when a message arrives after a reported loss (true/false); the same as the common notifyCleared, kept as an alias',
    },
  ],
  constraints: [],
  example: {},
};
