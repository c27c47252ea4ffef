import { describe, expect, it } from 'vitest';
import { evaluateVehicle, tickVehicle, type EvaluatorLookup, type VehicleOutcome } from '../../shared/pipeline/evaluate-vehicle';
import { RULE_EVALUATORS } from '../../shared/rules/registry';
import { ruleProblems } from '../../shared/rules/rule-validation';
import type { StoredRule } from '../../shared/schemas/notification';
import { terminalMessageSchema, type TerminalMessage } from '../../shared/schemas/terminal-message';
import type { VehicleState } from '../../shared/schemas/vehicle-state';
import { resolveRules } from '../support/resolve-rules';
import { CENTER, circleZone, message, offset, storedRule, T0 } from '../rules/fixtures';

/**
 * The zone condition (settings.zones, zoneMode) on rules of other types, through the same per-vehicle path
 * evaluate and the sweep run: events become alerts only inside (or outside) the zones, the evaluator moves on
 * either way, and the border has the 30 m hysteresis of a geozone rule.
 */
const evaluatorFor: EvaluatorLookup = (type) => RULE_EVALUATORS[type];
const DEPOT = circleZone(5, 200, { name: 'Depot' });
const at = (metresEast: number) => offset(CENTER.lat, CENTER.lon, 0, metresEast);

function fix(second: number, metresEast: number, speed: number, parameters: Record<string, number> = {}): TerminalMessage {
  const point = at(metresEast);
  return terminalMessageSchema.parse({
    ...message(second, { latitude: point.lat, longitude: point.lon, speed, serverTime: new Date(T0 + second * 1000).toISOString() }),
    parameters,
  });
}

async function evaluate(rule: StoredRule, messages: TerminalMessage[], state?: VehicleState): Promise<VehicleOutcome> {
  const now = T0 + 10 * 86_400_000;
  const resolved = await resolveRules([rule], 1, now, [DEPOT]);
  expect(resolved.rules.map((compiled) => compiled.rule.id)).toEqual([rule.id]);
  return evaluateVehicle({
    vehicleId: 1,
    state,
    messages,
    rules: resolved.rules,
    context: { now, zones: resolved.zones },
    evaluatorFor,
    vehicleClock: 'exact',
  });
}

const speeding = (settings: Record<string, string>) => storedRule({ id: 11, type: 2, settings: { limit: '90', minDuration: '0', ...settings } });
const kinds = (outcome: VehicleOutcome) => outcome.events.map(({ event }) => event.kind);

describe('zone condition', () => {
  it('speeding only inside the depot: alerts inside, holds back outside with a reason, and the episode is not raised twice', async () => {
    const rule = speeding({ zones: '5' });
    const inside = await evaluate(rule, [fix(0, 0, 50), fix(10, 0, 120)]);
    expect(kinds(inside)).toEqual(['speeding']);

    const outside = await evaluate(rule, [fix(0, 1_000, 50), fix(10, 1_000, 120), fix(20, 0, 125)]);
    expect(outside.events).toEqual([]);
    expect(outside.suppressed.map(({ ruleId, reason }) => [ruleId, reason])).toEqual([[11, 'outsideZones']]);
    // the evaluator's state moved on: the episode that began outside is known, so driving on into the depot raises nothing
    expect(outside.nextState?.rules['11']).toBeDefined();
  });

  it('idling only outside customer sites (zoneMode outside)', async () => {
    const rule = storedRule({ id: 12, type: 11, settings: { minutes: '1', zones: '5', zoneMode: 'outside' } });
    const idleAt = (east: number) => [0, 30, 60, 90].map((second) => fix(second, east, 0, { ignition: 1 }));
    const onSite = await evaluate(rule, idleAt(0));
    expect(onSite.events).toEqual([]);
    expect(onSite.suppressed.map(({ reason }) => reason)).toEqual(['insideZones']);
    expect(kinds(await evaluate(rule, idleAt(2_000)))).toEqual(['idle']);
  });

  it('a fix jittering just across the border does not flip the condition (30 m hysteresis)', async () => {
    const rule = speeding({ zones: '5' });
    // inside, then 15 m beyond the 200 m border: still inside for the condition
    const jitter = await evaluate(rule, [fix(0, 150, 50), fix(10, 215, 120)]);
    expect(kinds(jitter)).toEqual(['speeding']);
    // 40 m beyond it: outside
    const left = await evaluate(rule, [fix(0, 150, 50), fix(10, 240, 120)]);
    expect(left.suppressed.map(({ reason }) => reason)).toEqual(['outsideZones']);
  });

  it('keeps where the vehicle is for the condition in the stored state, across batches', async () => {
    const rule = speeding({ zones: '5' });
    const first = await evaluate(rule, [fix(0, 150, 50)]);
    const state = JSON.parse(JSON.stringify({ ...first.nextState, version: 1 })) as VehicleState;
    expect(state.zoneGates?.['11']?.zones['5']?.inside).toBe(true);
    expect(kinds(await evaluate(rule, [fix(10, 215, 120)], state))).toEqual(['speeding']);
  });

  it('judges a stale message at its own position', async () => {
    const rule = storedRule({ id: 13, type: 6, settings: { parameter: 'sos', zones: '5' } });
    const first = await evaluate(rule, [fix(100, 0, 0)]);
    const state = { ...first.nextState!, version: 1 };
    // late panics: one from inside the depot, one from far outside
    const lateInside = await evaluate(rule, [fix(50, 0, 0, { sos: 1 })], state);
    const lateOutside = await evaluate(rule, [fix(60, 3_000, 0, { sos: 1 })], state);
    expect(lateInside.events.length + lateInside.suppressed.length).toBe(1);
    expect(kinds(lateInside)).toEqual(['panic']);
    expect(lateOutside.suppressed.map(({ reason }) => reason)).toEqual(['outsideZones']);
  });

  it('connection loss only outside the garage: a tick judges the last tracked position', async () => {
    const rule = storedRule({ id: 14, type: 7, settings: { minutes: '5', zones: '5', zoneMode: 'outside' } });
    const now = T0 + 10 * 86_400_000;
    const resolved = await resolveRules([rule], 1, now, [DEPOT]);
    const lastHeard = async (east: number) => {
      const outcome = await evaluate(rule, [fix(0, east, 0)]);
      return { ...outcome.nextState!, version: 1 };
    };
    const tick = (state: VehicleState) =>
      tickVehicle({ vehicleId: 1, state, rules: resolved.rules, context: { now: T0 + 3_600_000, zones: resolved.zones }, evaluatorFor });
    const inGarage = tick(await lastHeard(0));
    expect(inGarage.events).toEqual([]);
    expect(inGarage.suppressed.map(({ ruleId, reason }) => [ruleId, reason])).toEqual([[14, 'insideZones']]);
    // the loss is known to the rule, so the next tick raises nothing either way
    expect(tick({ ...inGarage.nextState!, version: 2 }).suppressed).toEqual([]);
    expect(tick(await lastHeard(3_000)).events.map(({ event }) => event.kind)).toEqual(['connectionLost']);
  });

  it('refuses malformed conditions naming settings.zones or settings.zoneMode', () => {
    const problems = (settings: Record<string, string>) => ruleProblems({ type: 2, settings, geoids: [] }).map((problem) => problem.path);
    expect(problems({ zones: '5,x' })).toEqual(['settings.zones']);
    expect(problems({ zoneMode: 'outside' })).toEqual(['settings.zones']);
    expect(problems({ zones: '5', zoneMode: 'around' })).toEqual(['settings.zoneMode']);
    expect(problems({ zones: '5', zoneMode: 'OUTSIDE' })).toEqual([]);
    expect(ruleProblems({ type: 2, settings: { zones: '5' }, geoids: [] }, () => false).map((problem) => problem.path)).toEqual(['settings.zones']);
  });
});
