import { describe, expect, it } from 'vitest';
import { panicEvaluator } from '../../shared/rules/panic';
import { T0, message } from './fixtures';
import { compile, context, run, times } from './harness';

const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const button = (s: number, value: string | undefined) => message(s, { parameters: value === undefined ? {} : { panic: value } });

describe('panic', () => {
  const rule = compile(panicEvaluator, {});

  it('alerts on each press, not while held', () => {
    const trace = [button(0, '0'), button(10, '1'), button(20, '1'), button(30, undefined), button(40, '0'), button(50, 'true')];
    expect(times(run(panicEvaluator, rule, trace).events)).toEqual([at(10), at(50)]);
  });

  it('alerts on a press seen first', () => {
    expect(times(run(panicEvaluator, rule, [button(0, '1')]).events)).toEqual([at(0)]);
  });

  it('reads a configured parameter', () => {
    const custom = compile(panicEvaluator, { parameter: 'sos' });
    expect(run(panicEvaluator, custom, [message(0, { parameters: { sos: '1' } })]).events).toHaveLength(1);
    expect(run(panicEvaluator, custom, [button(0, '1')]).events).toEqual([]);
  });

  it('alerts for a late press that arrives after newer messages', () => {
    const trace = [button(0, '0'), button(1000, '0'), button(500, '1')];
    const { events } = run(panicEvaluator, rule, trace);
    expect(times(events)).toEqual([at(500)]);
    expect(events[0]!.values.late).toBe(true);
  });

  it('does not alert again for a late copy within the press already reported', () => {
    const trace = [button(10, '1'), button(20, '1'), button(10, '1'), button(15, '1')];
    expect(times(run(panicEvaluator, rule, trace).events)).toEqual([at(10)]);
  });

  it('does not alert again when messages of a press already reported arrive late', () => {
    const trace = [button(0, '0'), button(10, '1'), button(20, '1'), button(30, '0'), button(40, '0')];
    const redelivered = [...trace, button(20, '1'), button(10, '1'), button(25, '1')];
    expect(times(run(panicEvaluator, rule, redelivered, { batches: [4, 2] }).events)).toEqual([at(10)]);
  });

  it('raises one alert for a held press whose messages all arrive after the release, in any batches', () => {
    const trace = [button(0, '0'), button(400, '0'), button(30, '1'), button(10, '1'), button(20, '1'), button(200, '1')];
    for (const batches of [[], [3, 1, 1, 1], [2, 2, 2], [1, 1, 1, 1, 1, 1]]) {
      expect(times(run(panicEvaluator, rule, trace, { batches }).events)).toEqual([at(30)]);
    }
  });

  it('alerts again for a late press well apart from the late press already reported', () => {
    const trace = [button(0, '0'), button(2000, '0'), button(100, '1'), button(110, '1'), button(1000, '1')];
    expect(times(run(panicEvaluator, rule, trace).events)).toEqual([at(100), at(1000)]);
  });

  it('remembers only a few late presses', () => {
    const late = Array.from({ length: 20 }, (_, i) => button(1000 * (i + 1), '1'));
    const { state, events } = run(panicEvaluator, rule, [button(0, '0'), button(100_000, '0'), ...late]);
    expect(events).toHaveLength(20);
    expect(state!.latePresses).toHaveLength(8);
  });

  it('takes a late press just before a known one as the same press', () => {
    const trace = [button(100, '1'), button(110, '0'), button(50, '1')];
    expect(times(run(panicEvaluator, rule, trace).events)).toEqual([at(100)]);
  });

  it('gives a late copy of the press that alerted the same event, so its alert collapses', () => {
    const first = panicEvaluator.evaluate(rule, undefined, button(10, '1'), context()).events;
    const again = panicEvaluator.evaluateStale!(rule, undefined, button(10, '1'), context()).events;
    expect(again.map((e) => [e.kind, e.time])).toEqual(first.map((e) => [e.kind, e.time]));
  });

  it('remembers only a few presses', () => {
    const presses = Array.from({ length: 20 }, (_, i) => [button(1000 * i, '1'), button(1000 * i + 10, '0')]).flat();
    const { state, events } = run(panicEvaluator, rule, presses);
    expect(events).toHaveLength(20);
    expect(state!.presses).toHaveLength(8);
  });

  it('ignores late messages without a press', () => {
    expect(panicEvaluator.evaluateStale!(rule, undefined, button(0, '0'), context())).toEqual({ state: undefined, events: [] });
  });
});
