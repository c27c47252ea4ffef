import type { z } from 'zod';
import type { RuleEvent } from '../schemas/alert';
import { RULE_TYPES } from '../schemas/notification';
import type { TerminalMessage } from '../schemas/terminal-message';
import { deviceMs, messageEvent } from './message-values';
import { enumSetting, numberSetting, settingsMap } from './settings';
import type { EvaluationContext, RuleEvaluator } from './types';

export const geozoneSettingsSchema = settingsMap({
  /** Which crossings raise an alert: entry, exit or both. */
  mode: enumSetting(['entry', 'exit', 'both'], 'both'),
  /**
   * Hysteresis, metres: a vehicle counts as inside only once deeper than this inside the border, and as outside
   * only once farther than this outside it, so GPS jitter along the border raises nothing.
   */
  margin: numberSetting(30, { min: 0, max: 10_000 }),
  /** Seconds the vehicle must stay on the new side before the crossing is reported (0: at once). */
  minDwell: numberSetting(0, { min: 0, max: 86_400 }),
});

export type GeozoneSettings = z.infer<typeof geozoneSettingsSchema>;

/** Per zone of the rule: whether the vehicle is inside, and since when (epoch ms) it seems to have crossed. */
export interface ZoneTrack {
  inside: boolean;
  /** Device time of the first message on the other side of the border, while the dwell is not yet over. */
  crossingSince?: number;
}

/** Zones absent from `zones` are settled outside. */
export interface GeozoneState {
  zones: Record<string, ZoneTrack>;
}

function zoneEvent(kind: 'zoneEntry' | 'zoneExit', zoneIds: number[], since: number[], message: TerminalMessage, context: EvaluationContext): RuleEvent {
  const names = zoneIds.map((id) => context.zones.zoneName(id) ?? String(id));
  return messageEvent(kind, message, {
    zoneId: zoneIds[0]!,
    zoneName: names.join(', '),
    zoneIds: zoneIds.join(','),
    zoneCount: zoneIds.length,
    since: new Date(Math.min(...since)).toISOString(),
  });
}

/**
 * Entry and exit of the rule's geozones (`geoids`). The first message only records where the vehicle is.
 * Crossing several of the rule's zones with one message raises a single event per kind naming all of them,
 * since alerts are identified by rule, vehicle, kind and time.
 */
export const geozoneEvaluator: RuleEvaluator<GeozoneSettings, GeozoneState> = {
  type: RULE_TYPES.geozone,
  settingsSchema: geozoneSettingsSchema,

  evaluate({ rule, settings }, state, message, context) {
    const { latitude, longitude } = message;
    const inside = context.zones.zonesContaining(latitude, longitude, rule.geoids);
    if (state === undefined) {
      const zones: Record<string, ZoneTrack> = {};
      for (const id of inside) zones[id] = { inside: true };
      return { state: { zones }, events: [] };
    }

    const time = deviceMs(message);
    const margin = settings.margin;
    let changed = false;
    const next: Record<string, ZoneTrack> = {};
    const entered: number[] = [];
    const enteredSince: number[] = [];
    const exited: number[] = [];
    const exitedSince: number[] = [];

    const consider = (id: number, track: ZoneTrack | undefined) => {
      const wasInside = track?.inside ?? false;
      const isInside = wasInside
        ? context.zones.contains(id, latitude, longitude, margin)
        : inside.includes(id) && context.zones.contains(id, latitude, longitude, -margin);
      if (isInside === wasInside) {
        if (wasInside) next[id] = track!.crossingSince === undefined ? track! : { inside: true };
        if (track?.crossingSince !== undefined) changed = true;
        return;
      }
      const since = track?.crossingSince ?? time;
      if (time - since < settings.minDwell * 1000) {
        next[id] = { inside: wasInside, crossingSince: since };
        if (track?.crossingSince === undefined) changed = true;
        return;
      }
      changed = true;
      if (isInside) {
        next[id] = { inside: true };
        entered.push(id);
        enteredSince.push(since);
      } else {
        exited.push(id);
        exitedSince.push(since);
      }
    };

    for (const [key, track] of Object.entries(state.zones)) {
      const id = Number(key);
      // A zone taken out of the rule, or deleted, is forgotten without an exit alert.
      if (!rule.geoids.includes(id) || context.zones.zoneName(id) === undefined) {
        changed = true;
        continue;
      }
      consider(id, track);
    }
    for (const id of inside) if (state.zones[id] === undefined) consider(id, undefined);

    const events: RuleEvent[] = [];
    if (entered.length > 0 && settings.mode !== 'exit') events.push(zoneEvent('zoneEntry', entered, enteredSince, message, context));
    if (exited.length > 0 && settings.mode !== 'entry') events.push(zoneEvent('zoneExit', exited, exitedSince, message, context));
    return { state: changed ? { zones: next } : state, events };
  },
};
