import { instantOfLocal, zoneClock, type ZoneClock } from '../rules/time-zone';
import { WEEKDAYS, type Handoff, type StoredRota } from '../schemas/rota';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
/** 1970-01-01, local day 0, was a Thursday: Mon = 0 … Sun = 6. */
const weekdayOf = (day: number) => (((day + 3) % 7) + 7) % 7;

/** Who is on call at an instant, and for how long. */
export interface OnCall {
  userId: string;
  /** Epoch ms: when this person's turn began (a handoff, or an override's start or end). */
  from: number;
  /** Epoch ms: the next change (a handoff, or an override's start or end). */
  until: number;
  /** Set when an override puts this person on call. */
  overrideId?: string;
}

const periodOf = (handoff: Handoff) => (handoff.every === 'day' ? 1 : 7);
const minutesOf = (clock: string) => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));

/** The handoff on a local day (days since 1970-01-01 on the zone's wall clock), as an instant. */
function handoffOn(day: number, handoff: Handoff, clock: ZoneClock): number {
  return instantOfLocal(day * DAY_MS + minutesOf(handoff.at) * MINUTE_MS, clock, day * DAY_MS);
}

/**
 * The local day of the last handoff at or before `at`. Handoffs are counted on the zone's wall clock, so a
 * daylight-saving change moves the instant of a handoff, never its local time, and a shift across it is an hour
 * shorter or longer.
 */
function lastHandoffDay(handoff: Handoff, clock: ZoneClock, at: number): number {
  const today = Math.floor((at + clock.offsetAt(at)) / DAY_MS);
  let day = today;
  if (handoff.every === 'week') day -= (weekdayOf(today) - WEEKDAYS.indexOf(handoff.weekday ?? 'Mon') + 7) % 7;
  return handoffOn(day, handoff, clock) > at ? day - periodOf(handoff) : day;
}

const isoDate = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const dayOf = (isoDay: string) => Math.round(Date.parse(`${isoDay}T00:00:00Z`) / DAY_MS);

/** The anchor of a rota (re)started at `at`: the local date of the last handoff, where its first participant's shift begins. */
export function anchorAt(handoff: Handoff, timezone: string, at: number): string {
  return isoDate(lastHandoffDay(handoff, zoneClock(timezone), at));
}

/** Who the rotation alone puts on call at `at` (overrides apart), from the handoff before it until the next. */
export function scheduledAt(rota: Pick<StoredRota, 'participants' | 'handoff' | 'timezone' | 'anchor'>, at: number): OnCall {
  const clock = zoneClock(rota.timezone);
  const period = periodOf(rota.handoff);
  const day = lastHandoffDay(rota.handoff, clock, at);
  const turns = Math.round((day - dayOf(rota.anchor)) / period);
  const count = rota.participants.length;
  return {
    userId: rota.participants[((turns % count) + count) % count]!,
    from: handoffOn(day, rota.handoff, clock),
    until: handoffOn(day + period, rota.handoff, clock),
  };
}

/**
 * Who is on call at `at`: the override covering it that was made last, else the rotation's participant, whose
 * turn is then cut by the overrides around it. Pure: no I/O, no clock of its own.
 */
export function onCallAt(rota: Pick<StoredRota, 'participants' | 'handoff' | 'timezone' | 'anchor' | 'overrides'>, at: number): OnCall {
  const overrides = rota.overrides.map((override) => ({ ...override, start: Date.parse(override.from), end: Date.parse(override.to) }));
  const index = overrides.findLastIndex((override) => override.start <= at && at < override.end);
  const covering = overrides[index];
  if (covering) {
    // an override made later takes over where it starts
    const until = Math.min(
      covering.end,
      ...overrides
        .slice(index + 1)
        .filter((override) => override.start > at)
        .map((override) => override.start),
    );
    return { userId: covering.userId, from: covering.start, until, overrideId: covering.id };
  }
  const scheduled = scheduledAt(rota, at);
  const from = Math.max(scheduled.from, ...overrides.filter((override) => override.end <= at).map((override) => override.end));
  const until = Math.min(scheduled.until, ...overrides.filter((override) => override.start > at).map((override) => override.start));
  return { userId: scheduled.userId, from, until };
}
