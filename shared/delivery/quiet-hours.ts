import { instantOfLocal, zoneClock } from '../rules/time-zone';
import type { QuietHours } from '../schemas/preferences';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

const minutesOf = (clock: string): number => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));

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
  const end = instantOfLocal(endDay + to * MINUTE_MS, clock, now);
  return end > now ? end : null;
}
