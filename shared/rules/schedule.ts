import { zoneClock, type RuleTimeZone, type ZoneClock } from './time-zone';

/**
 * A rule's schedule (`settings.schedule`): the hours of the week in which its events may raise alerts, read in
 * the rule's `timezone`, e.g. `Mon-Fri 08:00-18:00; Sat 09:00-13:00`.
 *
 * Text: clauses separated by `;`, each `<days> <windows>`. Days are Mon Tue Wed Thu Fri Sat Sun (any case),
 * ranges (`Mon-Fri`, and across the week's end, `Fri-Mon`) and comma lists (`Mon, Wed-Fri`); without days a
 * clause means every day. Windows are `HH:MM-HH:MM`, several separated by commas; the end `24:00` is the end of
 * the day; an end at or before the start (`22:00-06:00`) crosses midnight and ends on the next day, which the
 * clause's day begins. A window from a time to itself is refused as empty.
 *
 * A schedule is a set of local wall-clock times: an instant is open when its local time, in the rule's zone,
 * falls in a window of its local day. So on a spring-forward day a window inside the skipped hour never opens,
 * and on a fall-back day a window over the repeated hour is open for both of its passes.
 */

const DAY_MINUTES = 1_440;
const WEEK_MINUTES = 7 * DAY_MINUTES;
const MINUTE_MS = 60_000;
const DAY_MS = DAY_MINUTES * MINUTE_MS;
const WEEK_MS = WEEK_MINUTES * MINUTE_MS;
/** 1970-01-01, day 0 of epoch time, was a Thursday: day 3 of a week that starts on Monday. */
const EPOCH_WEEKDAY = 3;

export const DAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;

/**
 * The open hours of the week as sorted, disjoint, non-touching intervals [start, end) of minutes since Monday
 * 00:00 local time (0 … 10080). An interval never wraps: one over the week's end is split in two.
 */
export interface WeeklySchedule {
  readonly windows: readonly (readonly [number, number])[];
}

export type ScheduleParse = { ok: true; schedule: WeeklySchedule } | { ok: false; error: string };

const DAYS_ITEM = /^([a-z]{3})(?:\s*-\s*([a-z]{3}))?$/i;
const WINDOW = /^(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})$/;

function dayIndex(name: string): number {
  return DAY_NAMES.findIndex((day) => day.toLowerCase() === name.toLowerCase());
}

function parseDays(text: string): number[] | string {
  if (text === '') return [0, 1, 2, 3, 4, 5, 6];
  const days = new Set<number>();
  for (const item of text.split(',').map((part) => part.trim())) {
    const match = DAYS_ITEM.exec(item);
    const from = match ? dayIndex(match[1]!) : -1;
    const to = match?.[2] === undefined ? from : dayIndex(match[2]);
    if (from < 0 || to < 0) return `"${item}" is not a day or a range of days (${DAY_NAMES.join(', ')}, e.g. Mon-Fri)`;
    for (let day = from; ; day = (day + 1) % 7) {
      days.add(day);
      if (day === to) break;
    }
  }
  return [...days];
}

function parseWindow(text: string): [number, number] | string {
  const match = WINDOW.exec(text);
  if (!match) return `"${text}" is not a window HH:MM-HH:MM`;
  const [startHour, startMinute, endHour, endMinute] = match.slice(1).map(Number) as [number, number, number, number];
  if (startHour > 23 || startMinute > 59) return `"${text}": the start must be a time from 00:00 to 23:59`;
  const endOfDay = endHour === 24 && endMinute === 0;
  if (!endOfDay && (endHour > 23 || endMinute > 59)) return `"${text}": the end must be a time from 00:00 to 24:00`;
  const start = startHour * 60 + startMinute;
  const end = endOfDay ? DAY_MINUTES : endHour * 60 + endMinute;
  if (start === end) return `"${text}" is empty (00:00-24:00 is the whole day)`;
  // an end at or before the start crosses midnight
  return [start, end > start ? end : end + DAY_MINUTES];
}

/** Sorts and merges intervals of minutes of the week (unwrapped, possibly past the week's end) into a schedule. */
export function weeklySchedule(intervals: readonly (readonly [number, number])[]): WeeklySchedule {
  const pieces: [number, number][] = [];
  for (const [start, end] of intervals) {
    const from = ((start % WEEK_MINUTES) + WEEK_MINUTES) % WEEK_MINUTES;
    const length = Math.min(end - start, WEEK_MINUTES);
    if (length <= 0) continue;
    if (from + length <= WEEK_MINUTES) pieces.push([from, from + length]);
    else pieces.push([from, WEEK_MINUTES], [0, from + length - WEEK_MINUTES]);
  }
  pieces.sort((a, b) => a[0] - b[0]);
  const windows: [number, number][] = [];
  for (const piece of pieces) {
    const last = windows.at(-1);
    if (last !== undefined && piece[0] <= last[1]) last[1] = Math.max(last[1], piece[1]);
    else windows.push([...piece]);
  }
  return { windows };
}

/** Reads schedule text; an error names the part that cannot be read. */
export function parseSchedule(text: string): ScheduleParse {
  const intervals: [number, number][] = [];
  const clauses = text
    .split(';')
    .map((clause) => clause.trim())
    .filter((clause) => clause !== '');
  if (clauses.length === 0) return { ok: false, error: 'names no window (e.g. Mon-Fri 08:00-18:00)' };
  for (const clause of clauses) {
    const firstDigit = clause.search(/\d/);
    if (firstDigit < 0) return { ok: false, error: `"${clause}" names no window HH:MM-HH:MM` };
    const days = parseDays(clause.slice(0, firstDigit).trim());
    if (typeof days === 'string') return { ok: false, error: days };
    for (const windowText of clause
      .slice(firstDigit)
      .split(',')
      .map((part) => part.trim())) {
      const window = parseWindow(windowText);
      if (typeof window === 'string') return { ok: false, error: window };
      for (const day of days) intervals.push([day * DAY_MINUTES + window[0], day * DAY_MINUTES + window[1]]);
    }
  }
  return { ok: true, schedule: weeklySchedule(intervals) };
}

const clockText = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** Consecutive day indexes as ranges: [0,1,2,4] → "Mon-Wed, Fri". */
function daysText(days: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < days.length;) {
    let j = i;
    while (j + 1 < days.length && days[j + 1] === days[j]! + 1) j++;
    const first = DAY_NAMES[days[i]!]!;
    parts.push(j === i ? first : `${first}-${DAY_NAMES[days[j]!]!}`);
    i = j + 1;
  }
  return parts.join(', ');
}

/**
 * The schedule's canonical text, day by day (a window reaching midnight ends at 24:00), with days of equal
 * windows grouped: parsing it gives the same schedule back.
 */
export function formatSchedule(schedule: WeeklySchedule): string {
  const byWindows = new Map<string, number[]>();
  for (let day = 0; day < 7; day++) {
    const dayStart = day * DAY_MINUTES;
    const windows = schedule.windows
      .filter(([start, end]) => start < dayStart + DAY_MINUTES && end > dayStart)
      .map(([start, end]) => `${clockText(Math.max(start, dayStart) - dayStart)}-${clockText(Math.min(end, dayStart + DAY_MINUTES) - dayStart)}`);
    if (windows.length === 0) continue;
    const key = windows.join(', ');
    byWindows.set(key, [...(byWindows.get(key) ?? []), day]);
  }
  return [...byWindows].map(([windows, days]) => `${daysText(days)} ${windows}`).join('; ');
}

/** Position of a local wall-clock time (as if it were UTC) in its week, ms since Monday 00:00. */
function weekPosition(localMs: number): number {
  const day = Math.floor(localMs / DAY_MS);
  const weekday = (((day + EPOCH_WEEKDAY) % 7) + 7) % 7;
  return weekday * DAY_MS + (localMs - day * DAY_MS);
}

function openAtPosition(schedule: WeeklySchedule, position: number): boolean {
  for (const [start, end] of schedule.windows) {
    if (position < start * MINUTE_MS) return false;
    if (position < end * MINUTE_MS) return true;
  }
  return false;
}

/** ms from a closed position of the week to the next window start (> 0). */
function untilNextStart(schedule: WeeklySchedule, position: number): number {
  for (const [start] of schedule.windows) {
    if (start * MINUTE_MS > position) return start * MINUTE_MS - position;
  }
  return WEEK_MS - position + schedule.windows[0]![0] * MINUTE_MS;
}

/** The first instant in (low, high] whose offset differs from `offset`, which is the offset at `low`. */
function offsetChange(clock: ZoneClock, low: number, high: number, offset: number): number {
  while (high - low > 1) {
    const middle = low + Math.floor((high - low) / 2);
    if (clock.offsetAt(middle) === offset) low = middle;
    else high = middle;
  }
  return high;
}

const asClock = (zone: RuleTimeZone | ZoneClock): ZoneClock => (typeof zone === 'object' ? zone : zoneClock(zone));

/** Whether alerts may be raised at the instant. */
export function isOpen(schedule: WeeklySchedule, timezone: RuleTimeZone | ZoneClock, epochMs: number): boolean {
  const clock = asClock(timezone);
  return openAtPosition(schedule, weekPosition(epochMs + clock.offsetAt(epochMs)));
}

/**
 * The first instant at or after `epochMs` at which the schedule is open (`epochMs` itself when open now), or
 * null for a schedule without windows. Local time runs straight between two offset changes of the zone, so
 * the answer is the next window start in local time unless the offset changes first; then the search goes on
 * from the change (where the jump itself may land inside a window).
 */
export function nextOpening(schedule: WeeklySchedule, timezone: RuleTimeZone | ZoneClock, epochMs: number): number | null {
  if (schedule.windows.length === 0) return null;
  const clock = asClock(timezone);
  let instant = epochMs;
  // each round passes an offset change; a zone changes its offset a few times a year at most
  for (let round = 0; round < 16; round++) {
    const offset = clock.offsetAt(instant);
    const position = weekPosition(instant + offset);
    if (openAtPosition(schedule, position)) return instant;
    const candidate = instant + untilNextStart(schedule, position);
    if (clock.offsetAt(candidate) === offset) return candidate;
    instant = offsetChange(clock, instant, candidate, offset);
  }
  return null;
}

/** ms from an open position of the week to the end of its window, into the next week when it runs on past Sunday 24:00. */
function untilWindowEnd(schedule: WeeklySchedule, position: number): number {
  const window = schedule.windows.find(([start, end]) => position >= start * MINUTE_MS && position < end * MINUTE_MS)!;
  const end = window[1] * MINUTE_MS - position;
  const first = schedule.windows[0]!;
  return window[1] === WEEK_MINUTES && first[0] === 0 ? end + first[1] * MINUTE_MS : end;
}

/**
 * The first instant at or after `epochMs` at which the schedule is closed (`epochMs` itself when closed now), or
 * null for a schedule open around the clock. As nextOpening, local time runs straight between offset changes.
 */
export function nextClosing(schedule: WeeklySchedule, timezone: RuleTimeZone | ZoneClock, epochMs: number): number | null {
  const [first] = schedule.windows;
  if (first === undefined) return epochMs;
  if (first[0] === 0 && first[1] === WEEK_MINUTES) return null;
  const clock = asClock(timezone);
  let instant = epochMs;
  for (let round = 0; round < 16; round++) {
    const offset = clock.offsetAt(instant);
    const position = weekPosition(instant + offset);
    if (!openAtPosition(schedule, position)) return instant;
    const candidate = instant + untilWindowEnd(schedule, position);
    if (clock.offsetAt(candidate) === offset) return candidate;
    instant = offsetChange(clock, instant, candidate, offset);
  }
  return null;
}

/** A rule's schedule in its zone, compiled once per rule version. */
export interface RuleSchedule {
  readonly schedule: WeeklySchedule;
  isOpen(epochMs: number): boolean;
  nextOpening(epochMs: number): number | null;
  /** When the schedule next closes (a maintenance silence's recurring window ends); null: never. */
  nextClosing(epochMs: number): number | null;
}

export function compileSchedule(schedule: WeeklySchedule, timezone: RuleTimeZone): RuleSchedule {
  const clock = zoneClock(timezone);
  // the last closed stretch found: every instant in [from, until] has the opening `until`, so the silence
  // deadline of a vehicle reporting at night (asked with every message) costs no new search
  let closedFrom = Number.NaN;
  let closedUntil = Number.NaN;
  return {
    schedule,
    isOpen: (epochMs) => isOpen(schedule, clock, epochMs),
    nextClosing: (epochMs) => nextClosing(schedule, clock, epochMs),
    nextOpening(epochMs) {
      if (epochMs >= closedFrom && epochMs <= closedUntil) return closedUntil;
      const opening = nextOpening(schedule, clock, epochMs);
      if (opening !== null && opening > epochMs) {
        closedFrom = epochMs;
        closedUntil = opening;
      }
      return opening;
    },
  };
}
