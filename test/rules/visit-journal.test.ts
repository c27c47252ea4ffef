import { describe, expect, it } from 'vitest';
import { haversineMeters } from '../../shared/geo/measure';
import { ZoneIndex } from '../../shared/geo/zone-index';
import { evaluateVehicle, type EvaluatorLookup } from '../../shared/pipeline/evaluate-vehicle';
import { RULE_EVALUATORS } from '../../shared/rules/registry';
import type { Journal } from '../../shared/rules/visit-journal';
import { geozoneSchema } from '../../shared/schemas/geozone';
import { terminalMessageSchema, type TerminalMessage } from '../../shared/schemas/terminal-message';
import type { VehicleState } from '../../shared/schemas/vehicle-state';
import type { VehicleRules } from '../../shared/pipeline/rule-cache';
import { storedRule, T0, terminalMessage } from '../pipeline/support';
import { resolveRules } from '../support/resolve-rules';

/** The visit journal inside the pure per-vehicle step: hysteresis, stale messages, distance inside. */
const evaluatorFor: EvaluatorLookup = (type) => RULE_EVALUATORS[type];
const CENTER = { latitude: 55.75, longitude: 37.62 };
const yard = geozoneSchema.parse({
  id: 5,
  name: 'Yard',
  type: 'circle',
  parentId: '1a2b3c4d-0000-4000-8000-00000000000a',
  radius: 500,
  description: '',
  geometry: { type: 'Point', coordinates: [CENTER.longitude, CENTER.latitude] },
  area: 785_398,
  perimetr: 3_142,
  createDate: new Date(T0).toISOString(),
});
const zones = new ZoneIndex([yard]);
const journal = (now: number): Journal => ({ zoneIds: [5], context: { now, zones } });
/** A point `metres` north of the centre. */
const north = (metres: number) => ({ latitude: Math.round((CENTER.latitude + metres / 111_195) * 1e7) / 1e7, longitude: CENTER.longitude });

const at = (second: number, where: { latitude: number; longitude: number }): TerminalMessage =>
  terminalMessageSchema.parse(terminalMessage(1, second, 30, where));

/** No rule watches the vehicle (resolved as evaluate does, through RuleCache). */
const unwatched = await resolveRules([], 1, T0);

/** Evaluated one second after the last message's device time, as a live stream is. */
function run(state: VehicleState | undefined, messages: TerminalMessage[], rules: VehicleRules = unwatched) {
  const now = Date.parse(messages.at(-1)!.deviceTime) + 1_000;
  return evaluateVehicle({
    vehicleId: 1,
    state,
    messages,
    rules: rules.rules,
    context: { now, zones: rules.zones },
    evaluatorFor,
    journal: journal(now),
    vehicleClock: 'exact',
  });
}

describe('visit journal', () => {
  it('opens a visit only deeper than 30 m inside, and closes it only beyond 30 m outside', () => {
    const shallow = run(undefined, [at(0, north(1_000)), at(10, north(480))]);
    expect(shallow.nextState).toBeUndefined();
    expect(shallow.visits).toBeUndefined();

    const entered = run(undefined, [at(0, north(1_000)), at(10, north(460))]);
    expect(entered.visits).toEqual([{ zoneId: 5, startDate: new Date(T0 + 10_000).toISOString(), entry: north(460) }]);
    const state = { ...entered.nextState!, version: 1 };

    const jitter = run(state, [at(20, north(520))]);
    expect(jitter.visits).toBeUndefined();
    expect(jitter.nextState).toBeUndefined();

    const left = run(state, [at(30, north(540))]);
    expect(left.visits).toMatchObject([{ zoneId: 5, endDate: new Date(T0 + 30_000).toISOString(), duration: 20, exit: north(540) }]);
    expect(left.nextState?.visits).toBeUndefined();
  });

  it('ignores stale messages', () => {
    const entered = run(undefined, [at(10, CENTER)]);
    const state = { ...entered.nextState!, version: 1 };
    const stale = run(state, [at(5, north(2_000))]);
    expect(stale.visits).toBeUndefined();
    expect(stale.nextState).toBeUndefined();
  });

  it('measures the distance inside along the positions stored with each state write (a lower bound)', async () => {
    // none of the rule's boundaries falls within these minutes
    const rules = await resolveRules([storedRule({ id: 1, type: 7, name: 'silence', vehicleIds: [1], settings: { minutes: '10' } })], 1, T0);
    let outcome = run(undefined, [at(0, north(-400))], rules);
    let state = { ...outcome.nextState!, version: 1 };
    // heartbeats inside, written once a minute: 0 → -400 m, 60 s → +300 m, 120 s → -300 m; the point at 30 s is never stored
    for (const [second, metres] of [
      [30, 0],
      [60, 300],
      [120, -300],
    ] as const) {
      outcome = run(state, [at(second, north(metres))], rules);
      if (outcome.nextState) state = { ...outcome.nextState, version: state.version + 1 };
    }
    outcome = run(state, [at(150, north(-1_000))], rules);
    const expected = 700 + 600 + 700;
    expect(outcome.visits?.[0]?.distance).toBeCloseTo(expected, -1);
    expect(haversineMeters(CENTER.latitude, CENTER.longitude, north(700).latitude, north(700).longitude)).toBeCloseTo(700, 0);
  });

  it('prefers the odometer (mileage, km) when both ends have it', () => {
    const entry = terminalMessageSchema.parse(terminalMessage(1, 0, 30, { ...CENTER, parameters: { mileage: '200.5' } }));
    const exit = terminalMessageSchema.parse(terminalMessage(1, 60, 30, { ...north(2_000), parameters: { mileage: '203' } }));
    const entered = run(undefined, [entry]);
    const left = run({ ...entered.nextState!, version: 1 }, [exit]);
    expect(left.visits?.[0]?.distance).toBe(2_500);
  });
});
