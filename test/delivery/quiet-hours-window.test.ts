import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { quietHoursEnd } from '../../shared/delivery/quiet-hours';
import { zoneClock } from '../../shared/rules/time-zone';
import type { QuietHours } from '../../shared/schemas/preferences';

const at = (iso: string) => Date.parse(iso);
const end = (hours: QuietHours, iso: string) => {
  const found = quietHoursEnd(hours, at(iso));
  return found === null ? null : new Date(found).toISOString();
};

describe('quiet hours window', () => {
  const night: QuietHours = { from: '22:00', to: '07:00', timezone: 'Europe/Berlin' };

  it('crosses midnight: inside from 22:00 to 07:00 local, ending at the next 07:00', () => {
    // Berlin is UTC+1 in winter
    expect(end(night, '2026-01-14T20:59:59.999Z')).toBeNull();
    expect(end(night, '2026-01-14T21:00:00.000Z')).toBe('2026-01-15T06:00:00.000Z');
    expect(end(night, '2026-01-14T23:30:00.000Z')).toBe('2026-01-15T06:00:00.000Z');
    expect(end(night, '2026-01-15T05:59:59.999Z')).toBe('2026-01-15T06:00:00.000Z');
    expect(end(night, '2026-01-15T06:00:00.000Z')).toBeNull();
    expect(end(night, '2026-01-15T12:00:00.000Z')).toBeNull();
  });

  it('within one day: inside from from to to', () => {
    const lunch: QuietHours = { from: '12:00', to: '13:30', timezone: 'Asia/Baku' };
    expect(end(lunch, '2026-05-01T07:59:00.000Z')).toBeNull();
    expect(end(lunch, '2026-05-01T08:00:00.000Z')).toBe('2026-05-01T09:30:00.000Z');
    expect(end(lunch, '2026-05-01T09:30:00.000Z')).toBeNull();
  });

  it('follows daylight saving: the end is 07:00 on the wall clock, whatever the offset was when the night began', () => {
    // clocks go forward in Berlin at 01:00Z on 2026-03-29 (+1 → +2), and back at 01:00Z on 2026-10-25 (+2 → +1)
    expect(end(night, '2026-03-28T21:30:00.000Z')).toBe('2026-03-29T05:00:00.000Z');
    expect(end(night, '2026-03-29T02:00:00.000Z')).toBe('2026-03-29T05:00:00.000Z');
    expect(end(night, '2026-10-24T20:30:00.000Z')).toBe('2026-10-25T06:00:00.000Z');
    expect(end(night, '2026-10-25T03:00:00.000Z')).toBe('2026-10-25T06:00:00.000Z');
  });

  it('ends a night at the jump when its end is skipped, and at the first occurrence when its end is repeated', () => {
    const skipped: QuietHours = { from: '22:00', to: '02:30', timezone: 'Europe/Berlin' };
    // 02:30 does not exist on 2026-03-29: the clock jumps from 02:00 to 03:00 local at 01:00Z, passing it
    expect(end(skipped, '2026-03-28T23:00:00.000Z')).toBe('2026-03-29T01:00:00.000Z');
    expect(end(skipped, '2026-03-29T01:00:00.000Z')).toBeNull();
    const repeated: QuietHours = { from: '22:00', to: '02:30', timezone: 'Europe/Berlin' };
    // 02:30 happens twice on 2026-10-25: at 00:30Z (+2) and at 01:30Z (+1)
    expect(end(repeated, '2026-10-24T23:00:00.000Z')).toBe('2026-10-25T00:30:00.000Z');
    // the clock reads 02:10 again at 01:10Z, but that night has ended
    expect(end(repeated, '2026-10-25T01:10:00.000Z')).toBeNull();
  });

  it('keeps a night begun in the repeated hour one night: going back does not reopen the gap before it', () => {
    const early: QuietHours = { from: '02:15', to: '06:00', timezone: 'Europe/Berlin' };
    // began at the first 02:15 (00:15Z); at 01:05Z the clock reads 02:05 again, still inside
    expect(end(early, '2026-10-25T00:15:00.000Z')).toBe('2026-10-25T05:00:00.000Z');
    expect(end(early, '2026-10-25T01:05:00.000Z')).toBe('2026-10-25T05:00:00.000Z');
  });

  it('gives an open gap the clock change skips no length: one night ends as the next begins', () => {
    // open only 02:00-02:01 in New York, which does not exist on 2026-03-08 (02:00 EST → 03:00 EDT at 07:00Z)
    const almostAllDay: QuietHours = { from: '02:01', to: '02:00', timezone: 'America/New_York' };
    expect(end(almostAllDay, '2026-03-07T07:01:00.000Z')).toBe('2026-03-08T07:00:00.000Z');
    expect(end(almostAllDay, '2026-03-08T07:00:00.000Z')).toBe('2026-03-09T06:00:00.000Z');
  });

  const zones = ['Europe/Berlin', 'America/New_York', 'America/Santiago', 'Asia/Baku', 'Australia/Lord_Howe', 'UTC'];
  const yearStart = at('2026-01-01T00:00:00Z');
  const yearEnd = at('2027-01-01T00:00:00Z');
  const HOUR_MS = 3_600_000;
  /** Each clock change of the zone in 2026 (Santiago's are at midnight, Lord Howe's half an hour): the hour it falls in. */
  const changesOf = (timezone: string) => {
    const clock = zoneClock(timezone);
    const changes: number[] = [];
    for (let hour = yearStart; hour < yearEnd; hour += HOUR_MS) if (clock.offsetAt(hour) !== clock.offsetAt(hour + HOUR_MS)) changes.push(hour);
    return changes;
  };
  const changes = new Map(zones.map((zone) => [zone, changesOf(zone)]));
  const clockTime = fc
    .integer({ min: 0, max: 23 * 60 + 59 })
    .map((minute) => `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`);
  /** A zone, a window and an instant: anywhere in the year, or (half the time) within two days of one of the zone's clock changes. */
  const cases = fc
    .tuple(
      fc.constantFrom(...zones),
      clockTime,
      clockTime,
      fc.integer({ min: yearStart, max: yearEnd }),
      fc.integer({ min: -48 * HOUR_MS, max: 48 * HOUR_MS }),
      fc.nat(),
      fc.boolean(),
    )
    .filter(([, from, to]) => from !== to)
    .map(([timezone, from, to, anywhere, shift, pick, nearChange]) => {
      const zoneChanges = changes.get(timezone)!;
      const now = nearChange && zoneChanges.length > 0 ? zoneChanges[pick % zoneChanges.length]! + shift : anywhere;
      return { hours: { from, to, timezone }, now };
    });

  it('knows the clock changes it aims at', () => {
    expect(changes.get('Europe/Berlin')).toEqual([at('2026-03-29T00:00:00Z'), at('2026-10-25T00:00:00Z')]);
    expect(changes.get('America/Santiago')).toHaveLength(2);
    expect(changes.get('Asia/Baku')).toEqual([]);
  });

  it('gives every instant inside the window one end, the same for the whole night, later than the instant', () => {
    fc.assert(
      fc.property(cases, ({ hours, now }) => {
        const found = quietHoursEnd(hours, now);
        if (found === null) return;
        expect(found).toBeGreaterThan(now);
        // a minute later, still inside: the same end
        if (now + 60_000 < found) expect(quietHoursEnd(hours, now + 60_000)).toBe(found);
        // at the end itself, outside, unless a clock change skipped the open gap and the next night begins at once
        const clock = zoneClock(hours.timezone);
        if (quietHoursEnd(hours, found) !== null) expect(clock.offsetAt(found - 1_000)).not.toBe(clock.offsetAt(found));
      }),
      { numRuns: 4_000 },
    );
  });

  it('away from a clock change, is inside exactly when the wall clock reads a time in the window', () => {
    fc.assert(
      fc.property(cases, ({ hours, now }) => {
        const clock = zoneClock(hours.timezone);
        fc.pre(clock.offsetAt(now - 48 * HOUR_MS) === clock.offsetAt(now + 48 * HOUR_MS));
        const minute = Math.floor(((now + clock.offsetAt(now)) % (24 * HOUR_MS)) / 60_000);
        const [from, to] = [hours.from, hours.to].map((time) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5))) as [number, number];
        const inside = from < to ? minute >= from && minute < to : minute >= from || minute < to;
        expect(quietHoursEnd(hours, now) !== null).toBe(inside);
      }),
      { numRuns: 2_000 },
    );
  });
});
