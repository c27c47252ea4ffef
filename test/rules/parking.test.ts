import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { parkingEvaluator, type ParkingSettings } from '../../shared/rules/parking';
import type { CompiledRule } from '../../shared/rules/types';
import { ruleResolver } from '../support/resolve-rules';
import { T0, northFix, storedRule } from './fixtures';
import { kinds, run, times } from './harness';

const at = (s: number) => new Date(T0 + s * 1000).toISOString();

const fix = northFix;

/** The rule as evaluate gets it: stored, then compiled and resolved for vehicle 1 through RuleCache. */
async function parkingRule(settings: Record<string, string>): Promise<CompiledRule<ParkingSettings>> {
  const resolved = await ruleResolver([storedRule({ type: 13, settings })]).forVehicle(1, T0);
  return resolved.rules[0] as CompiledRule<ParkingSettings>;
}

/** Standing for `seconds`, a fix a minute, wandering up to `drift` metres with the speeds drift reports. */
const standing = (from: number, seconds: number, drift = 0, ignition?: string) =>
  Array.from({ length: seconds / 60 + 1 }, (_, i) =>
    fix(from + i * 60, { north: i % 2 === 0 ? drift : -drift, speed: i % 3 === 1 ? 9 : 0, ignition }),
  );
const driving = (from: number, count: number, north = 2_000) =>
  Array.from({ length: count }, (_, i) => fix(from + i * 10, { north: north + i * 150, speed: 50, ignition: '1' }));

describe('parking', () => {
  it('alerts once per stop that lasts `minutes`, whatever speeds GPS drift inside the radius reports', async () => {
    const rule = await parkingRule({ minutes: '15' });
    const trace = [...standing(0, 40 * 60, 24), ...driving(2_410, 3), ...standing(2_440, 20 * 60, 15)];
    const { events } = run(parkingEvaluator, rule, trace);
    expect(times(events)).toEqual([at(15 * 60), at(2_440 + 15 * 60)]);
    expect(events[0]!.values).toEqual({ parkedMinutes: 15, since: at(0), minutes: 15 });
    expect(kinds(events)).toEqual(['parking', 'parking']);
  });

  it('ends a stop only at the second fix in a row beyond the radius: a lone stray fix ends nothing', async () => {
    const rule = await parkingRule({ minutes: '10', radius: '50', notifyEnd: 'true' });
    const stray = [...standing(0, 5 * 60), fix(330, { north: 900, speed: 40 }), ...standing(360, 15 * 60)];
    expect(run(parkingEvaluator, rule, stray).events.map((event) => [event.kind, event.time])).toEqual([['parking', at(600)]]);
    const leaves = [...standing(0, 12 * 60), fix(730, { north: 60 }), fix(740, { north: 70 }), fix(750, { north: 80 })];
    const { events } = run(parkingEvaluator, rule, leaves);
    expect(events.map((event) => [event.kind, event.time])).toEqual([
      ['parking', at(600)],
      ['parkingEnded', at(740)],
    ]);
    expect(events[1]!.values).toEqual({ parkedMinutes: 12, parkedSince: at(0) });
  });

  it('reports the end only with notifyEnd and only of a reported stop', async () => {
    const quiet = await parkingRule({ minutes: '10' });
    const short = await parkingRule({ minutes: '30', notifyEnd: 'true' });
    const trace = [...standing(0, 12 * 60), ...driving(730, 4)];
    expect(kinds(run(parkingEvaluator, quiet, trace).events)).toEqual(['parking']);
    expect(run(parkingEvaluator, short, trace).events).toEqual([]);
  });

  it('counts only stops with the ignition as the rule asks; a reading otherwise ends the stop', async () => {
    const off = await parkingRule({ minutes: '10', ignition: 'off', notifyEnd: 'true' });
    const on = await parkingRule({ minutes: '10', ignition: 'on' });
    const idling = standing(0, 20 * 60, 5, '1');
    expect(run(parkingEvaluator, off, idling).events).toEqual([]);
    expect(times(run(parkingEvaluator, on, idling).events)).toEqual([at(600)]);
    const warmsUp = [...standing(0, 12 * 60, 5, '0'), fix(780, { ignition: '1' }), ...standing(840, 12 * 60, 5, '0')];
    expect(run(parkingEvaluator, off, warmsUp).events.map((event) => [event.kind, event.time])).toEqual([
      ['parking', at(600)],
      ['parkingEnded', at(780)],
      ['parking', at(840 + 600)],
    ]);
  });

  it('reads a fix without the ignition parameter, or with a blank one, as no news', async () => {
    const off = await parkingRule({ minutes: '10', ignition: 'off' });
    const trace = [fix(0, { ignition: '0' }), fix(300), fix(450, { ignition: ' ' }), fix(600)];
    expect(times(run(parkingEvaluator, off, trace).events)).toEqual([at(600)]);
    // a stop cannot begin without a reading that says the ignition is off
    expect(run(parkingEvaluator, off, [fix(0), fix(300), fix(700)]).events).toEqual([]);
  });

  it('ignores late, duplicated and reordered fixes, and survives a restart between any two fixes', async () => {
    const rule = await parkingRule({ minutes: '10', notifyEnd: 'true' });
    const ordered = [...standing(0, 14 * 60, 25), ...driving(850, 4)];
    const expected = run(parkingEvaluator, rule, ordered).events;
    expect(kinds(expected)).toEqual(['parking', 'parkingEnded']);
    // the alerting fix twice, a fix of the stop after the drive began, two fixes of the stop swapped
    const delivered = [
      ...ordered.slice(0, 11),
      ordered[10]!,
      ordered[13]!,
      ordered[12]!,
      ordered[14]!,
      ordered[15]!,
      ordered[16]!,
      ordered[3]!,
      ...ordered.slice(17),
    ];
    expect(delivered.length).toBe(ordered.length + 1);
    expect(run(parkingEvaluator, rule, delivered).events).toEqual(expected);
    expect(run(parkingEvaluator, rule, ordered, { batches: ordered.map(() => 1) }).events).toEqual(expected);
    // the drive's first two fixes swapped: the earlier one comes too late to count, and the end is seen one fix later
    const swapped = [...ordered.slice(0, 15), ordered[16]!, ordered[15]!, ...ordered.slice(17)];
    expect(run(parkingEvaluator, rule, swapped).events.map((event) => [event.kind, event.time])).toEqual([
      ['parking', at(600)],
      ['parkingEnded', ordered[17]!.deviceTime],
    ]);
  });

  test.prop([
    fc.integer({ min: 1, max: 30 }),
    fc.array(fc.record({ gap: fc.integer({ min: 1, max: 300 }), north: fc.integer({ min: -49, max: 49 }), speed: fc.integer({ min: 0, max: 30 }) }), {
      minLength: 1,
      maxLength: 60,
    }),
    fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 10 }),
  ])('alerts exactly once, at the first fix `minutes` after a slow start, while every fix stays inside the radius', (minutes, steps, batches) => {
    const rule = { rule: storedRule({ type: 13 }), settings: parkingEvaluator.settingsSchema.parse({ minutes: String(minutes), radius: '50' }) };
    let s = 0;
    const trace = [fix(0), ...steps.map((step) => fix((s += step.gap), { north: step.north, speed: step.speed }))];
    const first = trace.find((m) => Date.parse(m.deviceTime) - T0 >= minutes * 60_000);
    expect(times(run(parkingEvaluator, rule, trace, { batches }).events)).toEqual(first ? [first.deviceTime] : []);
  });
});
