import { RULE_EVALUATORS } from '../../shared/rules/registry';
import type { StoredRule, RuleType } from '../../shared/schemas/notification';
import type { TerminalMessage } from '../../shared/schemas/terminal-message';
import { REGION, syntheticZones } from './synthetic-zones';
import type { BenchSection } from './section';
import { bestTimes, formatTable, seededRandom } from './timing';
import { ruleResolver } from '../support/resolve-rules';
import { advanceGate, gateSuppression, zoneConditionOf, type ZoneSuppression } from '../../shared/pipeline/zone-gate';
import type { CompiledRule } from '../../shared/rules/types';
import type { RuleEvent } from '../../shared/schemas/alert';
import { suppressionOf } from '../../shared/pipeline/event-admission';
import { compileSilence, VehicleSilences } from '../../shared/pipeline/maintenance-silence';
import { storedSilenceSchema } from '../../shared/schemas/silence';
import { T0 } from '../support/fixtures';

type ZoneCondition = NonNullable<ReturnType<typeof zoneConditionOf>>;
type ZoneGate = ReturnType<typeof advanceGate>;

const VEHICLES = 10_000;
const CLIENT_ID = '7d0b1c3e-2f4a-4b5c-8d6e-9f0a1b2c3d4e';
const ROUNDS = 20;
const DAY = 86_400_000;

function rule(id: number, type: RuleType, vehicleIds: number[], settings: Record<string, string>, geoids: number[] = []): StoredRule {
  const time = new Date(T0 - DAY).toISOString();
  return {
    id,
    type,
    vehicleIds,
    geoids,
    settings,
    name: `rule ${id}`,
    active: true,
    userId: null,
    parentId: CLIENT_ID,
    parentName: '',
    fieldids: [],
    toEmail: false,
    recipientIds: [],
    enableSideEmails: false,
    sideEmails: [],
    toTelegram: false,
    telegramLocation: false,
    telegrams: [],
    toMobile: false,
    toSms: false,
    toClient: false,
    stored: false,
    kind: null,
    activationMode: 0,
    activationTime: null,
    timezone: 3,
    validity: 90,
    autoProlongation: false,
    version: 1,
    createdAt: time,
    updatedAt: time,
    validFrom: time,
    expiresAt: new Date(T0 + 30 * DAY).toISOString(),
  };
}

/**
 * A fleet of 10,000 vehicles and about 4.6 rules per message: every vehicle has a speeding rule (some with zone
 * limits) and a geozone rule over five of 1,000 zones; half a drain rule; a quarter each idle, panic, discrete and
 * analog sensor, maintenance and connection-loss rules; an eighth each parking, movement, continuous driving,
 * device alarm, and an idle rule with a zone condition (only outside three zones). Each vehicle reports
 * every 30 s; its speed wanders smoothly between standstill and 125 km/h, so episodes of speeding and idling start
 * and end along the run.
 */
export function benchScenario() {
  const random = seededRandom(42);
  const zones = syntheticZones(1_000, random);
  const rules: StoredRule[] = [];
  let id = 1;
  const groups = (size: number, share: number) => {
    const out: number[][] = [];
    const covered = Math.floor(VEHICLES * share);
    for (let start = 1; start <= covered; start += size) out.push(Array.from({ length: Math.min(size, covered - start + 1) }, (_, i) => start + i));
    return out;
  };
  for (const [g, vehicles] of groups(500, 1).entries())
    rules.push(
      g % 2
        ? rule(id++, 2, vehicles, { limit: '90' })
        : rule(id++, 2, vehicles, { limit: '80', zoneLimits: `${g + 1}:40,${g + 2}:60` }, [g + 1, g + 2]),
    );
  for (const [g, vehicles] of groups(100, 1).entries())
    rules.push(
      rule(
        id++,
        0,
        vehicles,
        { margin: '30' },
        Array.from({ length: 5 }, (_, i) => ((g * 5 + i) % 1_000) + 1),
      ),
    );
  for (const vehicles of groups(500, 0.5)) rules.push(rule(id++, 4, vehicles, {}));
  for (const vehicles of groups(500, 0.25)) {
    rules.push(rule(id++, 11, vehicles, {}), rule(id++, 6, vehicles, {}), rule(id++, 8, vehicles, { parameter: 'din1', edge: 'both' }));
    rules.push(rule(id++, 9, vehicles, { parameter: 'ain1', min: '0', max: '30' }), rule(id++, 12, vehicles, {}), rule(id++, 7, vehicles, {}));
  }
  // an eighth of the fleet, in its second half, each parking, movement, continuous driving, device alarm and an
  // idle rule with a zone condition
  for (const [g, eighth] of groups(500, 0.125).entries()) {
    const others = eighth.map((vehicleId) => vehicleId + VEHICLES / 2);
    rules.push(rule(id++, 13, others, { minutes: '5', notifyEnd: 'true' }), rule(id++, 14, others, { minStop: '5', distance: '100' }));
    rules.push(rule(id++, 15, others, { hours: '0.5', warnBefore: '5', restMinutes: '10' }), rule(id++, 16, others, { harshParameter: 'din1' }));
    rules.push(rule(id++, 11, others, { zones: `${g + 1},${g + 2},${g + 3}`, zoneMode: 'outside' }));
  }

  const home = Array.from({ length: VEHICLES + 1 }, () => ({
    lat: REGION.minLat + random() * (REGION.maxLat - REGION.minLat),
    lon: REGION.minLon + random() * (REGION.maxLon - REGION.minLon),
    mileage: 5_000 + random() * 200_000,
    fuel: 50 + random() * 300,
    speed: random() * 100,
    door: false,
  }));
  const bodies: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (let vehicleId = 1; vehicleId <= VEHICLES; vehicleId++) {
      const v = home[vehicleId]!;
      // speed wanders smoothly (some vehicles stop, a few exceed the limits); doors open now and then
      v.speed = Math.min(125, Math.max(0, v.speed + (random() - 0.5) * 30));
      const speed = v.speed < 4 ? 0 : Math.round(v.speed);
      v.lat += (speed / 3_600) * 30 * (random() - 0.5) * 0.02;
      v.lon += (speed / 3_600) * 30 * (random() - 0.5) * 0.03;
      v.mileage += (speed / 3_600) * 30;
      v.fuel -= (speed / 3_600) * 30 * 0.3 + (random() - 0.5) * 0.8;
      if (random() < 0.02) v.door = !v.door;
      bodies.push(
        JSON.stringify({
          vehicleId,
          deviceTime: new Date(T0 + round * 30_000 + Math.floor(random() * 20_000)).toISOString(),
          serverTime: new Date(T0 + round * 30_000 + 25_000).toISOString(),
          latitude: v.lat,
          longitude: v.lon,
          speed,
          course: Math.floor(random() * 360),
          altitude: 150,
          satellites: 11,
          voltage: 27.4,
          parameters: {
            fuel: v.fuel.toFixed(1),
            ignition: speed > 0 || vehicleId % 3 !== 0 ? '1' : '0',
            panic: '0',
            din1: v.door ? '1' : '0',
            ain1: (20 + random() * 12).toFixed(2),
            mileage: v.mileage.toFixed(1),
            gsm: '4',
            hdop: '0.8',
            pwr_ext: '27.41',
            engine_temp: '88',
          },
        }),
      );
    }
  }
  return { zones, rules, bodies };
}

export async function runEvaluationBench(): Promise<BenchSection> {
  const { zones, rules, bodies } = benchScenario();
  const messages = bodies.map((body) => JSON.parse(body) as TerminalMessage);
  const now = T0 + ROUNDS * 30_000;
  // the rules of every vehicle, resolved once as evaluate resolves a batch's (RuleCache); evaluation is what is timed
  const resolved = await ruleResolver(rules, zones).forVehicles(new Set(messages.map((message) => message.vehicleId)), now);
  const resolvedIds = new Set([...resolved.values()].flatMap((vehicle) => vehicle.rules.map((compiled) => compiled.rule.id)));
  const leftOut = rules.filter((rule) => !resolvedIds.has(rule.id)).map((rule) => rule.id);
  if (leftOut.length > 0) throw new Error(`bench rules left out of evaluation: ${leftOut.join(', ')}`);

  // one active maintenance silence for the fleet's client (a hundred vehicles in the workshop), asked for every
  // event as evaluate asks it, after the schedule and the zone condition
  const silence = compileSilence(
    storedSilenceSchema.parse({
      id: `${CLIENT_ID}.${'w'.repeat(22)}`,
      parentId: CLIENT_ID,
      vehicleIds: Array.from({ length: 100 }, (_, index) => 1 + index * 100),
      from: new Date(T0 - DAY).toISOString(),
      to: new Date(T0 + DAY).toISOString(),
      reason: 'workshop',
      createdAt: new Date(T0 - DAY).toISOString(),
      createdBy: 'bench',
    }),
  )!;
  const silences = new VehicleSilences([CLIENT_ID], [silence], new Map());
  let silenced = 0;
  const admitted = (entry: CompiledRule, vehicleId: number, events: readonly RuleEvent[], zone?: ZoneSuppression) => {
    let count = 0;
    for (const event of events) {
      const reason = suppressionOf(entry, event, zone, () => silences.match(entry.rule, vehicleId, Date.parse(event.time), null)?.id);
      if (reason === null) count++;
      else if (reason === 'silenced') silenced++;
    }
    return count;
  };

  const conditions: Record<number, ZoneCondition | undefined> = {};
  for (const vehicle of resolved.values()) for (const compiled of vehicle.rules) conditions[compiled.rule.id] = zoneConditionOf(compiled);

  let sink = 0;
  const parse = () => {
    for (const body of bodies) sink += (JSON.parse(body) as { speed: number }).speed;
  };
  let events = 0;
  let evaluations = 0;
  const evaluate = () => {
    const states = new Map<number, unknown[]>();
    const gateStates = new Map<number, Record<number, ZoneGate>>();
    events = 0;
    evaluations = 0;
    silenced = 0;
    for (const message of messages) {
      const { rules: compiled, zones: vehicleZones } = resolved.get(message.vehicleId)!;
      const context = { now, zones: vehicleZones };
      let vehicleStates = states.get(message.vehicleId);
      if (vehicleStates === undefined) states.set(message.vehicleId, (vehicleStates = []));
      for (let i = 0; i < compiled.length; i++) {
        const entry = compiled[i]!;
        const result = RULE_EVALUATORS[entry.rule.type]!.evaluate(entry, vehicleStates[i], message, context);
        vehicleStates[i] = result.state;
        // a zone condition is judged where events become alerts, with its own hysteresis state, as evaluate does
        const condition = conditions[entry.rule.id];
        if (condition) {
          const gates = (gateStates.get(message.vehicleId) ?? gateStates.set(message.vehicleId, {}).get(message.vehicleId))!;
          const gate = (gates[entry.rule.id] = advanceGate(condition, gates[entry.rule.id], message, context));
          events += admitted(entry, message.vehicleId, result.events, gateSuppression(condition, gate));
        } else if (result.events.length > 0) {
          events += admitted(entry, message.vehicleId, result.events);
        }
      }
      evaluations += compiled.length;
    }
  };
  const [parseNs, evaluateNs] = bestTimes([parse, evaluate]) as [number, number];
  if (sink < 0) throw new Error('unreachable');
  const perMessage = (ns: number) => `${(ns / messages.length / 1000).toFixed(2)} µs`;
  const lines = [
    `(a) evaluation per message: ${VEHICLES.toLocaleString('en')} vehicles, ${rules.length} rules, ${messages.length.toLocaleString('en')} messages, ` +
      `${(evaluations / messages.length).toFixed(1)} rules per message, ${events} events, ${silenced} held back by one active maintenance silence (target ≤ 1.0×)`,
    ...formatTable(
      ['step', 'per message', 'ratio'],
      [
        ['JSON.parse (baseline)', perMessage(parseNs), '1.00×'],
        ['rule evaluation', perMessage(evaluateNs), `${(evaluateNs / parseNs).toFixed(2)}×`],
      ],
    ),
  ];
  return {
    lines,
    figures: { evaluationOverJsonParse: Number((evaluateNs / parseNs).toFixed(3)), evaluationNsPerMessage: Math.round(evaluateNs / messages.length) },
  };
}
