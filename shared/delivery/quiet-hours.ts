import { instantClockReaches, zoneClock } from '../rules/time-zone';
import type { QuietHours } from '../schemas/preferences';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

const minutesOf = (clock: string): number => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));

/**
 * When the quiet hours `now` falls in end (epoch ms), or null when `now` is outside them. Each night runs from the
 * instant the zone's wall clock first reads `from` (inclusive) to the instant it first reads `to` (exclusive);
 * `from` after `to` crosses midnight. Judged by instants rather than by the clock's reading, a night stays one
 * night across a daylight-saving change: the repeated hour neither reopens it nor ends it twice.
 * Pure: no I/O, no clock of its own.
 */
export function quietHoursEnd(hours: QuietHours, now: number): number | null {
  const clock = zoneClock(hours.timezone);
  const from = minutesOf(hours.from);
  const to = minutesOf(hours.to);
  const reaches = (day: number, minute: number) => instantClockReaches(day * DAY_MS + minute * MINUTE_MS, clock);
  const today = Math.floor((now + clock.offsetAt(now)) / DAY_MS);
  // nights never overlap, so only the last one begun can hold `now`; tomorrow's has begun when the clock went back across midnight
  for (const day of [today + 1, today, today - 1]) {
    if (reaches(day, from) > now) continue;
    const end = reaches(from < to ? day : day + 1, to);
    return now < end ? end : null;
  }
  return null;
}
