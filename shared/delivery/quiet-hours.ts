import { zoneClock, type ZoneClock } from '../rules/time-zone';
import type { QuietHours } from '../schemas/preferences';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

const minutesOf = (clock: string): number => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));

/**
 * The instant a local wall-clock time (ms as if it were UTC) happens in the zone. A time that happens twice (the
 * hour repeated when clocks go back) is its first; one that never happens (skipped when clocks go forward) is
 * taken at the later offset, so quiet hours never end before their local time.
 */
function instantOf(localMs: number, clock: ZoneClock, near: number): number {
  const first = localMs - clock.offsetAt(near);
  const second = localMs - clock.offsetAt(first);
  const real = [first, second].filter((instant) => instant + clock.offsetAt(instant) === localMs);
  return real.length > 0 ? Math.min(...real) : Math.max(first, second);
}

/**
 * When the quiet hours `now` falls in end (epoch ms), or null when `now` is outside them. The window is read in
 * local wall-clock time of its zone, `from` inclusive and `to` exclusive; `from` after `to` crosses midnight.
 * Pure: no I/O, no clock of its own.
 */
export function quietHoursEnd(hours: QuietHours, now: number): number | null {
  const clock = zoneClock(hours.timezone);
  const local = now + clock.offsetAt(now);
  const midnight = Math.floor(local / DAY_MS) * DAY_MS;
  const minute = (local - midnight) / MINUTE_MS;
  const from = minutesOf(hours.from);
  const to = minutesOf(hours.to);
  const inside = from < to ? minute >= from && minute < to : minute >= from || minute < to;
  if (!inside) return null;
  // past `from` on a window that crosses midnight, it ends tomorrow
  const endDay = from > to && minute >= from ? midnight + DAY_MS : midnight;
  const end = instantOf(endDay + to * MINUTE_MS, clock, now);
  return end > now ? end : null;
}
