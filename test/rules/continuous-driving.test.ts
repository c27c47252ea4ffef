import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { continuousDrivingEvaluator } from '../../shared/rules/continuous-driving';
import { settingsProblems } from '../../shared/rules/rule-validation';
import type { TerminalMessage } from '../../shared/schemas/terminal-message';
import { T0, message } from './fixtures';
import { compile, kinds, run, times } from './harness';

const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const MIN = 60;

/** One message every `step` seconds from `from` (inclusive) to `to` (exclusive), at `speed`. */
function stretch(from: number, to: number, speed: number, step = MIN): TerminalMessage[] {
  const messages: TerminalMessage[] = [];
  for (let s = from; s < to; s += step) messages.push(message(s, { speed }));
  return messages;
}

/** A trace of stretches laid end to end: [minutes, speed] each; returns the messages and where each stretch starts. */
function plan(stretches: [minutes: number, speed: number][], step = MIN): TerminalMessage[] {
  let start = 0;
  const messages: TerminalMessage[] = [];
  for (const [minutes, speed] of stretches) {
    messages.push(...stretch(start, start + minutes * MIN, speed, step));
    start += minutes * MIN;
  }
  return [...messages, message(start, { speed: 0 })];
}

/** One hour of driving, a 15-minute rest in one piece, a warning 10 minutes ahead, 1 minute of driving to end a rest. */
const SETTINGS = { hours: '1', restMinutes: '15', warnBefore: '10', minDriving: '60', maxGap: '300' };
const rule = compile(continuousDrivingEvaluator, SETTINGS);
const limitEvents = (messages: TerminalMessage[], r = rule) =>
  run(continuousDrivingEvaluator, r, messages).events.filter((e) => e.kind === 'drivingLimit');

describe('continuous driving', () => {
  it('warns warnBefore minutes ahead and alerts at the limit, once each per driving period', () => {
    const { events } = run(continuousDrivingEvaluator, rule, stretch(0, 90 * MIN, 60));
    expect(kinds(events)).toEqual(['drivingLimitNear', 'drivingLimit']);
    expect(times(events)).toEqual([at(50 * MIN), at(60 * MIN)]);
    expect(events[0]!.values).toMatchObject({ drivingMinutes: 50, minutesLeft: 10, hours: 1, since: at(0) });
    expect(events[1]!.values).toMatchObject({ drivingMinutes: 60, hours: 1, restMinutes: 15, since: at(0) });
  });

  it('has the documented defaults: 4.5 h, a 45-minute rest, above 5 km/h, no warning', () => {
    const defaults = compile(continuousDrivingEvaluator, {});
    const trace = [...stretch(0, 5 * 60 * MIN, 6, 5 * MIN)];
    const { events } = run(continuousDrivingEvaluator, defaults, trace);
    expect(kinds(events)).toEqual(['drivingLimit']);
    expect(times(events)).toEqual([at(4.5 * 60 * MIN)]);
    expect(run(continuousDrivingEvaluator, defaults, stretch(0, 5 * 60 * MIN, 5, 5 * MIN)).events).toEqual([]);
  });

  it('starts afresh after one rest of restMinutes, but not after a rest in several shorter parts', () => {
    // 40 + 10 + 15 = 65 minutes of driving, with 10-minute rests between: the limit is reached 10 minutes into the last part
    const split = plan([
      [40, 60],
      [10, 0],
      [10, 60],
      [10, 0],
      [15, 60],
    ]);
    expect(times(limitEvents(split))).toEqual([at((40 + 10 + 10 + 10 + 10) * MIN)]);
    const whole = plan([
      [40, 60],
      [15, 0],
      [10, 60],
      [10, 0],
      [15, 60],
    ]);
    expect(limitEvents(whole)).toEqual([]);
  });

  it('alerts again in the next driving period after a full rest', () => {
    const trace = plan([
      [70, 60],
      [20, 0],
      [70, 60],
    ]);
    expect(times(limitEvents(trace))).toEqual([at(60 * MIN), at((70 + 20 + 60) * MIN)]);
  });

  it('does not let GPS noise during a rest cut it in two', () => {
    // 50 minutes driving, then a 16-minute stop with one reading of 12 km/h in the middle (30 s of "driving")
    const trace = [
      ...stretch(0, 50 * MIN, 60, 30),
      ...stretch(50 * MIN, 58 * MIN, 0, 30),
      message(58 * MIN, { speed: 12 }),
      ...stretch(58 * MIN + 30, 66 * MIN, 2, 30),
      ...stretch(66 * MIN, 90 * MIN, 60, 30),
    ];
    expect(limitEvents(trace)).toEqual([]);
    // counted as driving, the blip would have split the rest and the limit would have come 10 minutes into the drive
    const strict = compile(continuousDrivingEvaluator, { ...SETTINGS, minDriving: '0' });
    expect(times(limitEvents(trace, strict))).toEqual([at(66 * MIN + 9.5 * MIN)]);
  });

  it('counts a silence as driving only up to maxGap, and the rest of a long one as a rest', () => {
    // driving until 49 min, then the next message `gapMinutes` later, then driving on
    const withGap = (gapMinutes: number, after: number) => [
      ...stretch(0, 50 * MIN, 60),
      ...stretch((49 + gapMinutes) * MIN, (49 + gapMinutes + after) * MIN, 60),
    ];
    // a 4-minute gap while driving is driving: 49 + 4 + 7 = 60 minutes, 7 minutes after it
    expect(times(limitEvents(withGap(4, 10)))).toEqual([at((49 + 4 + 7) * MIN)]);
    // a 14-minute gap counts 5 minutes (maxGap) as driving and 9 as a rest (too short to reset): 49 + 5 + 6 = 60
    expect(times(limitEvents(withGap(14, 10)))).toEqual([at((49 + 14 + 6) * MIN)]);
    // a 2-hour silence is a full rest: the 40 minutes after it start a new period
    expect(limitEvents(withGap(120, 40))).toEqual([]);
  });

  it('judges the limit only once the time since the previous message is counted: a silence that ends in a full rest raises nothing', () => {
    // 58 minutes of driving, then a 30-minute silence: 5 minutes of it would pass the limit, but the rest of it is a full rest
    const trace = [...stretch(0, 59 * MIN, 60), message(89 * MIN, { speed: 60 })];
    expect(limitEvents(trace)).toEqual([]);
  });

  it('ignores late, duplicated and reordered messages: one warning and one alert, each at most one message late', () => {
    const ordered = stretch(0, 90 * MIN, 60);
    const expected = times(run(continuousDrivingEvaluator, rule, ordered).events);
    expect(expected).toEqual([at(50 * MIN), at(60 * MIN)]);
    // every message sent twice, and every fourth one overtaken by its successor
    const delivered: TerminalMessage[] = [];
    for (let i = 0; i < ordered.length; i++) {
      if (i % 4 === 1 && i + 1 < ordered.length) delivered.push(ordered[i + 1]!, ordered[i]!, ordered[i + 1]!, ordered[i]!);
      else if (i % 4 !== 2) delivered.push(ordered[i]!, ordered[i]!);
    }
    const { events } = run(continuousDrivingEvaluator, rule, delivered);
    expect(kinds(events)).toEqual(['drivingLimitNear', 'drivingLimit']);
    events.forEach((event, index) => {
      const lateness = Date.parse(event.time) - Date.parse(expected[index]!);
      expect(lateness).toBeGreaterThanOrEqual(0);
      expect(lateness).toBeLessThanOrEqual(MIN * 1000);
    });
  });

  it('does not take a late message showing the vehicle standing for a rest', () => {
    const trace = [...stretch(0, 30 * MIN, 60), message(28.5 * MIN, { speed: 0 }), ...stretch(30 * MIN, 70 * MIN, 60)];
    expect(times(limitEvents(trace))).toEqual([at(60 * MIN)]);
  });

  it('refuses a warning at or beyond the limit, naming warnBefore', () => {
    expect(settingsProblems(15, { hours: '1', warnBefore: '60' }).map((problem) => problem.path)).toEqual(['settings.warnBefore']);
    expect(settingsProblems(15, { hours: '1', warnBefore: '59' })).toEqual([]);
    expect(settingsProblems(15, { hours: '0' }).map((problem) => problem.path)).toEqual(['settings.hours']);
  });

  const step = fc.record({ gap: fc.integer({ min: 1, max: 1_200 }), speed: fc.constantFrom(0, 3, 8, 40, 90) });
  const traceOf = (steps: { gap: number; speed: number }[]) => {
    let t = 0;
    return steps.map(({ gap, speed }) => message((t += gap), { speed }));
  };
  const short = compile(continuousDrivingEvaluator, { hours: '0.2', restMinutes: '5', warnBefore: '3', minDriving: '30', maxGap: '120' });

  test.prop([fc.array(step, { minLength: 1, maxLength: 80 }), fc.array(fc.integer({ min: 1, max: 10 }), { maxLength: 10 })])(
    'gives the same events when restarted mid-episode, its state stored as JSON between messages',
    (steps, batches) => {
      const trace = traceOf(steps);
      expect(run(continuousDrivingEvaluator, short, trace, { batches }).events).toEqual(run(continuousDrivingEvaluator, short, trace).events);
    },
  );

  test.prop([fc.array(step, { minLength: 1, maxLength: 80 })])('never alerts before the time counted as driving reaches the limit', (steps) => {
    const trace = traceOf(steps);
    const { events } = run(continuousDrivingEvaluator, short, trace);
    // an upper bound of the counter: every gap after a message above 5 km/h, at most maxGap, however rests fall
    let driving = 0;
    const alertsAt = new Set(times(events.filter((event) => event.kind === 'drivingLimit')));
    trace.forEach((current, i) => {
      if (i > 0 && trace[i - 1]!.speed > 5) driving += Math.min(Date.parse(current.deviceTime) - Date.parse(trace[i - 1]!.deviceTime), 120_000);
      if (alertsAt.has(current.deviceTime)) expect(driving).toBeGreaterThanOrEqual(0.2 * 3_600_000);
    });
  });
});
