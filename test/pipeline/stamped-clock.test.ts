import { describe, expect, it } from 'vitest';
import { evaluateVehicle, type EvaluatorLookup } from '../../shared/pipeline/evaluate-vehicle';
import { heartbeatIntervalMs, MIN_HEARTBEAT_INTERVAL_MS, silenceDeadline } from '../../shared/pipeline/silence-deadline';
import { connectionLossStep } from '../../shared/pipeline/connection-loss-step';
import { RULE_EVALUATORS } from '../../shared/rules/registry';
import { terminalMessageSchema, type TerminalMessage } from '../../shared/schemas/terminal-message';
import type { VehicleClock } from '../../shared/config';
import type { VehicleState } from '../../shared/schemas/vehicle-state';
import { T0, terminalMessage } from './support';
import { speedingAndSilenceVehicle } from './speeding-silence-vehicle';

/**
 * The producer-stamped clock, pure: a message carrying `previousDeviceTime` (the newest device time its producer
 * had sent before it) is judged late exactly, whatever the stored clock trails, and a vehicle of stamped
 * messages is written with heartbeats only, whichever clock is configured.
 */
const evaluatorFor: EvaluatorLookup = (type) => RULE_EVALUATORS[type];
const vehicle = speedingAndSilenceVehicle;
const iso = (second: number) => new Date(T0 + second * 1000).toISOString();

/** A message at `second`, stamped with the producer's previous device time when `previous` is given. */
function message(second: number, speed: number, previous?: number): TerminalMessage {
  return terminalMessageSchema.parse(terminalMessage(1, second, speed, previous === undefined ? {} : { previousDeviceTime: iso(previous) }));
}

function run(state: VehicleState | undefined, messages: TerminalMessage[], now: number, clock: VehicleClock) {
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

/** Stored at 100 s; `stamped`: written from stamped messages. */
const stored = (overrides: Partial<VehicleState> = {}): VehicleState => ({
  vehicleId: 1,
  version: 3,
  lastDeviceTime: iso(100),
  lastSeenAt: T0 + 100_000,
  lastPosition: null,
  rules: {},
  ...overrides,
});
const kinds = (outcome: ReturnType<typeof run>) => outcome.events.map(({ event }) => `${event.kind}@${event.time}`);

describe.each<VehicleClock>(['exact', 'coalesced'])('the stamped clock, %s clock configured', (clock) => {
  it('judges a late message late where the stored clock trails, which the coalesced clock alone takes as current', () => {
    // 130 s changes no rule state and no heartbeat is due: nothing is written, the stored clock stays at 100 s
    const neutral = run(stored({ stamped: true }), [message(130, 50, 100)], T0 + 131_000, clock);
    expect(neutral.nextState).toBeUndefined();
    // a reading from 120 s arrives after it: above the limit, it would be a speeding episode if current
    const late = run(stored({ stamped: true }), [message(120, 150, 130)], T0 + 132_000, clock);
    expect(late).toMatchObject({ events: [], staleMessages: 1, nextState: undefined });
    expect(late.suppressed).toContainEqual({ ruleId: 1, time: iso(120), reason: 'staleMessage' });
    // the same reading without its stamp, under the coalesced clock: current, and raised
    expect(kinds(run(stored(), [message(120, 150)], T0 + 132_000, 'coalesced'))).toEqual([`speeding@${iso(120)}`]);
  });

  it('writes a stamped vehicle with rule-state changes and heartbeats only, never for each message', () => {
    const interval = heartbeatIntervalMs(vehicle.rules, 'coalesced');
    expect(interval).toBe(MIN_HEARTBEAT_INTERVAL_MS);
    let state = stored({ stamped: true });
    const written: string[] = [];
    for (let second = 110, previous = 100; second <= 100 + 150; previous = second, second += 10) {
      const outcome = run(state, [message(second, 50, previous)], T0 + second * 1000, clock);
      if (outcome.nextState) {
        state = outcome.nextState;
        written.push(iso(second));
      }
    }
    // 15 messages over 150 s: the heartbeats at 160 s and 220 s
    expect(written).toEqual([iso(160), iso(220)]);
    expect(state).toMatchObject({ stamped: true, lastDeviceTime: iso(220) });
    // a rule-state change is written at once
    expect(run(state, [message(230, 150, 220)], T0 + 230_000, clock).nextState?.rules['1']).toMatchObject({ alerted: true });
  });

  it('judges each message by its own stamp: a newer message named by another stamp of the batch is not yet known', () => {
    // sent in this order: 130 s (after 100 s), then 120 s (late: after 130 s), then 140 s; evaluated in device-time order
    const outcome = run(stored({ stamped: true }), [message(120, 150, 130), message(130, 150, 100), message(140, 150, 130)], T0 + 141_000, clock);
    expect(outcome.staleMessages).toBe(1);
    // 130 s is current although the 120 s message names it: the episode starts there
    expect(kinds(outcome)).toEqual([`speeding@${iso(130)}`]);
    expect(outcome.nextState).toMatchObject({ lastDeviceTime: iso(140), stamped: true });
  });

  it('never takes a message at or before the stored clock as current, whatever its stamp (a duplicate, a restarted producer)', () => {
    const state = stored({ stamped: true });
    // a stamp older than the stored clock, from a producer that lost its memory
    expect(run(state, [message(90, 150, 50)], T0 + 131_000, clock)).toMatchObject({ events: [], staleMessages: 1, nextState: undefined });
    // the same message twice in one batch, and a redelivered batch evaluated against the state it produced
    const batch = [message(110, 150, 100), message(110, 150, 100)];
    const first = run(state, batch, T0 + 111_000, clock);
    expect(kinds(first)).toEqual([`speeding@${iso(110)}`]);
    expect(first.staleMessages).toBe(1);
    expect(run(first.nextState, batch, T0 + 112_000, clock)).toMatchObject({ events: [], staleMessages: 2, nextState: undefined });
  });
});

describe('the stamped clock next to the configured one', () => {
  it('writes every message of a vehicle whose batch holds an unstamped one, as the exact clock does', () => {
    const mixed = run(stored({ stamped: true }), [message(110, 50, 100), message(120, 50)], T0 + 121_000, 'exact');
    expect(mixed.nextState).toMatchObject({ lastDeviceTime: iso(120) });
    expect(mixed.nextState).not.toHaveProperty('stamped');
    // and the unstamped late reading is judged against that stored clock
    expect(run(mixed.nextState, [message(115, 150)], T0 + 122_000, 'exact')).toMatchObject({ events: [], staleMessages: 1 });
  });

  it('writes the change to stamped messages once under the exact clock, so that the sweep knows the clock may trail', () => {
    const first = run(stored(), [message(110, 50, 100)], T0 + 111_000, 'exact');
    expect(first.nextState).toMatchObject({ lastDeviceTime: iso(110), stamped: true });
    expect(run(first.nextState, [message(120, 50, 110)], T0 + 121_000, 'exact').nextState).toBeUndefined();
    // under the coalesced clock nothing changes for the sweep: no write of its own
    expect(run(stored(), [message(110, 50, 100)], T0 + 111_000, 'coalesced').nextState).toBeUndefined();
  });

  it('lets the sweep allow one heartbeat for a stamped vehicle under the exact clock: no loss while it may still report', () => {
    const interval = heartbeatIntervalMs(vehicle.rules, 'coalesced');
    const limit = 5 * 60_000;
    expect(silenceDeadline(stored({ stamped: true }), vehicle.rules, 'exact')).toBe(T0 + 100_000 + limit + interval);
    expect(silenceDeadline(stored(), vehicle.rules, 'exact')).toBe(T0 + 100_000 + limit);
    // half a heartbeat past the limit, a stamped vehicle may have reported since its last heartbeat
    const now = T0 + 100_000 + limit + interval / 2;
    const sweep = connectionLossStep(evaluatorFor, now, 'exact');
    const loaded = (state: VehicleState) => ({
      state,
      version: state.version,
      projection: { owners: [], ruleRefs: {}, zoneRefs: {} },
      silentAt: null,
    });
    expect(sweep(1, loaded(stored({ stamped: true })), vehicle).events).toEqual([]);
    expect(sweep(1, loaded(stored()), vehicle).events.map(({ event }) => event.kind)).toEqual(['connectionLost']);
    // once the silence is certain, it is raised for the stamped vehicle too, timed at last seen + the limit
    const certain = connectionLossStep(evaluatorFor, T0 + 100_000 + limit + interval, 'exact')(1, loaded(stored({ stamped: true })), vehicle);
    expect(certain.events.map(({ event }) => `${event.kind}@${event.time}`)).toEqual([
      `connectionLost@${new Date(T0 + 100_000 + limit).toISOString()}`,
    ]);
    expect(certain.nextState).toMatchObject({ stamped: true });
  });
});
