import * as z from 'zod';
import { RULE_TYPES } from '../schemas/notification';
import { NO_EVENTS, deviceMs, messageEvent, round } from './message-values';
import { numberSetting, onceReadable, settingsMap } from './settings';
import type { EvaluationContext, RuleEvaluator } from './types';
import type { TerminalMessage } from '../schemas/terminal-message';
import type { TypeReference } from './reference';

/** `zoneLimits`: "zoneId:limit" pairs separated by commas, e.g. "12:50,14:30". */
const zoneLimitsSetting = z
  .string()
  .default('')
  .transform((text, ctx) => {
    const limits: { zoneId: number; limit: number }[] = [];
    for (const pair of text
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)) {
      const match = /^(\d+)\s*:\s*(\d+(?:\.\d+)?)$/.exec(pair);
      if (match === null || Number(match[1]) < 1 || Number(match[2]) < 1 || Number(match[2]) > 1_000) {
        ctx.addIssue({ code: 'custom', message: `"${pair}" is not zoneId:limit with a limit of 1–1000 km/h (e.g. 12:50)` });
        return z.NEVER;
      }
      // one zone, one limit: a second one would be read differently by different parts of the rule
      if (limits.some((entry) => entry.zoneId === Number(match[1]))) {
        ctx.addIssue({ code: 'custom', message: `zone ${match[1]} is given more than one limit` });
        return z.NEVER;
      }
      limits.push({ zoneId: Number(match[1]), limit: Number(match[2]) });
    }
    return limits;
  });

export const speedingSettingsSchema = settingsMap(() => ({
  /** Speed limit, km/h. */
  limit: numberSetting(90, { min: 1, max: 1_000 }),
  /** Seconds the speed must stay above the limit before the alert. 0 alerts on the first message above it. */
  minDuration: numberSetting(10, { min: 0, max: 86_400 }),
  /** Limits inside geozones, "zoneId:limit,...". Inside several of them the lowest applies. */
  zoneLimits: zoneLimitsSetting,
  /** The episode ends once the speed has stayed at or below (limit − endMargin) km/h for endDuration seconds. */
  endMargin: numberSetting(5, { min: 0, max: 100 }),
  endDuration: numberSetting(30, { min: 0, max: 3_600 }),
  /** A silence longer than this (seconds) ends an episode: speeding is not assumed across unobserved time. */
  maxGap: numberSetting(300, { min: 1, max: 86_400 }),
})).refine((settings) => settings.endMargin < Math.min(settings.limit, ...settings.zoneLimits.map((entry) => entry.limit)), {
  path: ['endMargin'],
  message: 'must be less than limit and every zone limit, or an episode could never end by slowing down',
  ...onceReadable,
});

export type SpeedingSettings = z.infer<typeof speedingSettingsSchema>;

/** An episode above the limit. Times are epoch ms of device time. */
export interface SpeedingState {
  start: number;
  last: number;
  maxSpeed: number;
  alerted: boolean;
  /** Since when the speed has been below limit − endMargin (alerted episodes only). */
  slowSince: number | null;
}

/** The limit at the message's position: the lowest zone limit among the zones it is in, else the rule's limit. */
function limitAt(settings: SpeedingSettings, message: TerminalMessage, context: EvaluationContext): number {
  if (settings.zoneLimits.length === 0) return settings.limit;
  const zoneId = limitingZone(settings, message, context);
  return zoneId === null ? settings.limit : settings.zoneLimits.find((entry) => entry.zoneId === zoneId)!.limit;
}

/** The zone whose limit applies at the message's position; null where the rule's general limit applies. */
function limitingZone(settings: SpeedingSettings, message: TerminalMessage, context: EvaluationContext): number | null {
  let zoneId: number | null = null;
  let limit = Infinity;
  for (const entry of settings.zoneLimits) {
    if (entry.limit < limit && context.zones.contains(entry.zoneId, message.latitude, message.longitude)) {
      limit = entry.limit;
      zoneId = entry.zoneId;
    }
  }
  return zoneId;
}

export const speedingEvaluator: RuleEvaluator<SpeedingSettings, SpeedingState> = {
  type: RULE_TYPES.speeding,
  settingsSchema: speedingSettingsSchema,

  evaluate({ settings }, previous, message, context) {
    const speed = message.speed;
    const limit = limitAt(settings, message, context);
    // The common case, no episode and within the limit, needs not even the message time.
    if (previous === undefined && speed <= limit) return { state: undefined, events: NO_EVENTS };
    const time = deviceMs(message);
    const state = previous !== undefined && time - previous.last <= settings.maxGap * 1000 ? previous : undefined;

    if (state === undefined || !state.alerted) {
      if (speed <= limit) return { state: undefined, events: NO_EVENTS };
      const next: SpeedingState = state
        ? { ...state, last: time, maxSpeed: Math.max(state.maxSpeed, speed) }
        : { start: time, last: time, maxSpeed: speed, alerted: false, slowSince: null };
      if (time - next.start < settings.minDuration * 1000) return { state: next, events: NO_EVENTS };
      next.alerted = true;
      const zoneId = limitingZone(settings, message, context);
      const values: Record<string, number | string | null> = {
        limit,
        maxSpeed: round(next.maxSpeed),
        since: new Date(next.start).toISOString(),
        durationSeconds: Math.round((time - next.start) / 1000),
        zoneId,
        zoneName: zoneId === null ? null : (context.zones.zoneName(zoneId) ?? null),
      };
      return { state: next, events: [messageEvent('speeding', message, values)] };
    }

    if (speed > limit - settings.endMargin) {
      return { state: { ...state, last: time, maxSpeed: Math.max(state.maxSpeed, speed), slowSince: null }, events: NO_EVENTS };
    }
    const slowSince = state.slowSince ?? time;
    if (time - slowSince >= settings.endDuration * 1000) return { state: undefined, events: NO_EVENTS };
    return { state: { ...state, last: time, slowSince }, events: NO_EVENTS };
  },

  episode: (_rule, state) => (state?.alerted ? { since: state.start, kind: 'speeding' } : undefined),

  cutShort: (_rule, before, after) => !before.alerted && after?.start !== before.start,
};

/** What the settings of type 2 mean and default to, for people (settings-reference.ts). */
export const speedingReference: TypeReference = {
  name: 'speeding',
  events: 'speeding',
  settings: [
    { key: 'limit', default: '90', meaning: 'speed limit, km/h (1–1000)' },
    { key: 'minDuration', default: '10', meaning: 'seconds above the limit before the alert; 0 alerts on the first message above it (0–86400)' },
    {
      key: 'zoneLimits',
      default: '',
      meaning: 'limits inside geozones as zoneId:limit pairs, e.g. 12:50,14:30; inside several, the lowest applies',
    },
    { key: 'endMargin', default: '5', meaning: 'km/h below the limit that count as slow again (0–100)' },
    { key: 'endDuration', default: '30', meaning: 'seconds at or below limit − endMargin that end an episode (0–3600)' },
    { key: 'maxGap', default: '300', meaning: 'seconds of silence that end an episode (1–86400)' },
  ],
  constraints: [
    'endMargin must be less than limit and every zone limit',
    'a zone has at most one limit in zoneLimits (1–1000 km/h)',
    'every zone of zoneLimits must also be listed in geoids',
  ],
  example: {},
};
