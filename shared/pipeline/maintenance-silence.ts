import { zoneContains, type CompiledZone } from '../geo/compiled-zone';
import { compileSchedule, parseSchedule, type RuleSchedule } from '../rules/schedule';
import type { StoredRule } from '../schemas/notification';
import type { StoredSilence } from '../schemas/silence';

/**
 * Maintenance silences as evaluation judges them, purely: which silence, if any, holds back one event of a rule on
 * a vehicle. (A vehicle that stopped reporting is connection loss, and its "silence deadline" something else.)
 *
 * A silence matches an event when each kind of matcher it has matches (vehicle, rule, geozone: ANDed across
 * kinds, ORed within one), the event's time is in [from, to) and not after it was ended, and its weekly schedule,
 * if any, is open then. It holds back only rules of its own client or of clients below it, for vehicles its client
 * owns (directly or below): a client never silences the rules of a client above it.
 */
export interface CompiledSilence {
  id: string;
  clientId: string;
  from: number;
  /** The first instant it no longer holds: its `to`, or when it was ended, if earlier. */
  until: number;
  vehicles: ReadonlySet<number> | null;
  rules: ReadonlySet<number> | null;
  zones: readonly number[] | null;
  schedule?: RuleSchedule;
}

const setOrNull = (ids: readonly number[]) => (ids.length === 0 ? null : new Set(ids));

/** A stored silence in the form evaluation tests; null when its schedule can no longer be read. */
export function compileSilence(silence: StoredSilence): CompiledSilence | null {
  const compiled: CompiledSilence = {
    id: silence.id,
    clientId: silence.parentId,
    from: Date.parse(silence.from),
    until: Math.min(Date.parse(silence.to), silence.endedAt === null ? Number.POSITIVE_INFINITY : Date.parse(silence.endedAt)),
    vehicles: setOrNull(silence.vehicleIds),
    rules: setOrNull(silence.ruleIds),
    zones: silence.geozoneIds.length === 0 ? null : silence.geozoneIds,
  };
  if (silence.schedule === null) return compiled;
  const parsed = parseSchedule(silence.schedule);
  return parsed.ok ? { ...compiled, schedule: compileSchedule(parsed.schedule, silence.timezone) } : null;
}

/** Whether the silence holds at the instant (its matchers aside). */
export function silenceActiveAt(silence: CompiledSilence, time: number): boolean {
  return time >= silence.from && time < silence.until && (silence.schedule === undefined || silence.schedule.isOpen(time));
}

/** The first instant at or after `time` at which the silence no longer holds: its end, or its window's closing. */
export function silenceEndsAfter(silence: CompiledSilence, time: number): number {
  if (!silenceActiveAt(silence, time)) return time;
  return Math.min(silence.until, silence.schedule?.nextClosing(time) ?? Number.POSITIVE_INFINITY);
}

export interface Position {
  latitude: number;
  longitude: number;
}

/** The silences that may hold back a vehicle's events: those of the clients of its owner chain, with their zones. */
export class VehicleSilences {
  constructor(
    private readonly owners: readonly string[],
    readonly silences: readonly CompiledSilence[],
    private readonly zones: ReadonlyMap<number, CompiledZone>,
  ) {}

  get empty(): boolean {
    return this.silences.length === 0;
  }

  /**
   * The silence that holds back an event of `rule` on the vehicle at `time`, or undefined. `position`: where the
   * event happened (or the vehicle was last seen); a silence by geozone holds back no event of unknown position.
   */
  match(rule: Pick<StoredRule, 'id' | 'parentId'>, vehicleId: number, time: number, position: Position | null): CompiledSilence | undefined {
    if (this.silences.length === 0) return undefined;
    const ruleLevel = this.owners.indexOf(rule.parentId);
    if (ruleLevel < 0) return undefined;
    return this.silences.find(
      (silence) =>
        this.owners.indexOf(silence.clientId) >= ruleLevel &&
        (silence.vehicles === null || silence.vehicles.has(vehicleId)) &&
        (silence.rules === null || silence.rules.has(rule.id)) &&
        silenceActiveAt(silence, time) &&
        (silence.zones === null || (position !== null && this.inside(silence.zones, position))),
    );
  }

  private inside(zoneIds: readonly number[], { latitude, longitude }: Position): boolean {
    return zoneIds.some((id) => {
      const zone = this.zones.get(id);
      return zone !== undefined && zoneContains(zone, latitude, longitude);
    });
  }
}

export const NO_SILENCES = new VehicleSilences([], [], new Map());
