/**
 * A rule's `timezone` as a clock: how far local wall-clock time is ahead of UTC at a given instant.
 * A number is a fixed offset in hours (the platform's form: 3 = UTC+3, no daylight saving); a string is an
 * IANA zone, read through the runtime's Intl (full ICU in Node 24), so daylight-saving rules follow tzdata.
 */
export type RuleTimeZone = number | string;

export interface ZoneClock {
  /** Local time minus UTC at the instant, in ms (e.g. 7_200_000 for Europe/Berlin in summer). */
  offsetAt(epochMs: number): number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Formatters are costly to build (tens of µs) and cheap to use: one per zone, a bounded number kept. */
const MAX_CACHED_ZONES = 1_000;
const clocks = new Map<string, ZoneClock>();

function ianaClock(zone: string): ZoneClock {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  return {
    offsetAt(epochMs) {
      const fields = { year: 0, month: 1, day: 1, hour: 0, minute: 0, second: 0 };
      for (const part of format.formatToParts(epochMs)) {
        if (part.type in fields) fields[part.type as keyof typeof fields] = Number(part.value);
      }
      const local = Date.UTC(fields.year, fields.month - 1, fields.day, fields.hour, fields.minute, fields.second);
      // the formatter shows whole seconds: compare with the instant cut to its second
      return local - (epochMs - (((epochMs % 1000) + 1000) % 1000));
    },
  };
}

/** The clock of a rule's timezone. Throws a RangeError for a name Intl does not know (the API refuses those). */
export function zoneClock(timezone: RuleTimeZone): ZoneClock {
  if (typeof timezone === 'number') {
    const offset = Math.round(timezone * HOUR_MS);
    return { offsetAt: () => offset };
  }
  let clock = clocks.get(timezone);
  if (clock === undefined) {
    clock = ianaClock(timezone);
    if (clocks.size >= MAX_CACHED_ZONES) clocks.clear();
    clocks.set(timezone, clock);
  }
  return clock;
}

/**
 * The instant a local wall-clock time (ms as if it were UTC) happens on the clock, near `near`. A time that
 * happens twice (the hour repeated when clocks go back) is its first; one that never happens (skipped when clocks
 * go forward) is taken at the later offset, so a local deadline never comes before its wall-clock time.
 */
export function instantOfLocal(localMs: number, clock: ZoneClock, near: number): number {
  const first = localMs - clock.offsetAt(near);
  const second = localMs - clock.offsetAt(first);
  const real = [first, second].filter((instant) => instant + clock.offsetAt(instant) === localMs);
  return real.length > 0 ? Math.min(...real) : Math.max(first, second);
}

/**
 * The first instant the clock reads `localMs` (ms as if it were UTC) or later. A time repeated when clocks go back is
 * its first occurrence; one skipped when they go forward is the jump itself, when the clock passes it. Later local
 * times never come earlier, so windows bounded by it neither overlap nor turn inside out across a change (a time
 * skipped by instantOfLocal comes an hour late, after local times that follow it).
 */
export function instantClockReaches(localMs: number, clock: ZoneClock): number {
  // a real zone changes its offset at most once within a day either side
  const candidates = [localMs - clock.offsetAt(localMs - DAY_MS), localMs - clock.offsetAt(localMs + DAY_MS)];
  if (candidates[0] === candidates[1]) return candidates[0]!;
  const real = candidates.filter((instant) => instant + clock.offsetAt(instant) === localMs);
  if (real.length > 0) return Math.min(...real);
  // skipped: the clock reads less at the earlier candidate and more at the later; it reads whole seconds
  let low = Math.min(...candidates);
  let high = Math.max(...candidates);
  while (high - low > 1000) {
    const middle = low + Math.floor((high - low) / 2000) * 1000;
    if (middle + clock.offsetAt(middle) >= localMs) high = middle;
    else low = middle;
  }
  return high;
}
