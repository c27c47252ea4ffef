import { describe, expect, it } from 'vitest';
import { evaluateVehicle, HEARTBEAT_INTERVAL_MS, tickVehicle, type EvaluatorLookup } from '../../shared/pipeline/evaluate-vehicle';
import { compileRuleIndex } from '../../shared/rules/rule-index';
import { RULE_EVALUATORS } from '../../shared/rules/registry';
import { terminalMessageSchema, type TerminalMessage } from '../../shared/schemas/terminal-message';
import type { VehicleState } from '../../shared/store/vehicle-state-store';
import { storedRule, T0, terminalMessage } from './support';

/** The pure part of evaluation: what is written, and when, for one vehicle. */
const evaluatorFor: EvaluatorLookup = (type) => RULE_EVALUATORS[type];
const index = compileRuleIndex(
  [
    storedRule({ id: 1, vehicleIds: [1], settings: { limit: '90', minDuration: '0' } }),
    storedRule({ id: 2, type: 7, name: 'silence', vehicleIds: [1], settings: { minutes: '5' } }),
  ],
  [],
);

function message(second: number, speed: number): TerminalMessage {
  return terminalMessageSchema.parse(terminalMessage(1, second, speed));
}

function run(state: VehicleState | undefined, messages: TerminalMessage[], now: number, vehicleId = 1) {
  return evaluateVehicle({
    vehicleId,
    state,
    messages,
    rules: index.rulesFor(vehicleId, now),
    context: { now, zones: index.zones },
    evaluatorFor,
  });
}

const stored = (overrides: Partial<VehicleState> = {}): VehicleState => ({
  vehicleId: 1,
  version: 3,
  lastDeviceTime: new Date(T0 + 100_000).toISOString(),
  lastSeenAt: T0 + 100_000,
  lastPosition: null,
  rules: {},
  ...overrides,
});

describe('evaluating one vehicle', () => {
  it('writes a new vehicle at once, with its position and last-seen time', () => {
    const outcome = run(undefined, [message(10, 50)], T0 + 11_000);
    expect(outcome.nextState).toMatchObject({
      vehicleId: 1,
      version: 0,
      lastDeviceTime: new Date(T0 + 10_000).toISOString(),
      lastSeenAt: T0 + 11_000,
      lastPosition: { latitude: 55.75, longitude: 37.62, speed: 50 },
      rules: {},
    });
  });

  it('coalesces heartbeat-only changes to one write per interval for a vehicle no rule watches', () => {
    const unwatched = stored({ vehicleId: 2 });
    const within = run(unwatched, [message(130, 50)], T0 + 100_000 + HEARTBEAT_INTERVAL_MS - 1, 2);
    expect(within.nextState).toBeUndefined();
    const due = run(unwatched, [message(170, 50)], T0 + 100_000 + HEARTBEAT_INTERVAL_MS, 2);
    expect(due.nextState).toMatchObject({ lastDeviceTime: new Date(T0 + 170_000).toISOString() });
  });

  it('stores the device clock of a watched vehicle whenever it moves, so a late message is judged against the newest one', () => {
    const moved = run(stored(), [message(130, 50)], T0 + 131_000);
    expect(moved.nextState).toMatchObject({ lastDeviceTime: new Date(T0 + 130_000).toISOString(), rules: {} });
    // a message from between the stored clock and the one just processed is late, written or not
    const late = run(moved.nextState, [message(120, 150)], T0 + 140_000);
    expect(late).toMatchObject({ nextState: undefined, events: [], staleMessages: 1 });
  });

  it('writes a rule state change at once, whatever the heartbeat interval', () => {
    const outcome = run(stored(), [message(110, 120)], T0 + 111_000);
    expect(outcome.events.map(({ event }) => event.kind)).toEqual(['speeding']);
    expect(outcome.nextState?.rules['1']).toMatchObject({ alerted: true });
  });

  it('ignores stale messages for state and time', () => {
    const outcome = run(stored(), [message(90, 150), message(100, 150)], T0 + 200_000);
    expect(outcome).toMatchObject({ nextState: undefined, events: [], staleMessages: 2 });
  });

  it('drops the state of a rule that no longer applies to the vehicle', () => {
    const outcome = run(stored({ rules: { '99': { start: 1 } } }), [message(110, 50)], T0 + 111_000);
    expect(outcome.nextState?.rules).toEqual({});
  });

  it('keeps a rule state as it was when its evaluator throws, and reports it', () => {
    const throwing: EvaluatorLookup = (type) =>
      type === 2
        ? {
            ...RULE_EVALUATORS[2],
            evaluate: () => {
              throw new Error('broken evaluator');
            },
          }
        : RULE_EVALUATORS[type];
    const before = stored({ rules: { '1': { start: T0, last: T0, maxSpeed: 100, alerted: true, slowSince: null } } });
    const outcome = evaluateVehicle({
      vehicleId: 1,
      state: before,
      messages: [message(110, 50)],
      rules: index.rulesFor(1, T0 + 111_000),
      context: { now: T0 + 111_000, zones: index.zones },
      evaluatorFor: throwing,
    });
    expect(outcome.failures.map((failure) => failure.ruleId)).toEqual([1]);
    expect(outcome.nextState?.rules).toEqual(before.rules);
  });

  it('lets time pass for connection-loss rules only, keeping the other rules\' states', () => {
    const before = stored({ rules: { '1': { start: T0, last: T0, maxSpeed: 100, alerted: true, slowSince: null } } });
    const now = T0 + 100_000 + 6 * 60_000;
    const outcome = tickVehicle({
      vehicleId: 1,
      state: before,
      rules: index.rulesOfType(7),
      context: { now, zones: index.zones },
      evaluatorFor,
    });
    expect(outcome.events.map(({ event }) => event.kind)).toEqual(['connectionLost']);
    expect(outcome.nextState?.rules).toEqual({ ...before.rules, '2': { silentSince: T0 + 100_000 } });
    expect(outcome.nextState?.lastDeviceTime).toBe(before.lastDeviceTime);
  });
});
