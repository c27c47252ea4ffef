import { describe, expect, it } from 'vitest';
import { evaluateVehicle, tickVehicle, type EvaluatorLookup } from '../../shared/pipeline/evaluate-vehicle';
import {
  deadlineToStore,
  silenceWindow,
  heartbeatIntervalMs,
  MAX_HEARTBEAT_INTERVAL_MS,
  MIN_HEARTBEAT_INTERVAL_MS,
  silenceDeadline,
} from '../../shared/pipeline/silence-deadline';
import { RULE_EVALUATORS } from '../../shared/rules/registry';
import { terminalMessageSchema, type TerminalMessage } from '../../shared/schemas/terminal-message';
import type { VehicleClock } from '../../shared/config';
import type { VehicleState } from '../../shared/schemas/vehicle-state';
import { storedRule, T0, terminalMessage } from './support';
import { speedingAndSilenceVehicle } from './speeding-silence-vehicle';
import { resolveRules } from '../support/resolve-rules';

/** The pure part of evaluation: what is written, and when, for one vehicle. */
const evaluatorFor: EvaluatorLookup = (type) => RULE_EVALUATORS[type];
const vehicle = speedingAndSilenceVehicle;

function message(second: number, speed: number): TerminalMessage {
  return terminalMessageSchema.parse(terminalMessage(1, second, speed));
}

function run(state: VehicleState | undefined, messages: TerminalMessage[], now: number, clock: VehicleClock = 'coalesced') {
  return evaluateVehicle({
    vehicleId: 1,
    state,
    messages,
    rules: vehicle.rules,
    context: { now, zones: vehicle.zones },
    evaluatorFor,
    vehicleClock: clock,
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

  it('coalesces heartbeat-only changes to one write per interval', () => {
    // the smallest connection-loss limit is 5 minutes: a tenth of it is below the 1-minute floor
    const interval = heartbeatIntervalMs(vehicle.rules, 'coalesced');
    expect(interval).toBe(MIN_HEARTBEAT_INTERVAL_MS);
    const within = run(stored(), [message(130, 50)], T0 + 100_000 + interval - 1);
    expect(within.nextState).toBeUndefined();
    const due = run(stored(), [message(170, 50)], T0 + 100_000 + interval);
    expect(due.nextState).toMatchObject({ lastDeviceTime: new Date(T0 + 170_000).toISOString() });
  });

  it('with the exact clock, writes every message that moves the clock, and nothing for a message that does not', () => {
    expect(heartbeatIntervalMs(vehicle.rules, 'exact')).toBe(0);
    const next = run(stored(), [message(101, 50)], T0 + 102_000, 'exact');
    expect(next.nextState).toMatchObject({ lastDeviceTime: new Date(T0 + 101_000).toISOString() });
    expect(run(stored(), [message(100, 50)], T0 + 102_000, 'exact').nextState).toBeUndefined();
  });

  it('judges a late message against the newest one evaluated, whether or not a heartbeat was due (exact clock)', () => {
    // 100 s stored; 130 s is state-neutral and within the coalesced interval; the late 120 s reading would be an
    // episode above the limit if it were current
    const late = [message(120, 150)];
    const exactBefore = run(stored(), [message(130, 50)], T0 + 131_000, 'exact').nextState;
    const exact = run(exactBefore, late, T0 + 132_000, 'exact');
    expect(exact).toMatchObject({ events: [], staleMessages: 1, nextState: undefined });
    // the same judgment when the neutral message came after a heartbeat was due anyway
    const dueBefore = run(stored(), [message(170, 50)], T0 + 171_000, 'exact').nextState;
    expect(run(dueBefore, [message(160, 150)], T0 + 172_000, 'exact')).toMatchObject({ events: [], staleMessages: 1 });
    // the coalesced clock wrote nothing for 130 s, so the same late reading is evaluated as current there
    const coalescedBefore = run(stored(), [message(130, 50)], T0 + 131_000, 'coalesced');
    expect(coalescedBefore.nextState).toBeUndefined();
    const coalesced = run(stored(), late, T0 + 132_000, 'coalesced');
    expect(coalesced.staleMessages).toBe(0);
    expect(coalesced.events.map(({ event }) => event.kind)).toEqual(['speeding']);
  });

  it('lets the heartbeat interval follow the smallest connection-loss limit, and writes none for a vehicle no rule watches', async () => {
    const silence = (minutes: string, id: number) => storedRule({ id, type: 7, name: 'silence', vehicleIds: [1], settings: { minutes } });
    const rulesOf = async (...rules: ReturnType<typeof storedRule>[]) => (await resolveRules(rules, 1, T0)).rules;
    expect(heartbeatIntervalMs(await rulesOf(silence('30', 5), silence('60', 6)), 'coalesced')).toBe(180_000);
    expect(heartbeatIntervalMs(await rulesOf(silence('600', 5)), 'coalesced')).toBe(MAX_HEARTBEAT_INTERVAL_MS);
    expect(heartbeatIntervalMs(await rulesOf(storedRule({ id: 7, vehicleIds: [1] })), 'coalesced')).toBe(MAX_HEARTBEAT_INTERVAL_MS);
    expect(heartbeatIntervalMs([], 'coalesced')).toBe(Number.POSITIVE_INFINITY);
    expect(heartbeatIntervalMs([], 'exact')).toBe(Number.POSITIVE_INFINITY);
    const unwatched = evaluateVehicle({
      vehicleId: 1,
      state: undefined,
      messages: [message(10, 50)],
      rules: [],
      context: { now: T0 + 11_000, zones: vehicle.zones },
      evaluatorFor,
      vehicleClock: 'exact',
    });
    expect(unwatched.nextState).toBeUndefined();
  });

  it('puts the silence deadline at last seen + the smallest pending limit + one heartbeat interval', () => {
    const rules = vehicle.rules;
    expect(silenceDeadline(stored(), rules, 'coalesced')).toBe(T0 + 100_000 + 5 * 60_000 + MIN_HEARTBEAT_INTERVAL_MS);
    // a loss already reported for this silence waits for nothing more
    expect(silenceDeadline(stored({ rules: { '2': { silentSince: T0 + 100_000 } } }), rules, 'coalesced')).toBeNull();
    expect(silenceDeadline(stored(), [], 'coalesced')).toBeNull();
    // the exact clock's last-seen is the truth: no slack after the limit
    expect(silenceDeadline(stored(), rules, 'exact')).toBe(T0 + 100_000 + 5 * 60_000);
  });

  it('keeps a stored deadline while it is due no later than the new one, at most the slack earlier and still beyond the guard', () => {
    // a 30-minute limit: the slack is the whole limit, the guard a quarter of it
    const window = { deadline: T0 + 40 * 60_000, slack: 30 * 60_000, guard: 7.5 * 60_000 };
    // heartbeats moved the deadline by 3 and by 25 minutes: the index entry stays
    expect(deadlineToStore(T0 + 37 * 60_000, window, T0)).toBe(T0 + 37 * 60_000);
    expect(deadlineToStore(T0 + 15 * 60_000, window, T0)).toBe(T0 + 15 * 60_000);
    // drifted by more than the slack, later than the new deadline, or already passed: moved
    expect(deadlineToStore(T0 + 9 * 60_000, window, T0)).toBe(window.deadline);
    expect(deadlineToStore(T0 + 45 * 60_000, window, T0)).toBe(window.deadline);
    expect(deadlineToStore(T0 + 37 * 60_000, window, T0 + 38 * 60_000)).toBe(window.deadline);
    // due within the guard: moved before it can pass between two writes of a vehicle that still reports
    expect(deadlineToStore(T0 + 15 * 60_000, window, T0 + 8 * 60_000)).toBe(window.deadline);
    expect(deadlineToStore(T0 + 15 * 60_000, window, T0 + 7 * 60_000)).toBe(T0 + 15 * 60_000);
    expect(deadlineToStore(null, window, T0)).toBe(window.deadline);
    expect(deadlineToStore(T0 + 37 * 60_000, null, T0)).toBeNull();
  });

  it("guards a quarter of the limit, or the heartbeat and a message's wait when longer, at most half the limit", async () => {
    const guardAt = async (minutes: number) => {
      const { rules } = await resolveRules(
        [storedRule({ id: 2, type: 7, name: 'silence', vehicleIds: [1], settings: { minutes: String(minutes) } })],
        1,
        T0,
      );
      return silenceWindow(stored(), rules, 'coalesced');
    };
    // 60 minutes: a heartbeat every 6 minutes and 2 of wait, shorter than a quarter of the limit
    expect(await guardAt(60)).toMatchObject({ slack: 60 * 60_000, guard: 15 * 60_000 });
    // 10 minutes: the heartbeat (1 minute, its least) and 2 of wait outlast a quarter
    expect((await guardAt(10))?.guard).toBe(3 * 60_000);
    // 4 minutes: never more than half the limit
    expect((await guardAt(4))?.guard).toBe(2 * 60_000);
    // the exact clock writes with every message: a message's wait alone
    const { rules } = await resolveRules([storedRule({ id: 2, type: 7, name: 'silence', vehicleIds: [1], settings: { minutes: '10' } })], 1, T0);
    expect(silenceWindow(stored(), rules, 'exact')?.guard).toBe(2.5 * 60_000);
  });

  it('moves the deadline of a vehicle reporting every 30 s about once per limit, and never lets it pass', () => {
    const limitMs = 5 * 60_000;
    const storedState = stored;
    let deadline: number | null = null;
    let moves = 0;
    for (let second = 0; second < 3_600; second += 30) {
      const seen = T0 + second * 1_000;
      const state = storedState({ lastSeenAt: seen, lastDeviceTime: new Date(seen).toISOString() });
      if (deadline !== null) expect(deadline).toBeGreaterThan(seen);
      const next = deadlineToStore(deadline, silenceWindow(state, vehicle.rules, 'exact'), seen);
      if (next !== deadline) moves++;
      deadline = next;
    }
    // a 5-minute limit, guarded by a message's wait (2 minutes): every 3 minutes, not with each of the 120 messages
    const guardMs = 2 * 60_000;
    expect(moves).toBeLessThanOrEqual(Math.ceil(3_600_000 / (limitMs - guardMs)) + 1);
    expect(moves).toBeGreaterThan(3_600_000 / limitMs - 1);
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
      rules: vehicle.rules,
      context: { now: T0 + 111_000, zones: vehicle.zones },
      evaluatorFor: throwing,
      vehicleClock: 'coalesced',
    });
    expect(outcome.failures.map((failure) => failure.ruleId)).toEqual([1]);
    // nothing else changed within the heartbeat interval: no write at all, so the stored state stays as it was
    expect(outcome.nextState).toBeUndefined();
  });

  it("lets time pass for connection-loss rules only, keeping the other rules' states", () => {
    const before = stored({ rules: { '1': { start: T0, last: T0, maxSpeed: 100, alerted: true, slowSince: null } } });
    const now = T0 + 100_000 + 6 * 60_000;
    const outcome = tickVehicle({
      vehicleId: 1,
      state: before,
      // every rule of the vehicle, as the sweep passes them: only connection-loss rules react to time passing
      rules: vehicle.rules,
      context: { now, zones: vehicle.zones },
      evaluatorFor,
    });
    expect(outcome.events.map(({ event }) => event.kind)).toEqual(['connectionLost']);
    expect(outcome.nextState?.rules).toEqual({ ...before.rules, '2': { silentSince: T0 + 100_000 } });
    expect(outcome.nextState?.lastDeviceTime).toBe(before.lastDeviceTime);
  });
});
