import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { deviceAlarmEvaluator } from '../../shared/rules/device-alarm';
import { settingsProblems } from '../../shared/rules/rule-validation';
import type { TerminalMessage } from '../../shared/schemas/terminal-message';
import { T0, message } from './fixtures';
import { compile, run, times } from './harness';

const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const io = (s: number, parameters: Record<string, string>) => message(s, { parameters });
const rule = compile(deviceAlarmEvaluator, {});
const alarmsOf = (messages: TerminalMessage[], r = rule) => run(deviceAlarmEvaluator, r, messages).events.map((event) => event.values.alarm);

describe('device alarm', () => {
  it('reads Teltonika FMB I/O elements by default', () => {
    const cases: [Record<string, string>, string][] = [
      [{ io253: '1' }, 'harshAcceleration'],
      [{ io253: '2' }, 'harshBraking'],
      [{ io253: '3' }, 'harshCornering'],
      [{ io247: '1' }, 'crash'],
      [{ io249: '1' }, 'jamming'],
      [{ io252: '1' }, 'powerCut'],
      [{ io66: '4200' }, 'powerCut'],
      [{ io67: '3350' }, 'lowBattery'],
      [{ tamper: '1' }, 'tamper'],
    ];
    for (const [parameters, alarm] of cases) {
      const { events } = run(deviceAlarmEvaluator, rule, [io(0, parameters)]);
      expect(
        events.map((event) => event.values.alarm),
        JSON.stringify(parameters),
      ).toEqual([alarm]);
      expect(events[0]!.kind).toBe('deviceAlarm');
      expect(events[0]!.values).toMatchObject({ parameter: Object.keys(parameters)[0], value: Object.values(parameters)[0] });
    }
    const quiet: Record<string, string>[] = [
      { io253: '0' },
      { io247: '0' },
      { io249: '0' },
      { io252: '0' },
      { io66: '12800' },
      { io67: '4100' },
      { tamper: '0' },
      { io253: '7' },
    ];
    for (const parameters of quiet) expect(run(deviceAlarmEvaluator, rule, [io(0, parameters)]).events, JSON.stringify(parameters)).toEqual([]);
  });

  it('alerts only for the alarms chosen, with the parameters and codes configured', () => {
    const chosen = compile(deviceAlarmEvaluator, { alarms: 'Crash, harshBraking', harshParameter: 'gd', harshCodes: '4,5,6' });
    expect(
      alarmsOf([io(0, { io249: '1' }), io(100, { io253: '2' }), io(200, { gd: '5' }), io(300, { gd: '4' }), io(400, { io247: '1' })], chosen),
    ).toEqual(['harshBraking', 'crash']);
  });

  it('raises one alert naming every alarm that starts with one message, the most serious first', () => {
    const { events } = run(deviceAlarmEvaluator, rule, [io(0, { io253: '2', io247: '1' })]);
    expect(events).toHaveLength(1);
    expect(events[0]!.values).toMatchObject({ alarm: 'crash', alarms: 'crash, harshBraking', parameter: 'io247', value: '1' });
  });

  it('alerts once for a lasting alarm reported in every record, and again only after a reading shows it over', () => {
    const trace = [
      ...Array.from({ length: 10 }, (_, i) => io(i * 60, { io249: '1' })),
      io(600, {}), // no reading: the jamming is not over
      io(660, { io249: '1' }),
      io(720, { io249: '0' }),
      io(900, { io249: '1' }),
    ];
    expect(times(run(deviceAlarmEvaluator, rule, trace).events)).toEqual([at(0), at(900)]);
  });

  it('takes readings of one alarm within repeatWindow as one event: a resent record, a crash trace, a voltage flickering at the threshold', () => {
    const crashTrace = [0, 1, 2, 3, 4, 5].map((s) => io(s, { io247: '1' }));
    expect(times(run(deviceAlarmEvaluator, rule, crashTrace).events)).toEqual([at(0)]);
    const flicker = [io(0, { io66: '5900' }), io(20, { io66: '6100' }), io(40, { io66: '5950' }), io(60, { io66: '6050' }), io(80, { io66: '5990' })];
    expect(times(run(deviceAlarmEvaluator, rule, flicker).events)).toEqual([at(0)]);
    // two harsh brakings ten minutes apart are two events; 30 s apart, one
    expect(times(run(deviceAlarmEvaluator, rule, [io(0, { io253: '2' }), io(30, { io253: '2' }), io(630, { io253: '2' })]).events)).toEqual([
      at(0),
      at(630),
    ]);
    const noWindow = compile(deviceAlarmEvaluator, { repeatWindow: '0' });
    expect(run(deviceAlarmEvaluator, noWindow, [io(0, { io253: '2' }), io(30, { io253: '2' })]).events).toHaveLength(2);
  });

  it('alerts for an alarm that arrives late, once, and never for a resent copy of one already reported', () => {
    const trace = [io(0, {}), io(300, {}), io(120, { io247: '1' }), io(121, { io247: '1' }), io(120, { io247: '1' }), io(310, {})];
    const { events } = run(deviceAlarmEvaluator, rule, trace);
    expect(times(events)).toEqual([at(120)]);
    expect(events[0]!.values).toMatchObject({ alarm: 'crash', late: true });
    const resent = [io(0, { io253: '2' }), io(10, {}), io(0, { io253: '2' }), io(20, {}), io(0, { io253: '2' })];
    expect(times(run(deviceAlarmEvaluator, rule, resent).events)).toEqual([at(0)]);
  });

  it('keeps late readings of a lasting alarm still on quiet, and never lets a late reading end an alarm', () => {
    const trace = [io(0, { io252: '1' }), io(600, { io252: '1' }), io(300, { io252: '1' }), io(200, { io252: '0' }), io(700, { io252: '1' })];
    expect(times(run(deviceAlarmEvaluator, rule, trace).events)).toEqual([at(0)]);
  });

  it('ignores GPS noise: position and speed change nothing', () => {
    const noisy = [0, 10, 20, 30].map((s, i) => message(s, { speed: i % 2 === 0 ? 0 : 140, latitude: 55.75 + i * 0.01, parameters: { io249: '1' } }));
    expect(times(run(deviceAlarmEvaluator, rule, noisy).events)).toEqual([at(0)]);
  });

  it('refuses unknown alarms and malformed harsh codes, naming the setting', () => {
    expect(settingsProblems(16, { alarms: 'crash, fire' }).map((problem) => problem.path)).toEqual(['settings.alarms']);
    expect(settingsProblems(16, { alarms: ' , ' }).map((problem) => problem.path)).toEqual(['settings.alarms']);
    expect(settingsProblems(16, { harshCodes: '1,2' }).map((problem) => problem.path)).toEqual(['settings.harshCodes']);
    expect(settingsProblems(16, { harshCodes: '1,1,3' }).map((problem) => problem.path)).toEqual(['settings.harshCodes']);
    expect(settingsProblems(16, { alarms: 'crash', harshCodes: '11, 12, 13' })).toEqual([]);
  });

  /** Harsh brakings far enough apart to be separate events, among ordinary records, then sent in any order, some twice. */
  const planted = fc
    .array(fc.record({ gap: fc.integer({ min: 121, max: 900 }), fillers: fc.integer({ min: 0, max: 3 }) }), { minLength: 1, maxLength: 8 })
    .map((steps) => {
      let t = 0;
      const messages: TerminalMessage[] = [];
      for (const { gap, fillers } of steps) {
        t += gap;
        messages.push(io(t, { io253: '2' }));
        for (let f = 1; f <= fillers; f++) messages.push(io(t + f * 10, { io253: '0' }));
      }
      return { messages, brakings: steps.length };
    });

  test.prop([planted, fc.array(fc.nat(), { maxLength: 40 }), fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 6 })])(
    'raises one alert per planted event whatever the order, the copies and the restarts',
    ({ messages, brakings }, keys, batches) => {
      const delivered = [...messages, ...messages.filter((_, i) => i % 3 === 0)]
        .map((m, i) => ({ m, key: keys[i % Math.max(1, keys.length)] ?? i }))
        .sort((a, b) => a.key - b.key)
        .map(({ m }) => m);
      const { events } = run(deviceAlarmEvaluator, rule, delivered, { batches });
      expect(events).toHaveLength(brakings);
      expect(new Set(times(events)).size).toBe(brakings);
    },
  );
});
