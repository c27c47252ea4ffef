import { describe, expect, it } from 'vitest';
import { compileSchedule, formatSchedule, isOpen, nextOpening, parseSchedule, type WeeklySchedule } from '../../shared/rules/schedule';
import { connectionLossSettingsSchema } from '../../shared/rules/connection-loss';
import { settingsProblems } from '../../shared/rules/rule-validation';
import { SETTINGS_REFERENCE } from '../../shared/rules/settings-reference';

const MIN = 60_000;
const HOUR = 60 * MIN;
const at = (iso: string) => Date.parse(iso);

function parsed(text: string): WeeklySchedule {
  const result = parseSchedule(text);
  if (!result.ok) throw new Error(`${text}: ${result.error}`);
  return result.schedule;
}

const error = (text: string) => {
  const result = parseSchedule(text);
  return result.ok ? undefined : result.error;
};

describe('schedule text', () => {
  it('reads days, ranges, lists and several windows', () => {
    expect(formatSchedule(parsed('Mon-Fri 08:00-18:00; Sat 09:00-13:00'))).toBe('Mon-Fri 08:00-18:00; Sat 09:00-13:00');
    expect(formatSchedule(parsed('sat 09:00-13:00 ;  MON-fri 8:00 - 18:00'))).toBe('Mon-Fri 08:00-18:00; Sat 09:00-13:00');
    expect(formatSchedule(parsed('Mon, Wed-Fri 08:00-12:00, 13:00-17:00'))).toBe('Mon, Wed-Fri 08:00-12:00, 13:00-17:00');
    expect(formatSchedule(parsed('Mon 08:00-12:00; Mon 13:00-17:00; Mon 11:00-14:00'))).toBe('Mon 08:00-17:00');
    // without days: every day; a range may run over the week's end
    expect(formatSchedule(parsed('07:00-19:00'))).toBe('Mon-Sun 07:00-19:00');
    expect(formatSchedule(parsed('Fri-Mon 10:00-11:00'))).toBe('Mon, Fri-Sun 10:00-11:00');
  });

  it('takes 24:00 as the end of the day', () => {
    expect(parsed('Sat 00:00-24:00').windows).toEqual([[5 * 1440, 6 * 1440]]);
    expect(formatSchedule(parsed('Mon-Sun 00:00-24:00'))).toBe('Mon-Sun 00:00-24:00');
  });

  it('lets a window cross midnight into the next day, Sunday into Monday too', () => {
    expect(parsed('Fri 22:00-06:00').windows).toEqual([[4 * 1440 + 22 * 60, 5 * 1440 + 6 * 60]]);
    expect(parsed('Sun 22:00-02:00').windows).toEqual([
      [0, 120],
      [6 * 1440 + 22 * 60, 7 * 1440],
    ]);
    expect(formatSchedule(parsed('Fri 22:00-06:00'))).toBe('Fri 22:00-24:00; Sat 00:00-06:00');
    // an end of 00:00 is midnight
    expect(parsed('Tue 20:00-00:00')).toEqual(parsed('Tue 20:00-24:00'));
  });

  it('refuses what it cannot read, naming the part', () => {
    expect(error('Mon-Fry 08:00-18:00')).toMatch(/"Mon-Fry" is not a day/);
    expect(error('Mon 8-18')).toMatch(/"8-18" is not a window/);
    expect(error('Mon 25:00-26:00')).toMatch(/start must be a time from 00:00 to 23:59/);
    expect(error('Mon 08:00-24:30')).toMatch(/end must be a time from 00:00 to 24:00/);
    expect(error('Mon 24:00-02:00')).toMatch(/start must be/);
    expect(error('Mon 08:00-08:00')).toMatch(/is empty/);
    expect(error('Mon-Fri')).toMatch(/names no window/);
    expect(error(' ; ')).toMatch(/names no window/);
    expect(error('Mon 08:00-18:00 Tue')).toMatch(/is not a window/);
  });

  it('is a setting of every type: blank or left out is always open, bad text a problem naming settings.schedule', () => {
    expect(connectionLossSettingsSchema.parse({}).schedule).toBeUndefined();
    expect(connectionLossSettingsSchema.parse({ schedule: '  ' }).schedule).toBeUndefined();
    expect(connectionLossSettingsSchema.parse({ schedule: 'Mon 08:00-09:00' }).schedule).toEqual(parsed('Mon 08:00-09:00'));
    for (const [type, reference] of Object.entries(SETTINGS_REFERENCE)) {
      expect(settingsProblems(Number(type), { ...reference.example, schedule: 'weekdays 9 to 5' })).toEqual([
        { path: 'settings.schedule', message: expect.stringMatching(/"weekdays" is not a day/) },
      ]);
    }
  });
});

describe('schedule windows in time zones', () => {
  const office = parsed('Mon-Fri 08:00-18:00; Sat 09:00-13:00');

  it('reads a fixed offset in hours and an IANA zone', () => {
    // Monday 2026-11-23
    expect(isOpen(office, 3, at('2026-11-23T04:59:59Z'))).toBe(false);
    expect(isOpen(office, 3, at('2026-11-23T05:00:00Z'))).toBe(true);
    expect(isOpen(office, 'Europe/Berlin', at('2026-11-23T07:00:00Z'))).toBe(true);
    expect(isOpen(office, 'Europe/Berlin', at('2026-11-23T17:00:00Z'))).toBe(false);
    expect(nextOpening(office, 'UTC', at('2026-11-27T18:00:00Z'))).toBe(at('2026-11-28T09:00:00Z'));
    expect(nextOpening(office, 'UTC', at('2026-11-28T13:00:00Z'))).toBe(at('2026-11-30T08:00:00Z'));
    expect(nextOpening(office, -5.5, at('2026-11-23T13:30:00Z'))).toBe(at('2026-11-23T13:30:00Z'));
  });

  it('is open up to the end of a window crossing midnight', () => {
    const night = parsed('Fri 22:00-06:00');
    expect(isOpen(night, 'UTC', at('2026-11-27T21:59:59Z'))).toBe(false);
    expect(isOpen(night, 'UTC', at('2026-11-27T22:00:00Z'))).toBe(true);
    expect(isOpen(night, 'UTC', at('2026-11-28T05:59:59Z'))).toBe(true);
    expect(isOpen(night, 'UTC', at('2026-11-28T06:00:00Z'))).toBe(false);
    expect(nextOpening(night, 'UTC', at('2026-11-28T06:00:00Z'))).toBe(at('2026-12-04T22:00:00Z'));
  });

  // Europe/Berlin, 2026: clocks go 02:00 CET → 03:00 CEST on 29 March (01:00 UTC), 03:00 CEST → 02:00 CET on 25 October (01:00 UTC)
  describe('daylight saving', () => {
    it('never opens a window inside the hour skipped on the spring-forward day', () => {
      const skipped = parsed('Sun 02:00-03:00');
      for (let t = at('2026-03-28T22:00:00Z'); t < at('2026-03-29T22:00:00Z'); t += MIN) expect(isOpen(skipped, 'Europe/Berlin', t)).toBe(false);
      // the week after, 02:00 CEST is 00:00 UTC
      expect(nextOpening(skipped, 'Europe/Berlin', at('2026-03-29T00:00:00Z'))).toBe(at('2026-04-05T00:00:00Z'));
      // the week before, 02:00 CET is 01:00 UTC
      expect(nextOpening(skipped, 'Europe/Berlin', at('2026-03-21T00:00:00Z'))).toBe(at('2026-03-22T01:00:00Z'));
    });

    it('opens a window that starts in the skipped hour at the jump, and keeps local times after it', () => {
      const late = parsed('Sun 02:30-04:00');
      expect(nextOpening(late, 'Europe/Berlin', at('2026-03-29T00:30:00Z'))).toBe(at('2026-03-29T01:00:00Z'));
      expect(isOpen(late, 'Europe/Berlin', at('2026-03-29T00:59:59Z'))).toBe(false);
      expect(isOpen(late, 'Europe/Berlin', at('2026-03-29T01:59:59Z'))).toBe(true);
      expect(isOpen(late, 'Europe/Berlin', at('2026-03-29T02:00:00Z'))).toBe(false);
      const workday = parsed('Mon-Fri 08:00-18:00');
      // Friday 18:00 CET → Monday 08:00 CEST
      expect(nextOpening(workday, 'Europe/Berlin', at('2026-03-27T17:00:00Z'))).toBe(at('2026-03-30T06:00:00Z'));
    });

    it('keeps a window over the repeated hour of the fall-back day open for both passes', () => {
      const repeated = parsed('Sun 02:00-03:00');
      expect(isOpen(repeated, 'Europe/Berlin', at('2026-10-24T23:59:59Z'))).toBe(false);
      expect(nextOpening(repeated, 'Europe/Berlin', at('2026-10-24T22:00:00Z'))).toBe(at('2026-10-25T00:00:00Z'));
      let open = 0;
      for (let t = at('2026-10-24T22:00:00Z'); t < at('2026-10-25T23:00:00Z'); t += MIN) if (isOpen(repeated, 'Europe/Berlin', t)) open += MIN;
      expect(open).toBe(2 * HOUR);
      expect(isOpen(repeated, 'Europe/Berlin', at('2026-10-25T01:59:59Z'))).toBe(true);
      expect(isOpen(repeated, 'Europe/Berlin', at('2026-10-25T02:00:00Z'))).toBe(false);
    });

    it('opens again at the fall-back jump when the clock goes back into a window', () => {
      const around = parsed('Sun 01:30-02:30');
      // 01:30-02:30 CEST, then 02:30-03:00 CEST closed, then 02:00-02:30 CET open again
      expect(isOpen(around, 'Europe/Berlin', at('2026-10-24T23:30:00Z'))).toBe(true);
      expect(isOpen(around, 'Europe/Berlin', at('2026-10-25T00:40:00Z'))).toBe(false);
      expect(nextOpening(around, 'Europe/Berlin', at('2026-10-25T00:40:00Z'))).toBe(at('2026-10-25T01:00:00Z'));
      expect(nextOpening(around, 'Europe/Berlin', at('2026-10-25T01:30:00Z'))).toBe(at('2026-11-01T00:30:00Z'));
    });
  });

  it('answers the same when compiled for a rule, however the questions come', () => {
    const compiled = compileSchedule(office, 'Europe/Berlin');
    const times = [
      at('2026-11-23T18:00:00Z'),
      at('2026-11-23T19:00:00Z'),
      at('2026-11-24T06:59:59Z'),
      at('2026-11-24T07:00:00Z'),
      at('2026-11-23T17:30:00Z'),
    ];
    for (const t of times) {
      expect(compiled.nextOpening(t)).toBe(nextOpening(office, 'Europe/Berlin', t));
      expect(compiled.isOpen(t)).toBe(isOpen(office, 'Europe/Berlin', t));
    }
  });
});
