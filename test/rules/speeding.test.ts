import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { speedingEvaluator } from '../../shared/rules/speeding';
import { message, squareZone, T0 } from './fixtures';
import { compile, context, run, times } from './harness';

const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const drive = (points: [seconds: number, speed: number][]) => points.map(([s, speed]) => message(s, { speed }));

describe('speeding settings', () => {
  it('has documented defaults', () => {
    expect(speedingEvaluator.settingsSchema.parse({})).toMatchObject({
      limit: 90,
      minDuration: 10,
      endMargin: 5,
      endDuration: 30,
      maxGap: 300,
      zoneLimits: [],
    });
  });
  it('parses zone limits', () => {
    expect(speedingEvaluator.settingsSchema.parse({ zoneLimits: '12:50, 14:30.5' }).zoneLimits).toEqual([
      { zoneId: 12, limit: 50 },
      { zoneId: 14, limit: 30.5 },
    ]);
  });
  it.each([{ limit: 'fast' }, { limit: '0' }, { zoneLimits: '12-50' }, { minDuration: '-1' }])('rejects %o', (settings) => {
    expect(speedingEvaluator.settingsSchema.safeParse(settings).success).toBe(false);
  });
});

describe('speeding', () => {
  const rule = compile(speedingEvaluator, { limit: '90', minDuration: '10' });

  it('alerts once the speed has stayed above the limit for the minimum duration', () => {
    const { events } = run(
      speedingEvaluator,
      rule,
      drive([
        [0, 80],
        [10, 95],
        [15, 110],
        [20, 100],
        [30, 105],
      ]),
    );
    expect(times(events)).toEqual([at(20)]);
    expect(events[0]).toMatchObject({ kind: 'speeding', speed: 100, values: { limit: 90, maxSpeed: 110, since: at(10), durationSeconds: 10 } });
  });

  it('ignores a short spike', () => {
    expect(
      run(
        speedingEvaluator,
        rule,
        drive([
          [0, 95],
          [5, 120],
          [8, 80],
          [30, 85],
        ]),
      ).events,
    ).toEqual([]);
  });

  it('raises one alert per episode and starts a new one after slowing down for endDuration', () => {
    const trace = drive([
      [0, 100],
      [10, 100], // alert at 10
      [20, 88],
      [30, 100], // dips under the limit but not below limit - endMargin: same episode
      [40, 80],
      [60, 80], // below 85 for 20 s: still the same episode
      [70, 100],
      [80, 100], // ... so no new alert here
      [90, 70],
      [125, 70], // below for 35 s: episode over
      [130, 100],
      [140, 100], // new episode: alert at 140
    ]);
    expect(times(run(speedingEvaluator, rule, trace).events)).toEqual([at(10), at(140)]);
  });

  it('does not carry an episode across a long silence', () => {
    const trace = drive([
      [0, 100],
      [10, 100],
      [1000, 100],
      [1010, 100],
    ]);
    expect(times(run(speedingEvaluator, rule, trace).events)).toEqual([at(10), at(1010)]);
  });

  it('does not count unobserved time toward the minimum duration', () => {
    expect(
      run(
        speedingEvaluator,
        rule,
        drive([
          [0, 100],
          [400, 100],
        ]),
      ).events,
    ).toEqual([]);
  });

  it('alerts on the first message above the limit when minDuration is 0', () => {
    const instant = compile(speedingEvaluator, { limit: '60', minDuration: '0' });
    expect(
      times(
        run(
          speedingEvaluator,
          instant,
          drive([
            [0, 50],
            [5, 61],
            [10, 70],
          ]),
        ).events,
      ),
    ).toEqual([at(5)]);
  });

  it('applies the lowest zone limit inside zones', () => {
    const zoned = compile(speedingEvaluator, { limit: '90', minDuration: '0', zoneLimits: '7:40,8:60' });
    const ctx = context([squareZone(7, 300, { name: 'school' }), squareZone(8, 1000)]);
    const { events } = run(speedingEvaluator, zoned, [message(0, { speed: 50 })], { context: ctx });
    expect(events).toHaveLength(1);
    expect(events[0]!.values).toMatchObject({ limit: 40, zoneId: 7, zoneName: 'school' });
    const outside = run(speedingEvaluator, zoned, [message(0, { speed: 80, latitude: 10, longitude: 10 })], { context: ctx });
    expect(outside.events).toEqual([]);
  });

  it('keeps no state while under the limit', () => {
    expect(
      run(
        speedingEvaluator,
        rule,
        drive([
          [0, 50],
          [10, 60],
        ]),
      ).state,
    ).toBeUndefined();
  });

  it('raises nothing new when the same message arrives twice', () => {
    const trace = drive([
      [0, 100],
      [10, 100],
      [10, 100],
      [20, 100],
    ]);
    expect(times(run(speedingEvaluator, rule, trace).events)).toEqual([at(10)]);
  });

  const speeds = fc.array(fc.tuple(fc.integer({ min: 1, max: 120 }), fc.integer({ min: 0, max: 140 })), { minLength: 1, maxLength: 60 });
  const toTrace = (steps: [number, number][]) => {
    let t = 0;
    return steps.map(([gap, speed]) => message((t += gap), { speed }));
  };

  test.prop([speeds, fc.array(fc.integer({ min: 1, max: 10 }), { maxLength: 10 })])(
    'gives the same events whether run at once or in batches through JSON',
    (steps, batches) => {
      const trace = toTrace(steps);
      expect(run(speedingEvaluator, rule, trace, { batches }).events).toEqual(run(speedingEvaluator, rule, trace).events);
    },
  );

  test.prop([speeds])('never raises two alerts within one continuous episode above the limit', (steps) => {
    const trace = toTrace(steps.map(([gap, speed]) => [Math.min(gap, 20), Math.max(speed, 91)]));
    expect(run(speedingEvaluator, rule, trace).events.length).toBeLessThanOrEqual(1);
  });
});

describe('speeding settings that would mean two things', () => {
  it('refuses a zone given two limits, a zone limit not above endMargin, and limits beyond 1–1000', () => {
    const issues = (settings: Record<string, string>) => {
      const parsed = speedingEvaluator.settingsSchema.safeParse(settings);
      return parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    };
    expect(issues({ zoneLimits: '12:50,12:30' })).toEqual(['zoneLimits: zone 12 is given more than one limit']);
    expect(issues({ zoneLimits: '12:0' })).toEqual([expect.stringMatching(/^zoneLimits: /)]);
    expect(issues({ zoneLimits: '12:6', endMargin: '6' })).toEqual([expect.stringMatching(/^endMargin: .*zone limit/)]);
    expect(issues({ zoneLimits: '12:5000' })).toEqual([expect.stringMatching(/^zoneLimits: /)]);
    expect(issues({ zoneLimits: '12:50, 14:30' })).toEqual([]);
  });
});
