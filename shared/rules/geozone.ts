import type { z } from 'zod';
import type { RuleEvent } from '../schemas/alert';
import { RULE_TYPES } from '../schemas/notification';
import type { TerminalMessage } from '../schemas/terminal-message';
import { NO_EVENTS, deviceMs, messageEvent } from './message-values';
import { enumSetting, numberSetting, settingsMap } from './settings';
import type { EvaluationContext, RuleEvaluator } from './types';
import type { TypeReference } from './reference';

export const geozoneSettingsSchema = settingsMap(() => ({
  /** Which crossings raise an alert: entry, exit or both. */
  mode: enumSetting(['entry', 'exit', 'both'], 'both'),
  /**
   * Hysteresis, metres: a vehicle counts as inside only once deeper than this inside the border, and as outside
   * only once farther than this outside it, so GPS jitter along the border raises nothing.
   */
  margin: numberSetting(30, { min: 0, max: 10_000 }),
  /** Seconds the vehicle must stay on the new side before the crossing is reported (0: at once). */
  minDwell: numberSetting(0, { min: 0, max: 86_400 }),
}));

export type GeozoneSettings = z.infer<typeof geozoneSettingsSchema>;

/** What the border hysteresis needs of a geozone rule's settings (shared with the visit journal and the zone condition). */
export type ZoneHysteresis = Pick<GeozoneSettings, 'margin' | 'minDwell'>;

/** Per zone of the rule: whether the vehicle is inside, and since when (epoch ms) it seems to have crossed. */
export interface ZoneTrack {
  inside: boolean;
  /** Device time of the first message on the other side of the border, while the dwell is not yet over. */
  crossingSince?: number;
}

/** Zones absent from `zones` are settled outside. */
export interface GeozoneState {
  zones: Record<string, ZoneTrack>;
  /**
   * When the vehicle began to leave (epoch ms) by the exit it was last reported for, until it enters one of the
   * rule's zones again: the episode a `cleared` message or reminders follow, and that is raised after a maintenance
   * silence that held back its exit while it lasts. Kept for every rule that reports exits.
   */
  exit?: number;
}

function zoneEvent(
  kind: 'zoneEntry' | 'zoneExit',
  zoneIds: number[],
  since: number[],
  message: TerminalMessage,
  context: EvaluationContext,
): RuleEvent {
  const names = zoneIds.map((id) => context.zones.zoneName(id) ?? String(id));
  return messageEvent(kind, message, {
    zoneId: zoneIds[0]!,
    zoneName: names.join(', '),
    zoneIds: zoneIds.join(','),
    zoneCount: zoneIds.length,
    since: new Date(Math.min(...since)).toISOString(),
  });
}

/** Candidate lists up to this long are tested zone by zone; longer ones through the spatial index. */
const DIRECT_TEST_LIMIT = 16;
const NO_ZONES: readonly number[] = Object.freeze([]);

/** The rule's zones that contain the point (border not moved). */
function zonesAround(geoids: readonly number[], latitude: number, longitude: number, context: EvaluationContext): readonly number[] {
  if (geoids.length > DIRECT_TEST_LIMIT) return context.zones.zonesContaining(latitude, longitude, geoids);
  let found: number[] | undefined;
  for (const id of geoids) {
    if (context.zones.contains(id, latitude, longitude) && !found?.includes(id)) (found ??= []).push(id);
  }
  return found ?? NO_ZONES;
}

/** What one message does to the zones of one rule. */
interface Step {
  time: number;
  changed: boolean;
  next: Record<string, ZoneTrack>;
  entered: number[];
  enteredSince: number[];
  exited: number[];
  exitedSince: number[];
}

function newStep(): Step {
  return { time: Number.NaN, changed: false, next: {}, entered: [], enteredSince: [], exited: [], exitedSince: [] };
}

/**
 * Applies the hysteresis to one zone: from inside, the vehicle leaves only beyond `margin` outside the border;
 * from outside, it enters only deeper than `margin` inside. A crossing is confirmed after `minDwell`.
 */
function consider(
  step: Step,
  id: number,
  track: ZoneTrack | undefined,
  inside: readonly number[],
  settings: ZoneHysteresis,
  message: TerminalMessage,
  context: EvaluationContext,
): void {
  const { latitude, longitude } = message;
  const wasInside = track?.inside ?? false;
  const isInside = wasInside
    ? context.zones.contains(id, latitude, longitude, settings.margin)
    : inside.includes(id) && context.zones.contains(id, latitude, longitude, -settings.margin);
  if (isInside === wasInside) {
    if (wasInside) step.next[id] = track!.crossingSince === undefined ? track! : { inside: true };
    if (track?.crossingSince !== undefined) step.changed = true;
    return;
  }
  if (Number.isNaN(step.time)) step.time = deviceMs(message);
  const since = track?.crossingSince ?? step.time;
  if (step.time - since < settings.minDwell * 1000) {
    step.next[id] = { inside: wasInside, crossingSince: since };
    if (track?.crossingSince === undefined) step.changed = true;
    return;
  }
  step.changed = true;
  if (isInside) {
    step.next[id] = { inside: true };
    step.entered.push(id);
    step.enteredSince.push(since);
  } else {
    step.exited.push(id);
    step.exitedSince.push(since);
  }
}

/** What one message did to a set of zones: the new state, and the zones entered and left (confirmed crossings). */
export interface ZoneCrossing {
  state: GeozoneState;
  entered: number[];
  enteredSince: number[];
  exited: number[];
  exitedSince: number[];
}

/**
 * The hysteresis of type 0 over any list of zones, shared by the geozone rule and the visit journal. A zone
 * no longer listed, or deleted, is forgotten without an exit.
 */
export function crossZones(
  geoids: readonly number[],
  settings: ZoneHysteresis,
  state: GeozoneState,
  message: TerminalMessage,
  context: EvaluationContext,
): ZoneCrossing | undefined {
  const { latitude, longitude } = message;
  const inside = zonesAround(geoids, latitude, longitude, context);
  let step: Step | undefined;
  for (const key in state.zones) {
    const id = Number(key);
    step ??= newStep();
    if (!geoids.includes(id) || context.zones.zoneName(id) === undefined) {
      step.changed = true;
      continue;
    }
    consider(step, id, state.zones[key], inside, settings, message, context);
  }
  for (const id of inside) {
    if (state.zones[id] !== undefined) continue;
    step ??= newStep();
    consider(step, id, undefined, inside, settings, message, context);
  }
  if (step === undefined) return undefined;
  return {
    state: step.changed ? { zones: step.next } : state,
    entered: step.entered,
    enteredSince: step.enteredSince,
    exited: step.exited,
    exitedSince: step.exitedSince,
  };
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
    if (state === undefined) {
      const zones: Record<string, ZoneTrack> = {};
      for (const id of zonesAround(rule.geoids, message.latitude, message.longitude, context)) zones[id] = { inside: true };
      return { state: { zones }, events: NO_EVENTS };
    }
    const step = crossZones(rule.geoids, settings, state, message, context);
    if (step === undefined) return { state, events: NO_EVENTS };
    const events: RuleEvent[] = [];
    if (step.entered.length > 0 && settings.mode !== 'exit') events.push(zoneEvent('zoneEntry', step.entered, step.enteredSince, message, context));
    if (step.exited.length > 0 && settings.mode !== 'entry') events.push(zoneEvent('zoneExit', step.exited, step.exitedSince, message, context));
    const exit =
      step.entered.length > 0
        ? undefined
        : (state.exit ?? (step.exited.length > 0 && followsExits(settings) ? Math.min(...step.exitedSince) : undefined));
    if (step.state === state && exit === state.exit) return { state, events };
    const { zones } = step.state;
    return { state: exit === undefined ? { zones } : { zones, exit }, events };
  },

  episode: (_rule, state) => (state?.exit === undefined ? undefined : { since: state.exit, kind: 'zoneExit' }),
};

/**
 * Whether the rule follows a reported exit until the vehicle is back: for its `cleared` message or reminders, and
 * for an exit a maintenance silence held back, which is raised once when the silence ends if the vehicle is still out.
 */
function followsExits(settings: GeozoneSettings): boolean {
  return settings.mode !== 'entry';
}

/** What the settings of type 0 mean and default to, for people (settings-reference.ts). */
export const geozoneReference: TypeReference = {
  name: 'geozone entry/exit',
  events: 'zoneEntry, zoneExit',
  settings: [
    { key: 'mode', default: 'both', meaning: 'which crossings alert: entry, exit or both' },
    { key: 'margin', default: '30', meaning: 'hysteresis in metres around the border against GPS jitter (0–10000)' },
    { key: 'minDwell', default: '0', meaning: 'seconds on the new side before a crossing counts (0–86400)' },
  ],
  constraints: ['geoids must name at least one geozone'],
  example: {},
};
