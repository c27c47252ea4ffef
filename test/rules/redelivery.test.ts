import type { RuleType } from '../../shared/schemas/notification';
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { RULE_EVALUATORS } from '../../shared/rules/registry';
import type { RuleEvaluator } from '../../shared/rules/types';
import { CENTER, circleZone, message, offset, squareZone } from './fixtures';
import { compile, context, run } from './harness';

/** One rule of every type, all watching the parameters the generated messages carry. */
const settingsByType: Record<RuleType, Record<string, string>> = {
  0: { minDwell: '20' },
  2: { limit: '60', minDuration: '15', zoneLimits: '1:30' },
  4: { threshold: '15', settle: '60' },
  5: { threshold: '15', settle: '60' },
  6: {},
  7: { notifyRestored: 'true' },
  8: { parameter: 'din1', edge: 'both', minDuration: '10' },
  9: { parameter: 'ain1', min: '0', max: '5', minDuration: '20', hysteresis: '1' },
  10: { latitude: String(CENTER.lat), longitude: String(CENTER.lon), radius: '300' },
  11: { minutes: '2' },
  12: { interval: '300' },
  13: { minutes: '1', radius: '100', ignition: 'off', notifyEnd: 'true' },
  14: { minStop: '1', distance: '300', ignitionOff: 'true', confirmFixes: '2' },
  15: { hours: '0.1', restMinutes: '3', warnBefore: '2', minDriving: '30', maxGap: '90' },
  // every alarm on a parameter of the trace; a window long enough that no kind has more events than are remembered
  16: {
    powerParameter: 'din1',
    voltageParameter: 'ain1',
    minVoltage: '0',
    batteryParameter: 'fuel',
    minBattery: '5',
    tamperParameter: 'ignition',
    crashParameter: 'panic',
    harshParameter: 'fuel',
    repeatWindow: '900',
  },
};
const zones = [squareZone(1, 400), circleZone(2, 250, { center: offset(CENTER.lat, CENTER.lon, 900, 0) })];
const ctx = context(zones);

const step = fc.record({
  gap: fc.integer({ min: 1, max: 120 }),
  north: fc.integer({ min: -600, max: 1300 }),
  speed: fc.integer({ min: 0, max: 90 }),
  fuel: fc.integer({ min: 0, max: 100 }),
  pressed: fc.boolean(),
  din: fc.boolean(),
  ain: fc.integer({ min: -3, max: 9 }),
  ignition: fc.boolean(),
  mileageStep: fc.integer({ min: 0, max: 120 }),
});

type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

function trace(steps: Step[]) {
  let t = 0;
  let mileage = 1_000;
  let wasPressed = false;
  return steps.map((s) => {
    const p = offset(CENTER.lat, CENTER.lon, s.north, 0);
    // presses are rare and short, as real ones are
    const pressed = s.pressed && !wasPressed && s.fuel % 9 === 0;
    wasPressed = pressed;
    return message((t += s.gap), {
      latitude: p.lat,
      longitude: p.lon,
      speed: s.speed,
      parameters: {
        fuel: String(s.fuel),
        panic: pressed ? '1' : '0',
        din1: s.din ? '1' : '0',
        ain1: String(s.ain),
        ignition: s.ignition ? '1' : '0',
        mileage: String((mileage += s.mileageStep)),
      },
    });
  });
}

describe('redelivered and out-of-order messages', () => {
  const evaluators = Object.values(RULE_EVALUATORS) as RuleEvaluator[];

  test.prop(
    [
      fc.array(step, { minLength: 1, maxLength: 40 }),
      fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 15 }),
      fc.array(fc.integer({ min: 1, max: 8 }), { maxLength: 8 }),
    ],
    {
      numRuns: 150,
    },
  )('never add, lose or change an event, whichever evaluator', (steps, copies, batches) => {
    const ordered = trace(steps);
    // the panic evaluator remembers the last eight presses; older ones are out of a redelivery's reach
    fc.pre(ordered.filter((m) => m.parameters.panic === '1').length <= 8);
    // copies of earlier messages arrive again later (redelivery, or a terminal resending its buffer)
    const delivered = [...ordered];
    for (const [from, to] of copies) {
      const at = 1 + (to % delivered.length);
      delivered.splice(at, 0, delivered[from % at]!);
    }
    for (const evaluator of evaluators) {
      const rule = compile(evaluator, settingsByType[evaluator.type], { geoids: [1, 2] });
      const expected = run(evaluator, rule, ordered, { context: ctx }).events;
      expect(run(evaluator, rule, delivered, { context: ctx, batches }).events, `type ${evaluator.type}`).toEqual(expected);
    }
  });
});
