import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { idleEvaluator } from '../../shared/rules/idle';
import { maintenanceEvaluator } from '../../shared/rules/maintenance';
import { T0, message } from './fixtures';
import { compile, run, times } from './harness';

const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const sample = (s: number, speed: number, ignition: string | undefined) =>
  message(s, { speed, parameters: ignition === undefined ? {} : { ignition } });

describe('idle', () => {
  const rule = compile(idleEvaluator, { minutes: '10' });

  it('alerts once per episode of ignition on while standing', () => {
    const trace = [
      ...Array.from({ length: 15 }, (_, i) => sample(i * 60, 0, '1')), // alert at 600 s
      sample(15 * 60, 30, '1'), // drives off
      ...Array.from({ length: 12 }, (_, i) => sample(1000 + i * 60, 2, '1')), // alert at 1000 + 600
    ];
    const { events } = run(idleEvaluator, rule, trace);
    expect(times(events)).toEqual([at(600), at(1600)]);
    expect(events[0]!.values).toMatchObject({ idleMinutes: 10, since: at(0), minutes: 10 });
  });

  it('does not count time with the ignition off or unobserved', () => {
    const off = Array.from({ length: 20 }, (_, i) => sample(i * 60, 0, '0'));
    expect(run(idleEvaluator, rule, off).events).toEqual([]);
    const gap = [sample(0, 0, '1'), sample(60, 0, '1'), sample(4000, 0, '1'), sample(4100, 0, '1')];
    expect(run(idleEvaluator, rule, gap).events).toEqual([]);
  });

  it('keeps counting through readings without the ignition parameter', () => {
    const trace = [sample(0, 0, '1'), sample(300, 0, undefined), sample(660, 0, '1')];
    expect(times(run(idleEvaluator, rule, trace).events)).toEqual([at(660)]);
  });
});

describe('maintenance', () => {
  const km = (s: number, mileage: number) => message(s, { parameters: { mileage: String(mileage) } });

  it('has documented defaults per counter', () => {
    expect(maintenanceEvaluator.settingsSchema.parse({})).toEqual({
      counter: 'mileage',
      parameter: 'mileage',
      unit: 'km',
      interval: 10_000,
      base: 0,
    });
    expect(maintenanceEvaluator.settingsSchema.parse({ counter: 'engineHours' })).toEqual({
      counter: 'engineHours',
      parameter: 'engineHours',
      unit: 'h',
      interval: 250,
      base: 0,
    });
  });

  it('alerts once per threshold, confirmed by a second reading', () => {
    const rule = compile(maintenanceEvaluator, { interval: '10000', base: '5000' });
    const trace = [km(0, 14_000), km(10, 14_500), km(20, 15_100), km(30, 15_200), km(40, 16_000), km(50, 25_050), km(60, 25_060)];
    const { events } = run(maintenanceEvaluator, rule, trace);
    expect(times(events)).toEqual([at(30), at(60)]);
    expect(events.map((e) => e.values.threshold)).toEqual([15_000, 25_000]);
    expect(events[0]!.values).toMatchObject({ value: 15_200, unit: 'km', thresholdsPassed: 1 });
  });

  it('ignores one garbage reading and still sees the next real threshold', () => {
    const rule = compile(maintenanceEvaluator, {});
    const trace = [km(0, 9_000), km(10, 9_100), km(20, 999_999), km(30, 9_200), km(40, 10_100), km(50, 10_200)];
    expect(times(run(maintenanceEvaluator, rule, trace).events)).toEqual([at(50)]);
  });

  it('names the highest of several thresholds passed at once, and follows a counter reset silently', () => {
    const rule = compile(maintenanceEvaluator, {});
    const trace = [km(0, 9_000), km(10, 9_000), km(20, 31_000), km(30, 31_000), km(40, 100), km(50, 100), km(60, 10_001), km(70, 10_002)];
    const { events } = run(maintenanceEvaluator, rule, trace);
    expect(events.map((e) => [e.time, e.values.threshold, e.values.thresholdsPassed])).toEqual([
      [at(30), 30_000, 3],
      [at(70), 10_000, 1],
    ]);
  });

  test.prop([
    fc.array(fc.tuple(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 0, max: 3_000 })), { minLength: 1, maxLength: 60 }),
    fc.array(fc.integer({ min: 1, max: 8 })),
  ])('idle and maintenance give the same events whether run at once or in batches through JSON', (steps, batches) => {
    let t = 0;
    let total = 0;
    const trace = steps.map(([gap, step]) =>
      message((t += gap * 10), { speed: step % 7, parameters: { ignition: String(step % 3 ? 1 : 0), mileage: String((total += step)) } }),
    );
    const idle = compile(idleEvaluator, { minutes: '2' });
    const service = compile(maintenanceEvaluator, { interval: '5000' });
    expect(run(idleEvaluator, idle, trace, { batches }).events).toEqual(run(idleEvaluator, idle, trace).events);
    expect(run(maintenanceEvaluator, service, trace, { batches }).events).toEqual(run(maintenanceEvaluator, service, trace).events);
  });
});
