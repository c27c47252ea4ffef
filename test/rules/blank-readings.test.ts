import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { RULE_EVALUATORS } from '../../shared/rules/registry';
import { SETTINGS_REFERENCE } from '../../shared/rules/settings-reference';
import type { RuleType } from '../../shared/schemas/notification';
import type { TerminalMessage } from '../../shared/schemas/terminal-message';
import { message, squareZone } from './fixtures';
import { compile, context, run } from './harness';

/**
 * A reading that is blank or not a decimal number must change nothing: every rule type, fed a trace in which
 * some readings are replaced by such text, must raise exactly what it raises when those readings are left out.
 */

const PARAMETERS = ['fuel', 'panic', 'din1', 'ain1', 'ignition', 'mileage', 'engineHours'] as const;

/** Settings per type that make every type read parameters in ranges the generated readings cross. */
const SETTINGS: Record<RuleType, Record<string, string>> = {
  0: {},
  2: { minDuration: '0' },
  4: { window: '1', settle: '0', threshold: '5' },
  5: { window: '1', settle: '0', threshold: '5' },
  6: {},
  7: { minutes: '1', notifyRestored: 'true' },
  8: { edge: 'both' },
  9: { min: '2', max: '8' },
  10: { latitude: '55.75', longitude: '37.62', radius: '500' },
  11: { minutes: '1', maxGap: '600' },
  12: { interval: '10' },
  13: { minutes: '1', maxSpeed: '10', ignition: 'off', notifyEnd: 'true' },
  14: { minStop: '1', distance: '10', maxSpeed: '10', ignitionOff: 'true' },
  15: { hours: '0.02', restMinutes: '2', warnBefore: '0.5', minDriving: '20', maxSpeed: '8' },
  16: {
    powerParameter: 'din1',
    voltageParameter: 'ain1',
    minVoltage: '8',
    batteryParameter: 'fuel',
    minBattery: '10',
    tamperParameter: 'ignition',
    jammingParameter: 'panic',
    harshParameter: 'mileage',
    crashParameter: 'engineHours',
    repeatWindow: '30',
  },
};

const garbage = fc.constantFrom(' ', '  ', '\t', '', 'abc', '0x10', '0b1', 'Infinity', '-Infinity', 'NaN', '1,5', '--1', '.', 'e5', '+', ' - ');

const reading = fc.record({
  seconds: fc.integer({ min: 1, max: 120 }),
  speed: fc.integer({ min: 0, max: 20 }),
  values: fc.record(
    Object.fromEntries(PARAMETERS.map((key) => [key, fc.integer({ min: 0, max: 40 })])) as Record<(typeof PARAMETERS)[number], fc.Arbitrary<number>>,
  ),
  /** Which readings of this message are spoiled, and with what. */
  spoiled: fc.array(fc.tuple(fc.constantFrom(...PARAMETERS), garbage), { maxLength: 4 }),
});

interface Step {
  seconds: number;
  speed: number;
  values: Record<string, number>;
  spoiled: [string, string][];
}

function traces(steps: readonly Step[]) {
  let time = 0;
  const spoiled: TerminalMessage[] = [];
  const omitted: TerminalMessage[] = [];
  for (const step of steps) {
    time += step.seconds;
    const parameters = Object.fromEntries(
      Object.entries(step.values).map(([key, value]) => [key, String(key === 'panic' || key === 'din1' || key === 'ignition' ? value % 2 : value)]),
    );
    const withGarbage = { ...parameters };
    const without = { ...parameters };
    for (const [key, text] of step.spoiled) {
      withGarbage[key] = text;
      delete without[key];
    }
    spoiled.push(message(time, { speed: step.speed, parameters: withGarbage }));
    omitted.push(message(time, { speed: step.speed, parameters: without }));
  }
  return { spoiled, omitted };
}

describe('blank and non-numeric readings', () => {
  const zones = [squareZone(1, 500)];
  const types = Object.keys(SETTINGS_REFERENCE).map(Number) as RuleType[];

  test.prop([fc.constantFrom(...types), fc.array(reading, { minLength: 1, maxLength: 40 })])(
    'are absent for every rule type: the same events and state as without them',
    (type, steps) => {
      const evaluator = RULE_EVALUATORS[type];
      const rule = compile(evaluator, SETTINGS[type], { geoids: type === 0 ? [1] : [] });
      const { spoiled, omitted } = traces(steps);
      const ctx = context(zones);
      expect(run(evaluator, rule, spoiled, { context: ctx })).toEqual(run(evaluator, rule, omitted, { context: ctx }));
    },
  );

  test.prop([fc.constantFrom(' ', '\t', '  ')])('do not enter a 2–8 analog range as 0 nor lower a maintenance counter', (blank) => {
    const analog = RULE_EVALUATORS[9];
    const analogRule = compile(analog, { min: '2', max: '8' });
    expect(run(analog, analogRule, [message(1, { parameters: { ain1: '5' } }), message(2, { parameters: { ain1: blank } })]).events).toEqual([]);
    const maintenance = RULE_EVALUATORS[12];
    const counter = compile(maintenance, { interval: '100' });
    const trace = [120, 120, 0, 0, 150, 150, 210, 210].map((km, i) => message(i + 1, { parameters: { mileage: km === 0 ? blank : String(km) } }));
    expect(run(maintenance, counter, trace).events.map((event) => event.values.threshold)).toEqual([200]);
  });
});
