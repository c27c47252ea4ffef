import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { analogSensorEvaluator } from '../../shared/rules/analog-sensor';
import { discreteSensorEvaluator } from '../../shared/rules/discrete-sensor';
import { T0, message } from './fixtures';
import { compile, kinds, run, times } from './harness';

const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const reading = (key: string, values: (string | undefined)[], step = 10) =>
  values.map((value, i) => message(i * step, { parameters: value === undefined ? {} : { [key]: value } }));

describe('discrete sensor', () => {
  it('records the first value, then alerts on the chosen edge', () => {
    const trace = reading('door', ['1', '0', '1', '1', undefined, '0', 'on', 'off']);
    const on = compile(discreteSensorEvaluator, { parameter: 'door' });
    const off = compile(discreteSensorEvaluator, { parameter: 'door', edge: 'off' });
    const both = compile(discreteSensorEvaluator, { parameter: 'door', edge: 'both' });
    expect(times(run(discreteSensorEvaluator, on, trace).events)).toEqual([at(20), at(60)]);
    expect(times(run(discreteSensorEvaluator, off, trace).events)).toEqual([at(10), at(50), at(70)]);
    expect(kinds(run(discreteSensorEvaluator, both, trace).events)).toEqual(['sensorOff', 'sensorOn', 'sensorOff', 'sensorOn', 'sensorOff']);
  });

  it('debounces a chattering contact', () => {
    const rule = compile(discreteSensorEvaluator, { parameter: 'door', edge: 'both', minDuration: '25' });
    const trace = reading('door', ['0', '1', '0', '1', '0', '1', '1', '1', '1', '0']);
    const { events } = run(discreteSensorEvaluator, rule, trace);
    expect(times(events)).toEqual([at(80)]);
    expect(events[0]!.values).toMatchObject({ parameter: 'door', value: '1', since: at(50) });
  });

  it('ignores values that are not on or off', () => {
    const rule = compile(discreteSensorEvaluator, { parameter: 'door' });
    expect(run(discreteSensorEvaluator, rule, reading('door', ['0', 'open', '', '0'])).events).toEqual([]);
  });
});

describe('analog sensor', () => {
  it('requires a bound', () => {
    expect(analogSensorEvaluator.settingsSchema.safeParse({ parameter: 't' }).success).toBe(false);
    expect(analogSensorEvaluator.settingsSchema.safeParse({ parameter: 't', min: '5', max: '1' }).success).toBe(false);
    expect(analogSensorEvaluator.settingsSchema.parse({ max: '8' })).toMatchObject({ parameter: 'ain1', max: 8, mode: 'outside' });
  });

  it('alerts once per episode outside the range after the minimum duration', () => {
    const rule = compile(analogSensorEvaluator, { parameter: 'temp', min: '-20', max: '-15', minDuration: '20' });
    const trace = reading('temp', ['-18', '-12', '-11', '-10', '-9', '-17', '-12', '-18', '-11', '-10', '-10']);
    const { events } = run(analogSensorEvaluator, rule, trace);
    expect(times(events)).toEqual([at(30), at(100)]);
    expect(events[0]).toMatchObject({ kind: 'sensorOutOfRange', values: { parameter: 'temp', value: -10, min: -20, max: -15, since: at(10) } });
  });

  it('alerts inside the range in mode inside', () => {
    const rule = compile(analogSensorEvaluator, { parameter: 'p', min: '0', max: '1', mode: 'inside' });
    expect(kinds(run(analogSensorEvaluator, rule, reading('p', ['5', '0.5', '0.7', '3'])).events)).toEqual(['sensorInRange']);
  });

  it('does not flap around a bound with hysteresis', () => {
    const rule = compile(analogSensorEvaluator, { parameter: 'v', max: '100', hysteresis: '5' });
    const trace = reading('v', ['90', '101', '99', '102', '98', '101', '94', '101']);
    expect(times(run(analogSensorEvaluator, rule, trace).events)).toEqual([at(10), at(70)]);
    const flappy = compile(analogSensorEvaluator, { parameter: 'v', max: '100' });
    expect(run(analogSensorEvaluator, flappy, trace).events).toHaveLength(4);
  });

  test.prop([
    fc.array(fc.tuple(fc.integer({ min: 1, max: 60 }), fc.option(fc.integer({ min: -10, max: 10 }))), { minLength: 1, maxLength: 60 }),
    fc.array(fc.integer({ min: 1, max: 8 })),
  ])('sensors give the same events whether run at once or in batches through JSON', (steps, batches) => {
    let t = 0;
    const trace = steps.map(([gap, v]) => message((t += gap), { parameters: v === null ? {} : { s: String(v) } }));
    const analog = compile(analogSensorEvaluator, { parameter: 's', min: '-3', max: '3', minDuration: '30', hysteresis: '1' });
    const discrete = compile(discreteSensorEvaluator, { parameter: 's', edge: 'both', minDuration: '20' });
    expect(run(analogSensorEvaluator, analog, trace, { batches }).events).toEqual(run(analogSensorEvaluator, analog, trace).events);
    expect(run(discreteSensorEvaluator, discrete, trace, { batches }).events).toEqual(run(discreteSensorEvaluator, discrete, trace).events);
  });
});
