import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { drainEvaluator, fuellingEvaluator } from '../../shared/rules/fuel-change';
import { T0, message } from './fixtures';
import { compile, context, kinds, run, times } from './harness';

const at = (s: number) => new Date(T0 + s * 1000).toISOString();
/** One reading per 30 s; `levels` in litres, speed 0 unless given. */
const readings = (levels: number[], speeds: number[] = [], start = 0) =>
  levels.map((level, i) => message(start + i * 30, { speed: speeds[i] ?? 0, parameters: { fuel: String(level) } }));
const steady = (level: number, count: number) => Array.from({ length: count }, () => level);

describe('fuel settings', () => {
  it('has documented defaults', () => {
    expect(drainEvaluator.settingsSchema.parse({})).toEqual({
      parameter: 'fuel',
      threshold: 10,
      window: 5,
      parkedSpeed: 5,
      onlyParked: true,
      referenceWindow: 900,
      settle: 120,
    });
  });
  it('rejects an even window', () => {
    expect(drainEvaluator.settingsSchema.safeParse({ window: '4' }).success).toBe(false);
  });
});

describe('drain', () => {
  const rule = compile(drainEvaluator, {});

  it('reports a drain once, with its full volume, after the level settles', () => {
    const levels = [...steady(100, 8), 95, 88, 80, 72, 70, ...steady(70, 12)];
    const { events } = run(drainEvaluator, rule, readings(levels));
    expect(kinds(events)).toEqual(['drain']);
    expect(events[0]!.values).toMatchObject({ before: 100, after: 70, volume: 30, parameter: 'fuel' });
  });

  it('ignores spikes and tilting shorter than half the filter window', () => {
    const levels = [...steady(100, 6), 60, 100, 100, 55, 58, 100, 100, 100, 40, 100, ...steady(100, 8)];
    expect(run(drainEvaluator, rule, readings(levels)).events).toEqual([]);
  });

  it('ignores noise around a steady level', () => {
    const levels = Array.from({ length: 60 }, (_, i) => 100 + ((i * 7) % 9) - 4);
    expect(run(drainEvaluator, rule, readings(levels)).events).toEqual([]);
  });

  it('ignores consumption while driving and slow consumption while idling', () => {
    const driving = readings(
      Array.from({ length: 60 }, (_, i) => 100 - i),
      Array.from({ length: 60 }, () => 60),
    );
    expect(run(drainEvaluator, rule, driving).events).toEqual([]);
    // 2 litres per hour with the engine idling: 30 litres over 15 hours
    const idling = Array.from({ length: 60 * 15 }, (_, i) => message(i * 60, { parameters: { fuel: String(100 - i / 30) } }));
    expect(run(drainEvaluator, rule, idling).events).toEqual([]);
  });

  it('can watch drains while driving too', () => {
    const any = compile(drainEvaluator, { onlyParked: 'false' });
    const levels = [...steady(100, 8), 60, 60, 60, ...steady(60, 8)];
    expect(kinds(run(drainEvaluator, any, readings(levels, steady(70, 30))).events)).toEqual(['drain']);
  });

  it('reports at once when the vehicle drives off during a drain', () => {
    const levels = [...steady(100, 6), 80, 80, 80, 80];
    const speeds = [...steady(0, 9), 40];
    const { events } = run(drainEvaluator, rule, readings(levels, speeds));
    expect(times(events)).toEqual([at(9 * 30)]);
  });

  it('does not report a drop that comes back before settling', () => {
    const levels = [...steady(100, 6), 80, 80, 80, 100, 100, 100, ...steady(100, 10)];
    expect(run(drainEvaluator, rule, readings(levels)).events).toEqual([]);
  });

  it('sees a drain that happened while the terminal was silent', () => {
    const before = readings(steady(100, 6));
    const after = readings(steady(60, 10), [], 6 * 3600);
    expect(kinds(run(drainEvaluator, rule, [...before, ...after]).events)).toEqual(['drain']);
  });

  it('changes nothing for messages without the parameter', () => {
    const first = run(drainEvaluator, rule, readings(steady(100, 6)));
    const next = drainEvaluator.evaluate(rule, first.state, message(1000), context());
    expect(next.state).toBe(first.state);
  });
});

describe('fuelling', () => {
  const rule = compile(fuellingEvaluator, { threshold: '20' });

  it('reports a fuelling with its volume', () => {
    const levels = [...steady(30, 6), 50, 80, 110, 140, 150, ...steady(150, 10)];
    const { events } = run(fuellingEvaluator, rule, readings(levels));
    expect(kinds(events)).toEqual(['fuelling']);
    expect(events[0]!.values).toMatchObject({ before: 30, after: 150, volume: 120 });
  });

  it('does not fire on a drain', () => {
    expect(run(fuellingEvaluator, rule, readings([...steady(100, 6), ...steady(50, 10)])).events).toEqual([]);
  });
});

describe('fuel evaluators restart from JSON', () => {
  const step = fc.record({ gap: fc.integer({ min: 5, max: 400 }), level: fc.integer({ min: 0, max: 200 }), speed: fc.constantFrom(0, 0, 0, 30) });
  test.prop([fc.array(step, { minLength: 1, maxLength: 80 }), fc.array(fc.integer({ min: 1, max: 10 }), { maxLength: 10 })])(
    'same events whether run at once or in batches',
    (steps, batches) => {
      let t = 0;
      const trace = steps.map(({ gap, level, speed }) => message((t += gap), { speed, parameters: { fuel: String(level) } }));
      for (const evaluator of [drainEvaluator, fuellingEvaluator]) {
        const rule = compile(evaluator, {});
        expect(run(evaluator, rule, trace, { batches }).events).toEqual(run(evaluator, rule, trace).events);
      }
    },
  );
});
