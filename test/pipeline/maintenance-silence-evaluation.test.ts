import { describe, expect, it } from 'vitest';
import { compileSilence, VehicleSilences } from '../../shared/pipeline/maintenance-silence';
import { evaluateVehicle, tickVehicle, type EvaluatorLookup, type VehicleOutcome } from '../../shared/pipeline/evaluate-vehicle';
import { silenceDeadline } from '../../shared/pipeline/silence-deadline';
import { RULE_EVALUATORS } from '../../shared/rules/registry';
import type { StoredRule } from '../../shared/schemas/notification';
import { storedSilenceSchema } from '../../shared/schemas/silence';
import type { TerminalMessage } from '../../shared/schemas/terminal-message';
import type { VehicleState } from '../../shared/schemas/vehicle-state';
import { compileZone } from '../../shared/geo/compiled-zone';
import { resolveRules } from '../support/resolve-rules';
import { CENTER, circleZone, message, offset, PARENT_ID, storedRule, T0 } from '../rules/fixtures';

/**
 * Maintenance silences in the pure per-vehicle path evaluate and the sweep share: which events they hold back,
 * that they spend no noise budget, and the one `afterSilence` alert of an episode that outlasts its silence.
 */
const evaluatorFor: EvaluatorLookup = (type) => RULE_EVALUATORS[type];
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();
const DEPOT = circleZone(5, 200, { name: 'Depot' });
const WORKSHOP = circleZone(6, 100, { name: 'Workshop', center: offset(CENTER.lat, CENTER.lon, 0, 3_000) });

function silences(...overrides: Record<string, unknown>[]): VehicleSilences {
  const compiled = overrides.map((override, index) =>
    compileSilence(
      storedSilenceSchema.parse({
        id: `${PARENT_ID}.${String(index).padStart(22, 'a')}`,
        parentId: PARENT_ID,
        from: iso(T0),
        to: iso(T0 + 2 * HOUR),
        reason: 'workshop',
        createdAt: iso(T0),
        createdBy: 'dispatcher',
        ...override,
      }),
    )!,
  );
  return new VehicleSilences([PARENT_ID], compiled, new Map([[WORKSHOP.id, compileZone(WORKSHOP)]]));
}

async function evaluate(rule: StoredRule, messages: TerminalMessage[], state: VehicleState | undefined, active: VehicleSilences, vehicleId = 1) {
  const now = Date.parse(messages.at(-1)!.deviceTime) + 1000;
  const resolved = await resolveRules([rule], vehicleId, now, [DEPOT, WORKSHOP]);
  return evaluateVehicle({
    vehicleId,
    state,
    messages: messages.map((each) => ({ ...each, vehicleId })),
    rules: resolved.rules,
    context: { now, zones: resolved.zones },
    evaluatorFor,
    vehicleClock: 'exact',
    silences: active,
  });
}

async function tick(rule: StoredRule, state: VehicleState | undefined, now: number, active: VehicleSilences) {
  const resolved = await resolveRules([rule], 1, now, [DEPOT]);
  return tickVehicle({ vehicleId: 1, state, rules: resolved.rules, context: { now, zones: resolved.zones }, evaluatorFor, silences: active });
}

const stateOf = (outcome: VehicleOutcome, previous?: VehicleState): VehicleState => ({ ...(outcome.nextState ?? previous)!, version: 1 });
const kinds = (outcome: VehicleOutcome) => outcome.events.map(({ event }) => event.kind);
const speeding = storedRule({ id: 11, type: 2, vehicleIds: [1, 2], settings: { limit: '90', minDuration: '0', cooldown: '3600' } });
const fast = (second: number) => message(second, { speed: 120 });
const slow = (second: number) => message(second, { speed: 40 });

describe('maintenance silences in evaluation', () => {
  it('holds back exactly the events of the vehicle it names, with its id, and not those of another vehicle', async () => {
    const active = silences({ vehicleIds: [1] });
    const muted = await evaluate(speeding, [slow(0), fast(10)], undefined, active, 1);
    expect(muted.events).toEqual([]);
    expect(muted.suppressed).toEqual([{ ruleId: 11, time: iso(T0 + 10_000), reason: 'silenced', silenceId: active.silences[0]!.id }]);
    expect(muted.silenced?.map(({ event, silenceId }) => [event.kind, silenceId])).toEqual([['speeding', active.silences[0]!.id]]);
    const other = await evaluate(speeding, [slow(0), fast(10)], undefined, active, 2);
    expect(kinds(other)).toEqual(['speeding']);
  });

  it('ANDs matchers across kinds and ORs them within a kind', async () => {
    const both = silences({ vehicleIds: [1, 3], ruleIds: [99] });
    expect(kinds(await evaluate(speeding, [slow(0), fast(10)], undefined, both))).toEqual(['speeding']);
    const rule = silences({ vehicleIds: [3, 1], ruleIds: [99, 11] });
    expect(kinds(await evaluate(speeding, [slow(0), fast(10)], undefined, rule))).toEqual([]);
    const elsewhere = silences({ geozoneIds: [WORKSHOP.id] });
    expect(kinds(await evaluate(speeding, [slow(0), fast(10)], undefined, elsewhere))).toEqual(['speeding']);
    const there = offset(CENTER.lat, CENTER.lon, 0, 3_000);
    const inWorkshop = [slow(0), fast(10)].map((each) => ({ ...each, latitude: there.lat, longitude: there.lon }));
    expect(kinds(await evaluate(speeding, inWorkshop, undefined, elsewhere))).toEqual([]);
  });

  it('holds nothing outside [from, to) or its weekly window, and never a rule of a client above its own', async () => {
    const later = silences({ from: iso(T0 + HOUR), to: iso(T0 + 2 * HOUR), vehicleIds: [1] });
    expect(kinds(await evaluate(speeding, [slow(0), fast(10)], undefined, later))).toEqual(['speeding']);
    // T0 is a Sunday 00:00 UTC: the window opens at 08:00
    const sundays = silences({ to: iso(T0 + 20 * HOUR), schedule: 'Sun 08:00-18:00', timezone: 0, vehicleIds: [1] });
    expect(kinds(await evaluate(speeding, [slow(0), fast(10)], undefined, sundays))).toEqual(['speeding']);
    expect(kinds(await evaluate(speeding, [slow(9 * 3600), fast(9 * 3600 + 10)], undefined, sundays))).toEqual([]);
    const parentRule = storedRule({ ...speeding, parentId: 'a0b1c2d3-0000-4000-8000-000000000001' });
    const childSilence = new VehicleSilences([PARENT_ID, parentRule.parentId], silences({ vehicleIds: [1] }).silences, new Map());
    const resolved = await resolveRules([parentRule], 1, T0 + 20_000, []);
    const outcome = evaluateVehicle({
      vehicleId: 1,
      state: undefined,
      messages: [slow(0), fast(10)],
      rules: resolved.rules,
      context: { now: T0 + 20_000, zones: resolved.zones },
      evaluatorFor,
      vehicleClock: 'exact',
      silences: childSilence,
    });
    expect(kinds(outcome)).toEqual(['speeding']);
  });

  it('spends no noise budget: the first alert after the silence is not cooled down by a silenced one', async () => {
    const active = silences({ vehicleIds: [1], to: iso(T0 + 60_000) });
    const first = await evaluate(speeding, [slow(0), fast(10), slow(20), slow(30)], undefined, active);
    expect(kinds(first)).toEqual([]);
    const second = await evaluate(speeding, [fast(70)], stateOf(first), active);
    expect(kinds(second)).toEqual(['speeding']);
  });

  it('raises a lost connection that outlasts its silence once, at the silence end, marked afterSilence', async () => {
    const lost = storedRule({ id: 12, type: 7, settings: { minutes: '30' } });
    const active = silences({ vehicleIds: [1], to: iso(T0 + 2 * HOUR) });
    const seen = await evaluate(lost, [slow(0)], undefined, active);
    const silent = await tick(lost, stateOf(seen), T0 + 31 * MINUTE, active);
    expect(silent.events).toEqual([]);
    expect(silent.suppressed.map(({ reason }) => reason)).toEqual(['silenced']);
    const held = stateOf(silent, stateOf(seen));
    // the sweep looks at the vehicle again at the silence's end (or sooner, to notice an early end)
    const lostAt = T0 + 1000 + 30 * MINUTE;
    expect(silenceDeadline(held, (await resolveRules([lost], 1, T0, [])).rules, 'exact')).toBe(lostAt + 10 * MINUTE);
    let state = held;
    for (let minute = 41; minute < 120; minute += 10) {
      const recheck = await tick(lost, state, T0 + minute * MINUTE, active);
      expect(recheck.events).toEqual([]);
      state = stateOf(recheck, state);
    }
    const ended = await tick(lost, state, T0 + 2 * HOUR + 30_000, active);
    expect(ended.events.map(({ event }) => [event.kind, event.time, event.values.afterSilence])).toEqual([
      ['connectionLost', iso(T0 + 2 * HOUR), true],
    ]);
    const again = await tick(lost, stateOf(ended, state), T0 + 3 * HOUR, active);
    expect(again.events).toEqual([]);
  });

  it('raises nothing after the silence for an episode that ended while it held', async () => {
    const lost = storedRule({ id: 12, type: 7, settings: { minutes: '30', notifyRestored: 'true' } });
    const active = silences({ vehicleIds: [1] });
    const seen = await evaluate(lost, [slow(0)], undefined, active);
    const silent = await tick(lost, stateOf(seen), T0 + 31 * MINUTE, active);
    const back = await evaluate(lost, [slow(40 * 60)], stateOf(silent, stateOf(seen)), active);
    expect(back.events).toEqual([]);
    expect(back.suppressed.map(({ reason }) => reason)).toEqual(['silenced']);
    const after = await tick(lost, stateOf(back), T0 + 3 * HOUR, active);
    expect(after.events).toEqual([]);
  });

  it('raises a zone exit still outside when a message finds the silence over, once', async () => {
    const exit = storedRule({ id: 13, type: 0, geoids: [DEPOT.id], settings: { mode: 'exit' } });
    const active = silences({ vehicleIds: [1], to: iso(T0 + HOUR) });
    const away = offset(CENTER.lat, CENTER.lon, 0, 1_000);
    const outside = (second: number) => message(second, { latitude: away.lat, longitude: away.lon, speed: 30 });
    const left = await evaluate(exit, [message(0), outside(60)], undefined, active);
    expect(left.events).toEqual([]);
    const during = await evaluate(exit, [outside(1800)], stateOf(left), active);
    expect(during.events).toEqual([]);
    const after = await evaluate(exit, [outside(3700)], stateOf(during, stateOf(left)), active);
    expect(after.events.map(({ event }) => [event.kind, event.time, event.values.afterSilence])).toEqual([['zoneExit', iso(T0 + 3_700_000), true]]);
    const later = await evaluate(exit, [outside(3800)], stateOf(after), active);
    expect(later.events).toEqual([]);
  });
});
