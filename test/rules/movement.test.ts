import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { movementEvaluator, type MovementSettings } from '../../shared/rules/movement';
import type { CompiledRule } from '../../shared/rules/types';
import { scheduleAdmits } from '../../shared/pipeline/schedule-gate';
import type { StoredRule } from '../../shared/schemas/notification';
import type { TerminalMessage } from '../../shared/schemas/terminal-message';
import { ruleResolver } from '../support/resolve-rules';
import { T0, northFix, storedRule } from './fixtures';
import { run, times } from './harness';

const at = (s: number) => new Date(T0 + s * 1000).toISOString();

const fix = northFix;

/** The rule as evaluate gets it: stored, then compiled and resolved for vehicle 1 through RuleCache. */
async function movementRule(settings: Record<string, string>, rule: Partial<StoredRule> = {}): Promise<CompiledRule<MovementSettings>> {
  const resolved = await ruleResolver([storedRule({ type: 14, settings, ...rule })]).forVehicle(1, T0);
  return resolved.rules[0] as CompiledRule<MovementSettings>;
}

/** Standing for `seconds`, a fix a minute, wandering `drift` metres either way with the speeds drift reports. */
const standing = (from: number, seconds: number, drift = 0, ignition?: string) =>
  Array.from({ length: seconds / 60 + 1 }, (_, i) =>
    fix(from + i * 60, { north: i % 2 === 0 ? drift : -drift, speed: i % 3 === 1 ? 12 : 0, ignition }),
  );
/** Moving north from the stop at `kmh`, a fix every 10 s. */
const moving = (from: number, count: number, kmh: number, ignition?: string, speed = kmh) =>
  Array.from({ length: count }, (_, i) => fix(from + (i + 1) * 10, { north: (kmh / 3.6) * 10 * (i + 1), speed, ignition }));

describe('movement', () => {
  it('alerts once when the vehicle leaves a place where it stood for minStop, at the first fix beyond distance', async () => {
    const rule = await movementRule({ distance: '200', minStop: '10' });
    const trace = [...standing(0, 15 * 60, 40), ...moving(900, 12, 36)];
    const { events } = run(movementEvaluator, rule, trace);
    // the stop began 40 m north; at 10 m/s the third fix is 260 m from it
    expect(times(events)).toEqual([at(930)]);
    expect(events[0]!.values).toEqual({ distance: 260, stoppedSince: at(0), stoppedMinutes: 15, ignitionOff: false });
  });

  it('raises nothing for a stop shorter than minStop, nor for drift and stray speeds at the stop', async () => {
    const rule = await movementRule({ distance: '200', minStop: '10' });
    expect(run(movementEvaluator, rule, [...standing(0, 9 * 60, 40), ...moving(540, 12, 36)]).events).toEqual([]);
    expect(run(movementEvaluator, rule, standing(0, 60 * 60, 90)).events).toEqual([]);
  });

  it('with confirmFixes 2, ignores a lone stray fix and alerts at the second fix in a row beyond distance', async () => {
    const once = await movementRule({ distance: '200', minStop: '10' });
    const twice = await movementRule({ distance: '200', minStop: '10', confirmFixes: '2' });
    const stray = [...standing(0, 20 * 60), fix(1_210, { north: 800, speed: 70 }), ...standing(1_220, 10 * 60)];
    expect(times(run(movementEvaluator, once, stray).events)).toEqual([at(1_210)]);
    expect(run(movementEvaluator, twice, stray).events).toEqual([]);
    expect(times(run(movementEvaluator, twice, [...standing(0, 20 * 60), ...moving(1_200, 6, 90)]).events)).toEqual([at(1_220)]);
  });

  it('with ignitionOff, sees a tow by displacement even when every fix reports speed 0, and not a drive-off', async () => {
    const rule = await movementRule({ distance: '100', minStop: '30', ignitionOff: 'true' });
    const parked = standing(0, 60 * 60, 20, '0');
    const tow = moving(3_600, 8, 20, '0', 0);
    const { events } = run(movementEvaluator, rule, [...parked, ...tow]);
    // the stop began 20 m north; at 5.6 m/s the third fix is 147 m from it
    expect(times(events)).toEqual([at(3_630)]);
    expect(events[0]!.values).toMatchObject({ stoppedMinutes: 60, ignitionOff: true });
    expect(run(movementEvaluator, rule, [...parked, ...moving(3_600, 8, 40, '1')]).events).toEqual([]);
    // the ignition parameter missing or blank on the tow's fixes: still off, as last read
    const unread = tow.map((m, i): TerminalMessage => ({ ...m, parameters: i % 2 === 0 ? {} : { ignition: '' } }));
    expect(times(run(movementEvaluator, rule, [...parked, ...unread]).events)).toEqual([at(3_630)]);
    // a stop cannot begin without a reading that says the ignition is off
    expect(run(movementEvaluator, rule, [...standing(0, 60 * 60, 20), ...tow]).events).toEqual([]);
  });

  it('sees a vehicle moved while its terminal slept', async () => {
    const rule = await movementRule({ distance: '200', minStop: '10', ignitionOff: 'true' });
    const trace = [...standing(0, 20 * 60, 10, '0'), fix(6 * 3_600, { north: 4_000, ignition: '0' })];
    expect(times(run(movementEvaluator, rule, trace).events)).toEqual([at(6 * 3_600)]);
  });

  it('under a schedule, alerts only for movement in its hours, however long the stop before', async () => {
    // the rule's timezone is UTC+3: open 19:00-07:00 local is 16:00-04:00 UTC; T0 is 00:00 UTC, 03:00 local
    const rule = await movementRule({ distance: '200', minStop: '10', schedule: '19:00-07:00' }, { timezone: 3 });
    const night = run(movementEvaluator, rule, [...standing(0, 30 * 60), ...moving(1_800, 4, 72)]).events;
    expect(night).toHaveLength(1);
    expect(scheduleAdmits(rule, night[0]!)).toBe(true);
    const morning = run(movementEvaluator, rule, [...standing(0, 5 * 3_600), ...moving(5 * 3_600, 4, 72)]).events;
    expect(morning).toHaveLength(1);
    // 05:00 UTC is 08:00 local, after hours are over; the stop began inside them and still gives no pass
    expect(scheduleAdmits(rule, morning[0]!)).toBe(false);
  });

  it('ignores late, duplicated and reordered fixes, and survives a restart between any two fixes', async () => {
    const rule = await movementRule({ distance: '150', minStop: '10', confirmFixes: '2' });
    const ordered = [...standing(0, 12 * 60, 30), ...moving(720, 6, 54)];
    const expected = run(movementEvaluator, rule, ordered).events;
    expect(times(expected)).toEqual([at(750)]);
    const delivered = [
      ...ordered.slice(0, 10),
      ordered[9]!,
      ordered[11]!,
      ordered[10]!,
      ordered[12]!,
      ordered[13]!,
      ordered[2]!,
      ordered[14]!,
      ordered[13]!,
      ...ordered.slice(15),
    ];
    expect(run(movementEvaluator, rule, delivered).events).toEqual(expected);
    expect(run(movementEvaluator, rule, ordered, { batches: ordered.map(() => 1) }).events).toEqual(expected);
  });

  test.prop([
    fc.integer({ min: 1, max: 3 }),
    fc.array(fc.record({ gap: fc.integer({ min: 1, max: 600 }), north: fc.integer({ min: -1_000, max: 1_000 }) }), { minLength: 1, maxLength: 60 }),
    fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 10 }),
  ])(
    'alerts only after confirmFixes fixes in a row beyond distance from a stop of minStop, and at most once per stop',
    (confirmFixes, steps, batches) => {
      const rule = {
        rule: storedRule({ type: 14 }),
        settings: movementEvaluator.settingsSchema.parse({ distance: '300', minStop: '5', maxSpeed: '0', confirmFixes: String(confirmFixes) }),
      };
      let s = 0;
      // every fix reports 0 km/h: any fix may begin a stop, and only displacement tells
      const trace = [fix(0), ...steps.map((step) => fix((s += step.gap), { north: step.north }))];
      const alerted = times(run(movementEvaluator, rule, trace, { batches }).events);
      // the model: a stop point, its last fix within 300 m, and the fixes beyond it in a row
      const expected: string[] = [];
      let stop = { north: 0, since: 0, last: 0, away: 0 };
      trace.forEach((m, i) => {
        const north = i === 0 ? 0 : steps[i - 1]!.north;
        const time = Date.parse(m.deviceTime) - T0;
        if (i === 0) return;
        if (Math.abs(north - stop.north) <= 299) {
          stop = { ...stop, last: time, away: 0 };
          return;
        }
        if (Math.abs(north - stop.north) < 301) fc.pre(false);
        stop = { ...stop, away: stop.away + 1 };
        if (stop.away < confirmFixes) return;
        if (stop.last - stop.since >= 5 * 60_000) expected.push(m.deviceTime);
        stop = { north, since: time, last: time, away: 0 };
      });
      expect(alerted).toEqual(expected);
    },
  );
});
