import { describe, expect, it } from 'vitest';
import type { TerminalMessage } from '../../shared/schemas/terminal-message';
import { analogSensorEvaluator } from '../../shared/rules/analog-sensor';
import { idleEvaluator } from '../../shared/rules/idle';
import { parkingEvaluator } from '../../shared/rules/parking';
import { speedingEvaluator } from '../../shared/rules/speeding';
import type { CompiledRule, RuleEvaluator } from '../../shared/rules/types';
import { message } from './fixtures';
import { compile, context } from './harness';

/** The seconds of the messages that ended an episode short of its minimum duration, as the evaluate shell asks. */
function cutShortAt<S, St>(evaluator: RuleEvaluator<S, St>, rule: CompiledRule<S>, messages: TerminalMessage[]): number[] {
  const ctx = context();
  let state: St | undefined;
  const ended: number[] = [];
  for (const current of messages) {
    const before = state;
    state = evaluator.evaluate(rule, before, current, ctx).state;
    if (before !== undefined && evaluator.cutShort!(rule, before, state))
      ended.push((Date.parse(current.deviceTime) - Date.parse(messages[0]!.deviceTime)) / 1000);
  }
  return ended;
}

describe('episodes cut short of their minimum duration', () => {
  it('speeding: an episode that slows down, or breaks off, before minDuration; never an alerted one', () => {
    const rule = compile(speedingEvaluator, { limit: '90', minDuration: '60', endDuration: '0', maxGap: '100' });
    const trace = [
      message(0, { speed: 120 }),
      message(30, { speed: 40 }),
      message(40, { speed: 120 }),
      // a silence over maxGap: the old episode is over, a new one starts
      message(200, { speed: 120 }),
      message(270, { speed: 120 }),
      message(280, { speed: 40 }),
    ];
    expect(cutShortAt(speedingEvaluator, rule, trace)).toEqual([30, 200]);
  });

  it('idle: ignition off or moving before the minutes are up', () => {
    const rule = compile(idleEvaluator, { minutes: '5' });
    const idling = (second: number) => message(second, { speed: 0, parameters: { ignition: '1' } });
    const trace = [
      idling(0),
      idling(60),
      message(120, { speed: 30, parameters: { ignition: '1' } }),
      idling(180),
      idling(600),
      message(660, { speed: 30 }),
    ];
    expect(cutShortAt(idleEvaluator, rule, trace)).toEqual([120]);
  });

  it('parking: driving off (two fixes away) before the minutes are up', () => {
    const rule = compile(parkingEvaluator, { minutes: '5' });
    const trace = [
      message(0),
      message(60),
      message(120, { speed: 40, latitude: 55.76 }),
      message(180, { latitude: 55.77 }),
      message(600, { latitude: 55.77 }),
    ];
    expect(cutShortAt(parkingEvaluator, rule, trace)).toEqual([180]);
  });

  it('analog sensor: back in range before minDuration', () => {
    const rule = compile(analogSensorEvaluator, { parameter: 'ain1', max: '100', minDuration: '60' });
    const reading = (second: number, value: number) => message(second, { parameters: { ain1: String(value) } });
    const trace = [reading(0, 50), reading(10, 150), reading(40, 50), reading(50, 150), reading(120, 150), reading(130, 50)];
    expect(cutShortAt(analogSensorEvaluator, rule, trace)).toEqual([40]);
  });
});
