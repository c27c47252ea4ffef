import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { quietHoursEnd } from '../../shared/delivery/quiet-hours';
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

  it('ends an end inside the skipped hour after the jump, never before it; one in the repeated hour at its first occurrence', () => {
    const skipped: QuietHours = { from: '22:00', to: '02:30', timezone: 'Europe/Berlin' };
    // 02:30 does not exist on 2026-03-29; the jump is at 01:00Z (02:00 → 03:00 local)
    expect(quietHoursEnd(skipped, at('2026-03-28T23:00:00.000Z'))).toBeGreaterThan(at('2026-03-29T01:00:00.000Z'));
    const repeated: QuietHours = { from: '22:00', to: '02:30', timezone: 'Europe/Berlin' };
    // 02:30 happens twice on 2026-10-25: at 00:30Z (+2) and at 01:30Z (+1)
    expect(end(repeated, '2026-10-24T23:00:00.000Z')).toBe('2026-10-25T00:30:00.000Z');
  });

  it('gives every instant inside the window one end, the same for the whole night, later than the instant', () => {
    const zones = ['Europe/Berlin', 'America/New_York', 'Asia/Baku', 'Australia/Lord_Howe', 'UTC'];
    const clock = fc
      .integer({ min: 0, max: 23 * 60 + 59 })
      .map((minute) => `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`);
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        clock,
        clock,
        fc.integer({ min: at('2026-01-01T00:00:00Z'), max: at('2027-01-01T00:00:00Z') }),
        (timezone, from, to, now) => {
          fc.pre(from !== to);
          const hours = { from, to, timezone };
          const found = quietHoursEnd(hours, now);
          if (found === null) return;
          expect(found).toBeGreaterThan(now);
          // a minute later, still inside: the same end
          if (now + 60_000 < found) expect(quietHoursEnd(hours, now + 60_000)).toBe(found);
          // at the end itself, outside (unless the next night begins at once, which from ≠ to rules out)
          expect(quietHoursEnd(hours, found)).toBeNull();
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
