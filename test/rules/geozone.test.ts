import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { geozoneEvaluator } from '../../shared/rules/geozone';
import { CENTER, T0, circleZone, message, offset, squareZone } from './fixtures';
import { compile, context, kinds, run, times } from './harness';

const at = (s: number) => new Date(T0 + s * 1000).toISOString();
/** A message `north` metres from the centre of the 1 km square zone 1 (its border is at 500 m). */
const northOf = (seconds: number, north: number) => {
  const p = offset(CENTER.lat, CENTER.lon, north, 0);
  return message(seconds, { latitude: p.lat, longitude: p.lon });
};
const ctx = context([squareZone(1, 500, { name: 'depot' }), circleZone(2, 300, { center: offset(CENTER.lat, CENTER.lon, 2000, 0), name: 'port' })]);
const rule = compile(geozoneEvaluator, {}, { geoids: [1, 2] });

describe('geozone settings', () => {
  it('has documented defaults', () => {
    expect(geozoneEvaluator.settingsSchema.parse({})).toEqual({ mode: 'both', margin: 30, minDwell: 0 });
  });
  it('rejects an unknown mode', () => {
    expect(geozoneEvaluator.settingsSchema.safeParse({ mode: 'inside' }).success).toBe(false);
  });
});

describe('geozone entry and exit', () => {
  it('records the first position silently, then reports exit and entry', () => {
    const trace = [northOf(0, 0), northOf(10, 300), northOf(20, 700), northOf(30, 900), northOf(40, 200)];
    const { events } = run(geozoneEvaluator, rule, trace, { context: ctx });
    expect(kinds(events)).toEqual(['zoneExit', 'zoneEntry']);
    expect(times(events)).toEqual([at(20), at(40)]);
    expect(events[0]!.values).toMatchObject({ zoneId: 1, zoneName: 'depot', zoneIds: '1', zoneCount: 1 });
  });

  it('does not flap on GPS jitter along the border', () => {
    const jitter = [490, 510, 495, 520, 480, 505, 515, 492, 525, 488];
    const trace = [northOf(0, 0), ...jitter.map((north, i) => northOf(10 * (i + 1), north))];
    expect(run(geozoneEvaluator, rule, trace, { context: ctx }).events).toEqual([]);
    const fromOutside = [northOf(0, 900), ...jitter.map((north, i) => northOf(10 * (i + 1), north))];
    expect(run(geozoneEvaluator, rule, fromOutside, { context: ctx }).events).toEqual([]);
  });

  it('reports a crossing only beyond the margin', () => {
    const trace = [northOf(0, 900), northOf(10, 480), northOf(20, 460)];
    expect(times(run(geozoneEvaluator, rule, trace, { context: ctx }).events)).toEqual([at(20)]);
  });

  it('follows a reported exit until the vehicle is back, for every rule that reports exits', () => {
    const out = [northOf(0, 0), northOf(10, 300), northOf(20, 700), northOf(30, 900)];
    const back = [...out, northOf(40, 200)];
    const clearing = compile(geozoneEvaluator, { notifyCleared: 'true' }, { geoids: [1, 2] });
    const outside = run(geozoneEvaluator, clearing, out, { context: ctx }).state;
    expect(geozoneEvaluator.episode!(clearing, outside)).toEqual({ since: T0 + 20_000, kind: 'zoneExit' });
    expect(geozoneEvaluator.episode!(clearing, run(geozoneEvaluator, clearing, back, { context: ctx }).state)).toBeUndefined();
    const reminding = compile(geozoneEvaluator, { repeat: '10' }, { geoids: [1, 2] });
    expect(geozoneEvaluator.episode!(reminding, run(geozoneEvaluator, reminding, out, { context: ctx }).state)).toBeDefined();
    // a plain exit rule follows it too: a maintenance silence that held the exit back raises it when it ends
    expect(geozoneEvaluator.episode!(rule, run(geozoneEvaluator, rule, out, { context: ctx }).state)).toEqual({
      since: T0 + 20_000,
      kind: 'zoneExit',
    });
    // an entry-only rule keeps its state as small as before
    const entryOnly = compile(geozoneEvaluator, { mode: 'entry', notifyCleared: 'true' }, { geoids: [1, 2] });
    expect(run(geozoneEvaluator, entryOnly, out, { context: ctx }).state).toEqual({ zones: {} });
  });

  it('honours the mode', () => {
    const trace = [northOf(0, 0), northOf(10, 900), northOf(20, 0)];
    const entryOnly = compile(geozoneEvaluator, { mode: 'entry' }, { geoids: [1] });
    const exitOnly = compile(geozoneEvaluator, { mode: 'exit' }, { geoids: [1] });
    expect(kinds(run(geozoneEvaluator, entryOnly, trace, { context: ctx }).events)).toEqual(['zoneEntry']);
    expect(kinds(run(geozoneEvaluator, exitOnly, trace, { context: ctx }).events)).toEqual(['zoneExit']);
  });

  it('waits for the minimum dwell and reports when the crossing began', () => {
    const dwell = compile(geozoneEvaluator, { minDwell: '60' }, { geoids: [1] });
    const brief = [northOf(0, 900), northOf(10, 0), northOf(40, 0), northOf(50, 900), northOf(200, 900)];
    expect(run(geozoneEvaluator, dwell, brief, { context: ctx }).events).toEqual([]);
    const stay = [northOf(0, 900), northOf(10, 0), northOf(40, 0), northOf(70, 0), northOf(80, 0)];
    const { events } = run(geozoneEvaluator, dwell, stay, { context: ctx });
    expect(times(events)).toEqual([at(70)]);
    expect(events[0]!.values.since).toBe(at(10));
  });

  it('handles circles', () => {
    const port = (s: number, north: number) => {
      const p = offset(CENTER.lat, CENTER.lon, 2000 + north, 0);
      return message(s, { latitude: p.lat, longitude: p.lon });
    };
    const { events } = run(geozoneEvaluator, rule, [port(0, 1000), port(10, 0), port(20, 290), port(30, 320), port(40, 400)], { context: ctx });
    expect(kinds(events)).toEqual(['zoneEntry', 'zoneExit']);
    expect(events.map((e) => e.values.zoneName)).toEqual(['port', 'port']);
    expect(times(events)).toEqual([at(10), at(40)]);
  });

  it('names every zone entered with one message in a single event', () => {
    const nested = context([squareZone(1, 500, { name: 'depot' }), squareZone(3, 300, { name: 'yard' })]);
    const both = compile(geozoneEvaluator, {}, { geoids: [1, 3] });
    const { events } = run(geozoneEvaluator, both, [northOf(0, 900), northOf(10, 0)], { context: nested });
    expect(events).toHaveLength(1);
    expect(events[0]!.values).toMatchObject({ zoneIds: '1,3', zoneName: 'depot, yard', zoneCount: 2 });
  });

  it('forgets a zone removed from the rule without raising an exit', () => {
    const first = run(geozoneEvaluator, rule, [northOf(0, 0)], { context: ctx });
    const without = compile(geozoneEvaluator, {}, { geoids: [2] });
    const later = run(geozoneEvaluator, without, [northOf(10, 900)], { context: ctx, state: first.state });
    expect(later.events).toEqual([]);
    expect(later.state).toEqual({ zones: {} });
  });

  it('keeps the same state object while nothing changes', () => {
    const first = geozoneEvaluator.evaluate(rule, undefined, northOf(0, 0), ctx);
    const second = geozoneEvaluator.evaluate(rule, first.state, northOf(10, 10), ctx);
    expect(second.state).toBe(first.state);
  });

  it('raises nothing for a duplicated message', () => {
    const trace = [northOf(0, 0), northOf(10, 900), northOf(10, 900), northOf(20, 900)];
    expect(kinds(run(geozoneEvaluator, rule, trace, { context: ctx }).events)).toEqual(['zoneExit']);
  });

  const path = fc.array(fc.tuple(fc.integer({ min: 1, max: 90 }), fc.integer({ min: -100, max: 2400 })), { minLength: 1, maxLength: 50 });
  const toTrace = (steps: [number, number][]) => {
    let t = 0;
    return steps.map(([gap, north]) => northOf((t += gap), north));
  };
  const dwell = compile(geozoneEvaluator, { minDwell: '30' }, { geoids: [1, 2] });

  test.prop([path, fc.array(fc.integer({ min: 1, max: 8 }), { maxLength: 10 })])(
    'gives the same events whether run at once or in batches through JSON',
    (steps, batches) => {
      const trace = toTrace(steps);
      for (const r of [rule, dwell]) {
        expect(run(geozoneEvaluator, r, trace, { context: ctx, batches }).events).toEqual(run(geozoneEvaluator, r, trace, { context: ctx }).events);
      }
    },
  );

  test.prop([path])('alternates entries and exits of each zone', (steps) => {
    const { events } = run(geozoneEvaluator, rule, toTrace(steps), { context: ctx });
    for (const zoneId of [1, 2]) {
      const ofZone = events.filter((e) => String(e.values.zoneIds).split(',').includes(String(zoneId))).map((e) => e.kind);
      for (let i = 1; i < ofZone.length; i++) expect(ofZone[i]).not.toBe(ofZone[i - 1]);
    }
  });
});

describe('geozone rules with many zones', () => {
  // A large circle near the pole: its widest longitudes lie poleward of its centre, where a box drawn at the
  // centre's latitude would not reach. A rule with more than 16 zones looks zones up through the spatial index.
  const polar = circleZone(100, 300_000, { center: { lat: 80, lon: 20 } });
  const others = Array.from({ length: 16 }, (_, i) => squareZone(200 + i, 500, { center: { lat: -40, lon: -100 + i } }));
  const ctx = context([polar, ...others]);
  const few = compile(geozoneEvaluator, { margin: '0' }, { geoids: [100] });
  const many = compile(geozoneEvaluator, { margin: '0' }, { geoids: [100, ...others.map((zone) => zone.id)] });

  test.prop([
    fc.array(fc.tuple(fc.double({ min: 79.5, max: 81.5, noNaN: true }), fc.double({ min: 35.3, max: 35.9, noNaN: true })), {
      minLength: 1,
      maxLength: 30,
    }),
  ])('raise the same events with 1 zone or 17', (points) => {
    const trace = points.map(([lat, lon], i) => message(i * 10, { latitude: lat, longitude: lon }));
    expect(run(geozoneEvaluator, many, trace, { context: ctx }).events).toEqual(run(geozoneEvaluator, few, trace, { context: ctx }).events);
  });
});
