import type { RuleEvent } from '../schemas/alert';
import type { TerminalMessage } from '../schemas/terminal-message';
import { crossZones, type GeozoneState, type ZoneHysteresis } from '../rules/geozone';
import type { CommonSettings } from '../rules/settings';
import type { CompiledRule, EvaluationContext, ZoneLookup } from '../rules/types';

/**
 * A rule's zone condition (`settings.zones`, `settings.zoneMode`): its events become alerts only while the
 * vehicle is inside (or outside) at least one of the zones. Like the schedule it applies where events become
 * alerts; the evaluators run and their state moves on either way. Where the vehicle is, for the condition, is
 * tracked per rule with the border hysteresis of a geozone rule, so GPS jitter along a border does not make
 * a condition flicker; a stale message is judged at its own position, a tick (connection loss) at the last
 * tracked one.
 */
export const ZONE_GATE_HYSTERESIS: ZoneHysteresis = { margin: 30, minDwell: 0 };

export type ZoneSuppression = 'outsideZones' | 'insideZones';

interface ZoneCondition {
  zones: number[];
  mode: 'inside' | 'outside';
}

export function zoneConditionOf(compiled: CompiledRule): ZoneCondition | undefined {
  const settings = compiled.settings as Partial<CommonSettings>;
  return settings.zones === undefined || settings.zones.length === 0 ? undefined : { zones: settings.zones, mode: settings.zoneMode ?? 'inside' };
}

/** The rule's gate after one current message: the condition zones the vehicle is inside now. */
export function advanceGate(
  condition: ZoneCondition,
  gate: GeozoneState | undefined,
  message: TerminalMessage,
  context: EvaluationContext,
): GeozoneState {
  if (gate === undefined) {
    const zones: GeozoneState['zones'] = {};
    for (const id of context.zones.zonesContaining(message.latitude, message.longitude, condition.zones)) zones[id] = { inside: true };
    return { zones };
  }
  return crossZones(condition.zones, ZONE_GATE_HYSTERESIS, gate, message, context)?.state ?? gate;
}

const insideAny = (gate: GeozoneState | undefined) => gate !== undefined && Object.values(gate.zones).some((track) => track.inside);

function verdict(condition: ZoneCondition, inside: boolean): ZoneSuppression | undefined {
  if (condition.mode === 'inside') return inside ? undefined : 'outsideZones';
  return inside ? 'insideZones' : undefined;
}

/** Why the condition holds back an event judged with the rule's gate (current messages, ticks); undefined: it passes. */
export function gateSuppression(condition: ZoneCondition, gate: GeozoneState | undefined): ZoneSuppression | undefined {
  return verdict(condition, insideAny(gate));
}

/** Why the condition holds back an event of a stale message, judged at the event's own position. */
export function staleSuppression(
  condition: ZoneCondition,
  event: RuleEvent,
  message: TerminalMessage,
  zones: ZoneLookup,
): ZoneSuppression | undefined {
  const latitude = event.latitude ?? message.latitude;
  const longitude = event.longitude ?? message.longitude;
  return verdict(condition, zones.zonesContaining(latitude, longitude, condition.zones).length > 0);
}
