import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import {
  compileSchedule,
  DAY_NAMES,
  formatSchedule,
  isOpen,
  nextClosing,
  nextOpening,
  parseSchedule,
  weeklySchedule,
  type WeeklySchedule,
} from '../../shared/rules/schedule';
import type { RuleTimeZone } from '../../shared/rules/time-zone';

const DAY = 1_440;
const WEEK = 7 * DAY;
const MIN_MS = 60_000;

/** One clause as written: days (single days or ranges, maybe wrapping) and windows (start, end in minutes; end may be 1440 or ≤ start). */
interface Clause {
  days: { from: number; to: number }[] | null;
  windows: { start: number; end: number }[];
}

const clockText = (minutes: number, pad: boolean) =>
  `${pad ? String(Math.floor(minutes / 60)).padStart(2, '0') : Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`;

const windowArb = fc
  .tuple(fc.integer({ min: 0, max: DAY - 1 }), fc.integer({ min: 0, max: DAY }))
  .filter(([start, end]) => start !== end)
  .map(([start, end]) => ({ start, end }));

const clauseArb: fc.Arbitrary<Clause> = fc.record({
  days: fc.option(fc.array(fc.record({ from: fc.integer({ min: 0, max: 6 }), to: fc.integer({ min: 0, max: 6 }) }), { minLength: 1, maxLength: 3 }), {
    nil: null,
  }),
  windows: fc.array(windowArb, { minLength: 1, maxLength: 3 }),
});

/** Renders clauses with varied spelling: case, spaces, one-digit hours. */
const textArb = fc.array(clauseArb, { minLength: 1, maxLength: 4 }).chain((clauses) =>
  fc
    .tuple(fc.constant(clauses), fc.array(fc.tuple(fc.boolean(), fc.constantFrom(' ', '  ', '')), { minLength: 16, maxLength: 16 }))
    .map(([list, style]) => {
      let n = 0;
      const pick = () => style[n++ % style.length]!;
      const text = list
        .map((clause) => {
          const [upper, space] = pick();
          const day = (index: number) => (upper ? DAY_NAMES[index]!.toUpperCase() : DAY_NAMES[index]!);
          const days =
            clause.days === null
              ? ''
              : clause.days.map(({ from, to }) => (from === to ? day(from) : `${day(from)}${space}-${space}${day(to)}`)).join(`,${space}`);
          const windows = clause.windows
            .map(({ start, end }) => `${clockText(start, !upper)}${space}-${space}${clockText(end, true)}`)
            .join(`,${space}`);
          return `${days}${days === '' ? '' : ' '}${windows}`;
        })
        .join(`;${pick()[1]}`);
      return { clauses: list, text };
    }),
);

/** The open minutes of the week straight from the clauses: the reference the parser is checked against. */
function openMinutes(clauses: readonly Clause[]): boolean[] {
  const open = new Array<boolean>(WEEK).fill(false);
  for (const clause of clauses) {
    const days = new Set<number>();
    for (const { from, to } of clause.days ?? [{ from: 0, to: 6 }]) {
      for (let day = from; ; day = (day + 1) % 7) {
        days.add(day);
        if (day === to) break;
      }
    }
    for (const day of days) {
      for (const { start, end } of clause.windows) {
        const length = end > start ? end - start : end + DAY - start;
        for (let minute = 0; minute < length; minute++) open[(day * DAY + start + minute) % WEEK] = true;
      }
    }
  }
  return open;
}

function scheduleMinutes(schedule: WeeklySchedule): boolean[] {
  const open = new Array<boolean>(WEEK).fill(false);
  for (const [start, end] of schedule.windows) for (let minute = start; minute < end; minute++) open[minute] = true;
  return open;
}

function parsed(text: string): WeeklySchedule {
  const result = parseSchedule(text);
  if (!result.ok) throw new Error(`${text}: ${result.error}`);
  return result.schedule;
}

const piecesArb = (maxLength: number, maxMinutes: number) =>
  fc
    .array(fc.tuple(fc.integer({ min: 0, max: WEEK - 1 }), fc.integer({ min: 1, max: maxMinutes })), { minLength: 1, maxLength })
    .map((pieces) => weeklySchedule(pieces.map(([start, length]) => [start, start + length])));
/** Busy weeks, and sparse ones (a window or two of at most three hours), whose waits cross daylight-saving changes. */
const scheduleArb: fc.Arbitrary<WeeklySchedule> = fc.oneof(piecesArb(8, 3 * DAY), piecesArb(2, 180));

describe('schedule parser (properties)', () => {
  test.prop([textArb])('opens exactly the minutes its clauses name', ({ clauses, text }) => {
    expect(scheduleMinutes(parsed(text))).toEqual(openMinutes(clauses));
  });

  test.prop([scheduleArb])('reads its own canonical text back to the same schedule', (schedule) => {
    const text = formatSchedule(schedule);
    expect(parsed(text)).toEqual(schedule);
    expect(formatSchedule(parsed(text))).toBe(text);
  });

  test.prop([textArb])('keeps its windows sorted, disjoint and within the week', ({ text }) => {
    const { windows } = parsed(text);
    windows.forEach(([start, end], i) => {
      expect(start).toBeGreaterThanOrEqual(0);
      expect(end).toBeGreaterThan(start);
      expect(end).toBeLessThanOrEqual(WEEK);
      if (i > 0) expect(start).toBeGreaterThan(windows[i - 1]![1]);
    });
  });
});

/** Zones with daylight saving in both hemispheres, a half-hour shift (Lord Howe), odd offsets, and fixed ones. */
const ZONES: RuleTimeZone[] = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Australia/Lord_Howe',
  'America/Santiago',
  'Asia/Kathmandu',
  'Pacific/Chatham',
  3,
  -3.5,
  5.75,
];

/** The local weekday and minute of the day, by Intl's weekday formatting: a reference independent of the offsets. */
const weekdayFormats = new Map<string, Intl.DateTimeFormat>();
function referenceOpen(schedule: WeeklySchedule, zone: RuleTimeZone, epochMs: number): boolean {
  let weekday: number;
  let minute: number;
  if (typeof zone === 'number') {
    const local = new Date(epochMs + zone * 3_600_000);
    weekday = (local.getUTCDay() + 6) % 7;
    minute = local.getUTCHours() * 60 + local.getUTCMinutes();
  } else {
    let format = weekdayFormats.get(zone);
    if (!format) {
      format = new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
      weekdayFormats.set(zone, format);
    }
    const parts = Object.fromEntries(format.formatToParts(epochMs).map((part) => [part.type, part.value]));
    weekday = DAY_NAMES.indexOf(parts.weekday as (typeof DAY_NAMES)[number]);
    minute = Number(parts.hour) * 60 + Number(parts.minute);
  }
  return scheduleMinutes(schedule)[weekday * DAY + minute]!;
}

const FROM = Date.parse('2024-01-01T00:00:00Z');
const TO = Date.parse('2031-01-01T00:00:00Z');
/** Instants anywhere, and instants within hours of a March/April or October/November change. */
const instantArb = fc.oneof(
  fc.integer({ min: FROM, max: TO }),
  fc
    .tuple(
      fc.constantFrom('2026-03-08', '2026-03-29', '2026-04-05', '2026-09-06', '2026-10-04', '2026-10-25', '2026-11-01', '2027-03-28', '2027-04-04'),
      fc.integer({ min: -36 * 60, max: 36 * 60 }),
      fc.integer({ min: 0, max: MIN_MS - 1 }),
    )
    .map(([day, minutes, ms]) => Date.parse(`${day}T00:00:00Z`) + minutes * MIN_MS + ms),
);

describe('schedule window arithmetic (properties)', () => {
  test.prop([scheduleArb, fc.constantFrom(...ZONES), instantArb])('isOpen agrees with the local weekday and time', (schedule, zone, t) => {
    expect(isOpen(schedule, zone, t)).toBe(referenceOpen(schedule, zone, t));
  });

  test.prop([
    scheduleArb,
    fc.constantFrom(...ZONES),
    instantArb,
    fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 8, maxLength: 8 }),
  ])('nextOpening is the first open instant at or after t', (schedule, zone, t, samples) => {
    const opening = nextOpening(schedule, zone, t);
    expect(opening).not.toBeNull();
    expect(opening!).toBeGreaterThanOrEqual(t);
    expect(isOpen(schedule, zone, opening!)).toBe(true);
    expect(opening === t).toBe(isOpen(schedule, zone, t));
    if (opening! > t) {
      // closed just before the opening and wherever sampled in between
      expect(referenceOpen(schedule, zone, opening! - 1)).toBe(false);
      for (const share of samples) expect(referenceOpen(schedule, zone, t + Math.floor(share * (opening! - t)))).toBe(false);
    }
    // a week and a day is the longest wait, whatever daylight saving does
    expect(opening! - t).toBeLessThanOrEqual(8 * DAY * MIN_MS);
  });

  test.prop([
    scheduleArb,
    fc.constantFrom(...ZONES),
    instantArb,
    fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 8, maxLength: 8 }),
  ])('nextClosing is the first closed instant at or after t (a maintenance silence window ends there)', (schedule, zone, t, samples) => {
    const closing = nextClosing(schedule, zone, t);
    if (schedule.windows.length === 1 && schedule.windows[0]![0] === 0 && schedule.windows[0]![1] === WEEK) {
      expect(closing).toBeNull();
      return;
    }
    expect(closing).not.toBeNull();
    expect(closing!).toBeGreaterThanOrEqual(t);
    expect(isOpen(schedule, zone, closing!)).toBe(false);
    expect(closing === t).toBe(!isOpen(schedule, zone, t));
    if (closing! > t) {
      expect(referenceOpen(schedule, zone, closing! - 1)).toBe(true);
      for (const share of samples) expect(referenceOpen(schedule, zone, t + Math.floor(share * (closing! - t)))).toBe(true);
    }
  });

  test.prop([scheduleArb, fc.constantFrom('Europe/Berlin', 'Australia/Lord_Howe', 'America/Santiago'), instantArb], { numRuns: 20 })(
    'no whole minute between t and nextOpening(t) is open (exhaustive)',
    (schedule, zone, t) => {
      const opening = nextOpening(schedule, zone, t)!;
      // every offset is whole minutes, so openness changes only at whole minutes
      for (let minute = Math.ceil(t / MIN_MS) * MIN_MS; minute < opening; minute += MIN_MS) expect(referenceOpen(schedule, zone, minute)).toBe(false);
    },
  );

  test.prop([scheduleArb, fc.constantFrom(...ZONES), fc.array(instantArb, { minLength: 1, maxLength: 12 })])(
    'a schedule compiled for a rule answers as the pure functions, in any order of questions',
    (schedule, zone, instants) => {
      const compiled = compileSchedule(schedule, zone);
      const sorted = [...instants].sort((a, b) => a - b);
      for (const t of [...sorted, ...instants]) {
        expect(compiled.nextOpening(t)).toBe(nextOpening(schedule, zone, t));
        expect(compiled.isOpen(t)).toBe(isOpen(schedule, zone, t));
      }
    },
  );
});
