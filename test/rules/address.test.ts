import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { addressEvaluator } from '../../shared/rules/address';
import { ruleProblems } from '../../shared/rules/rule-validation';
import { CENTER, T0, message, offset } from './fixtures';
import { compile, kinds, run, times } from './harness';

const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const point = { address: 'Tverskaya 1, Moscow', latitude: String(CENTER.lat), longitude: String(CENTER.lon) };
/** A message `north` metres north of the address. */
const northOf = (seconds: number, north: number) => {
  const p = offset(CENTER.lat, CENTER.lon, north, 0);
  return message(seconds, { latitude: p.lat, longitude: p.lon });
};
const rule = compile(addressEvaluator, point);

describe('address settings', () => {
  it('has documented defaults: radius 100 m, both directions, 20 m of hysteresis', () => {
    expect(addressEvaluator.settingsSchema.parse(point)).toEqual({
      ...point,
      latitude: CENTER.lat,
      longitude: CENTER.lon,
      radius: 100,
      mode: 'both',
      margin: 20,
    });
  });

  it.each([
    [{ latitude: '55.7' }, 'settings.latitude'],
    [{}, 'settings.address'],
    [{ ...point, radius: '50', margin: '50' }, 'settings.margin'],
    [{ ...point, latitude: '91' }, 'settings.latitude'],
    [{ ...point, mode: 'inside' }, 'settings.mode'],
  ])('refuses %j, naming %s', (settings, path) => {
    expect(ruleProblems({ type: 10, settings, geoids: [] }).map((problem) => problem.path)).toContain(path);
  });

  it('takes an address alone as a problem a geocoder can solve, and coordinates alone as complete', () => {
    expect(ruleProblems({ type: 10, settings: { address: 'Tverskaya 1' }, geoids: [] })).toEqual([
      expect.objectContaining({ path: 'settings.latitude', geocodable: true }),
    ]);
    expect(ruleProblems({ type: 10, settings: { latitude: '55.75', longitude: '37.62' }, geoids: [] })).toEqual([]);
  });
});

describe('arrival and departure', () => {
  it('records the first position silently, then reports departure and arrival with the address', () => {
    const trace = [northOf(0, 0), northOf(10, 90), northOf(20, 300), northOf(30, 500), northOf(40, 40)];
    const { events } = run(addressEvaluator, rule, trace);
    expect(kinds(events)).toEqual(['addressDeparture', 'addressArrival']);
    expect(times(events)).toEqual([at(20), at(40)]);
    expect(events[0]!.values).toMatchObject({ address: 'Tverskaya 1, Moscow', radius: 100 });
    expect(events[0]!.values.distance).toBeGreaterThan(290);
  });

  it('names the point by its coordinates when the rule has no address text', () => {
    const bare = compile(addressEvaluator, { latitude: point.latitude, longitude: point.longitude });
    const { events } = run(addressEvaluator, bare, [northOf(0, 0), northOf(10, 400)]);
    expect(events[0]!.values.address).toBe(`${CENTER.lat}, ${CENTER.lon}`);
  });

  it('honours the mode', () => {
    const trace = [northOf(0, 0), northOf(10, 400), northOf(20, 0)];
    expect(kinds(run(addressEvaluator, compile(addressEvaluator, { ...point, mode: 'entry' }), trace).events)).toEqual(['addressArrival']);
    expect(kinds(run(addressEvaluator, compile(addressEvaluator, { ...point, mode: 'exit' }), trace).events)).toEqual(['addressDeparture']);
  });

  test.prop([fc.array(fc.integer({ min: 81, max: 119 }), { minLength: 1, maxLength: 40 })])(
    'never flaps on GPS jitter within the margin around the circle',
    (distances) => {
      const fromInside = [northOf(0, 0), ...distances.map((north, i) => northOf(10 * (i + 1), north))];
      expect(run(addressEvaluator, rule, fromInside).events).toEqual([]);
      const fromOutside = [northOf(0, 500), ...distances.map((north, i) => northOf(10 * (i + 1), north))];
      expect(run(addressEvaluator, rule, fromOutside).events).toEqual([]);
    },
  );

  it('raises nothing again for a redelivered batch (state through JSON)', () => {
    const trace = [northOf(0, 0), northOf(10, 400), northOf(20, 400), northOf(10, 400), northOf(20, 400)];
    expect(kinds(run(addressEvaluator, rule, trace, { batches: [3, 2] }).events)).toEqual(['addressDeparture']);
  });
});
