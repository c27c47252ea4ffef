import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeleteMessageBatchCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { point, polygon } from '@turf/helpers';
import { sqsClient } from '../../shared/aws/clients';
import { geozoneMeasures } from '../../shared/api/geozone-measures';
import { initialValidity } from '../../shared/rules/lifecycle';
import { RULE_EVALUATORS } from '../../shared/rules/registry';
import type { RuleEvent } from '../../shared/schemas/alert';
import type { Geozone } from '../../shared/schemas/geozone';
import type { StoredRule } from '../../shared/schemas/notification';
import { parseTerminalMessage, type TerminalMessage } from '../../shared/schemas/terminal-message';
import type { Emulators } from '../../infra/local/emulators';
import { demoRules } from '../../infra/local/seed';
import { demoFleet, depotYardRing, simulatedMessage, simulatedSpan, startSimulator } from '../../infra/local/simulator';
import { startTestEmulators } from '../support/emulators';
import { ruleResolver } from '../support/resolve-rules';

const START = Date.parse('2026-03-02T06:00:00.000Z');
const DEMO_ROTA_ID = '5f0c8a52-8d1e-4c6b-9a57-0d3f6c1e0a01.AAAAAAAAAAAAAAAAAAAAAA';
const fleet = demoFleet(3);
const [speeder, courier] = fleet;

function parsedSpan(fromSecond: number, toSecond: number): TerminalMessage[] {
  return simulatedSpan(fleet, START, fromSecond, toSecond).map((input) => {
    const result = parseTerminalMessage(JSON.stringify(input), START + toSecond * 1000);
    if (!result.ok) throw new Error(`simulated message rejected: ${result.reason}`);
    return result.message;
  });
}

function distanceMetres(a: TerminalMessage, b: TerminalMessage): number {
  const rad = Math.PI / 180;
  const h =
    Math.sin(((b.latitude - a.latitude) * rad) / 2) ** 2 +
    Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(((b.longitude - a.longitude) * rad) / 2) ** 2;
  return 2 * 6_371_000 * Math.asin(Math.sqrt(h));
}

/** Feeds a trace through the real evaluators of the demo rules, as the evaluate function would, without I/O. */
async function evaluateDemoRules(messages: TerminalMessage[]): Promise<Array<RuleEvent & { vehicleId: number; ruleId: number }>> {
  const ring = depotYardRing();
  const geometry = { type: 'Polygon' as const, coordinates: [ring] };
  const zone: Geozone = {
    id: 1,
    name: 'Depot yard',
    type: 'polygon',
    parentId: '5f0c8a52-8d1e-4c6b-9a57-0d3f6c1e0a01',
    radius: null,
    description: '',
    geometry,
    ...geozoneMeasures(geometry, null),
    createDate: new Date(START).toISOString(),
    version: 1,
  };
  const owner = { agentId: zone.parentId, userId: '7b1d2e34-5a6f-4c70-8e91-a2b3c4d5e6f7' };
  const stamp = new Date(START - 60_000).toISOString();
  const rules: StoredRule[] = demoRules(
    owner,
    fleet.map((vehicle) => vehicle.vehicleId),
    zone.id,
    DEMO_ROTA_ID,
  ).map((body, index) => ({
    ...body,
    id: index + 1,
    parentName: 'Demo Logistics',
    version: 1,
    createdAt: stamp,
    updatedAt: stamp,
    ...initialValidity(body, START - 60_000),
  }));
  const resolver = ruleResolver(rules, [zone]);
  const states = new Map<string, unknown>();
  const events: Array<RuleEvent & { vehicleId: number; ruleId: number }> = [];
  for (const message of messages) {
    const now = Date.parse(message.deviceTime);
    const vehicle = await resolver.forVehicle(message.vehicleId, now);
    for (const compiled of vehicle.rules) {
      const key = `${message.vehicleId}/${compiled.rule.id}`;
      const result = RULE_EVALUATORS[compiled.rule.type]!.evaluate(compiled, states.get(key), message, { now, zones: vehicle.zones });
      states.set(key, JSON.parse(JSON.stringify(result.state ?? null)) ?? undefined);
      events.push(...result.events.map((event) => ({ ...event, vehicleId: message.vehicleId, ruleId: compiled.rule.id })));
    }
  }
  return events;
}

describe('fleet simulator', () => {
  it('produces valid terminal messages with realistic fields, one per vehicle per second', () => {
    const messages = parsedSpan(0, 600);
    expect(messages).toHaveLength(600 * fleet.length);
    for (const message of messages) {
      expect(message.satellites).toBeGreaterThanOrEqual(4);
      expect(message.course).toBeGreaterThanOrEqual(0);
      expect(message.parameters).toHaveProperty('ignition');
      expect(Number(message.parameters.fuel)).toBeGreaterThan(0);
      expect(Number(message.parameters.mileage)).toBeGreaterThan(0);
    }
    expect(messages[0]!.deviceTime).toBe(new Date(START).toISOString());
    expect(messages.filter((message) => message.vehicleId === speeder!.vehicleId).map((message) => message.deviceTime)).toEqual(
      Array.from({ length: 600 }, (_, second) => new Date(START + second * 1000).toISOString()),
    );
  });

  it('adds ordinary vehicles beyond the first three: unique ids, spread along their loop, within the limit', () => {
    const large = demoFleet(8);
    expect(new Set(large.map((vehicle) => vehicle.vehicleId)).size).toBe(8);
    const extras = large.slice(3);
    const starts = extras.map((vehicle) => simulatedMessage(vehicle, START, 0));
    expect(new Set(starts.map((message) => `${message.latitude},${message.longitude}`)).size).toBe(extras.length);
    for (const vehicle of extras) {
      for (let second = 0; second < 600; second += 7) expect(simulatedMessage(vehicle, START, second).speed).toBeLessThan(90);
    }
  });

  it('is deterministic: the same second always gives the same message', () => {
    expect(simulatedMessage(courier!, START, 1234)).toEqual(simulatedMessage(courier!, START, 1234));
    expect(simulatedMessage(courier!, START, 1234)).not.toEqual(simulatedMessage(courier!, START, 1235));
  });

  it('moves each vehicle as far each second as its reported speed says', () => {
    const messages = parsedSpan(0, 300);
    for (const vehicle of fleet) {
      const trace = messages.filter((message) => message.vehicleId === vehicle.vehicleId);
      let travelled = 0;
      let fromSpeed = 0;
      for (let second = 1; second < trace.length; second++) {
        travelled += distanceMetres(trace[second - 1]!, trace[second]!);
        fromSpeed += (trace[second - 1]!.speed + trace[second]!.speed) / 2 / 3.6;
      }
      expect(travelled).toBeGreaterThan(0);
      expect(Math.abs(travelled - fromSpeed) / fromSpeed).toBeLessThan(0.05);
    }
  });

  it('has one vehicle above 90 km/h for a sustained stretch in the first minute, and only that one', () => {
    const messages = parsedSpan(0, 60);
    const speederTrace = messages.filter((message) => message.vehicleId === speeder!.vehicleId);
    expect(speederTrace[0]!.speed).toBeLessThan(90);
    let longest = 0;
    let run = 0;
    for (const message of speederTrace) {
      run = message.speed > 90 ? run + 1 : 0;
      longest = Math.max(longest, run);
    }
    expect(longest).toBeGreaterThanOrEqual(15);
    expect(longest).toBeLessThanOrEqual(25);
    expect(messages.filter((message) => message.vehicleId !== speeder!.vehicleId && message.speed > 90)).toEqual([]);
  });

  it('trips the demo speeding rule within the first minute, then once per episode', async () => {
    const events = await evaluateDemoRules(parsedSpan(0, 200));
    const speeding = events.filter((event) => event.kind === 'speeding');
    expect(speeding.length).toBeGreaterThanOrEqual(4);
    expect(new Set(speeding.map((event) => event.vehicleId))).toEqual(new Set([speeder!.vehicleId]));
    const first = Date.parse(speeding[0]!.time) - START;
    expect(first).toBeLessThan(30_000);
    expect(speeding[0]!.values).toMatchObject({ limit: 90 });
    expect(speeding[0]!.speed).toBeGreaterThan(90);
  });

  it('trips the demo geozone-exit rule for the courier; the idle, parking, movement and device-alarm rules for the van; and nothing else', async () => {
    const events = await evaluateDemoRules(parsedSpan(0, 500));
    const van = fleet[2]!;
    const exits = events.filter((event) => event.kind === 'zoneExit');
    expect(new Set(exits.map((event) => event.vehicleId))).toEqual(new Set([courier!.vehicleId]));
    expect(Date.parse(exits[0]!.time) - START).toBeLessThan(60_000);
    const vans = events.filter((event) => event.vehicleId === van.vehicleId && event.kind !== 'deviceAlarm');
    expect(vans.map((event) => event.kind)).toEqual(['idle', 'parking', 'parkingEnded', 'movement']);
    expect(new Set(events.filter((event) => event.kind === 'deviceAlarm').map((event) => event.vehicleId))).toEqual(new Set([van.vehicleId]));
    expect(new Set(events.map((event) => event.kind))).toEqual(
      new Set(['speeding', 'zoneExit', 'idle', 'parking', 'parkingEnded', 'movement', 'deviceAlarm']),
    );
  });

  it('parks the van with the engine off after its idle, then tows it away with the ignition still off', async () => {
    const van = fleet[2]!;
    const trace = parsedSpan(0, 500).filter((message) => message.vehicleId === van.vehicleId);
    const parkedFrom = trace.findIndex((message) => message.parameters.ignition === '0');
    const towedFrom = trace.findIndex((message, index) => index > parkedFrom && message.speed > 0);
    expect(towedFrom - parkedFrom).toBeGreaterThanOrEqual(61);
    const drivesFrom = trace.findIndex((message, index) => index > towedFrom && message.parameters.ignition === '1');
    const tow = trace.slice(towedFrom, drivesFrom).filter((message) => message.speed > 0);
    expect(tow.length).toBeGreaterThanOrEqual(30);
    expect(tow.every((message) => message.parameters.ignition === '0')).toBe(true);
    expect(distanceMetres(trace[parkedFrom]!, tow.at(-1)!)).toBeGreaterThan(100);
    const events = (await evaluateDemoRules(trace)).filter((event) => event.kind === 'parking' || event.kind === 'movement');
    expect(events.map((event) => [event.kind, Date.parse(event.time) - Date.parse(trace[parkedFrom]!.deviceTime)])).toEqual([
      ['parking', 60_000],
      ['movement', expect.any(Number)],
    ]);
    expect(Date.parse(events[1]!.time)).toBeGreaterThan(Date.parse(trace[towedFrom]!.deviceTime));
    expect(events[1]!.values).toMatchObject({ ignitionOff: true, stoppedMinutes: 1 });
  });

  it('has the van brake harshly at the end of each hop: one device alarm per braking, though the terminal reports it for 3 s', async () => {
    const van = fleet[2]!;
    const span = parsedSpan(0, 900);
    const braking = span.filter((message) => message.vehicleId === van.vehicleId && message.parameters.io253 === '2');
    // one braking per cycle of the van (hop, stop, park and tow: 490 s), each reported by consecutive messages
    const starts = braking.filter(
      (message, index) => index === 0 || Date.parse(message.deviceTime) - Date.parse(braking[index - 1]!.deviceTime) > 1_000,
    );
    expect(starts).toHaveLength(2);
    expect(braking.length).toBeGreaterThan(starts.length);
    const alarms = (await evaluateDemoRules(span)).filter((event) => event.kind === 'deviceAlarm');
    expect(alarms.map((event) => [event.vehicleId, event.time, event.values.alarm])).toEqual(
      starts.map((message) => [van.vehicleId, message.deviceTime, 'harshBraking']),
    );
  });

  it('trips the demo continuous-driving rule for the vehicles that never rest long, at the times its settings give', async () => {
    const demo = demoRules(
      { agentId: '5f0c8a52-8d1e-4c6b-9a57-0d3f6c1e0a01', userId: '7b1d2e34-5a6f-4c70-8e91-a2b3c4d5e6f7' },
      [],
      1,
      DEMO_ROTA_ID,
    ).find((rule) => rule.type === 15)!;
    const limitSeconds = Number(demo.settings.hours) * 3600;
    const warnSeconds = limitSeconds - Number(demo.settings.warnBefore) * 60;
    const events = (await evaluateDemoRules(parsedSpan(0, limitSeconds + 300))).filter((event) => event.kind.startsWith('drivingLimit'));
    // the speeder never drops to the rule's 5 km/h: its driving is the time since its first message
    const speederEvents = events.filter((event) => event.vehicleId === speeder!.vehicleId);
    expect(speederEvents.map((event) => [event.kind, event.time])).toEqual([
      ['drivingLimitNear', new Date(START + warnSeconds * 1000).toISOString()],
      ['drivingLimit', new Date(START + limitSeconds * 1000).toISOString()],
    ]);
    // the courier's 30-s stops do not make a rest: it is warned too, later; the van rests at every stop
    expect(events.filter((event) => event.vehicleId === courier!.vehicleId).map((event) => event.kind)).toContain('drivingLimitNear');
    expect(events.filter((event) => event.vehicleId === fleet[2]!.vehicleId)).toEqual([]);
  });

  it('drives the courier out of the depot yard and back in on every round', () => {
    const yard = polygon([depotYardRing()]);
    const trace = parsedSpan(0, 900).filter((message) => message.vehicleId === courier!.vehicleId);
    const inside = trace.map((message) => booleanPointInPolygon(point([message.longitude, message.latitude]), yard));
    expect(inside[0]).toBe(true);
    const exits = inside.filter((now, index) => index > 0 && inside[index - 1] && !now).length;
    const entries = inside.filter((now, index) => index > 0 && !inside[index - 1] && now).length;
    expect(exits).toBeGreaterThanOrEqual(2);
    expect(entries).toBeGreaterThanOrEqual(1);
  });
});

describe('fleet simulator sending to the input queue', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startTestEmulators('simulator');
  });
  afterAll(async () => emulators.stop());

  it('sends each simulated second once, grouped by vehicle, driven by an injected clock', async () => {
    let now = START;
    const simulator = startSimulator({ queueUrl: emulators.queues.input, fleet, now: () => now, tickMs: 5 });
    const received: Array<{ body: TerminalMessage; group: string | undefined }> = [];
    const drain = async () => {
      for (let round = 0; round < 20; round++) {
        const { Messages = [] } = await sqsClient().send(
          new ReceiveMessageCommand({
            QueueUrl: emulators.queues.input,
            MaxNumberOfMessages: 10,
            VisibilityTimeout: 300,
            MessageSystemAttributeNames: ['All'],
          }),
        );
        if (Messages.length === 0 && received.length > 0) return;
        for (const message of Messages) {
          const parsed = parseTerminalMessage(message.Body!, now);
          if (!parsed.ok) throw new Error(parsed.reason);
          received.push({ body: parsed.message, group: message.Attributes?.MessageGroupId });
        }
        // a FIFO queue holds a group back while its earlier messages are in flight
        if (Messages.length > 0) {
          await sqsClient().send(
            new DeleteMessageBatchCommand({
              QueueUrl: emulators.queues.input,
              Entries: Messages.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle! })),
            }),
          );
        }
      }
    };
    for (let attempt = 0; attempt < 200 && simulator.secondsSent < 1; attempt++) await new Promise((resolve) => setTimeout(resolve, 5));
    now += 4_000;
    for (let attempt = 0; attempt < 200 && simulator.secondsSent < 5; attempt++) await new Promise((resolve) => setTimeout(resolve, 5));
    await simulator.stop();
    await drain();

    expect(simulator.secondsSent).toBe(5);
    expect(received).toHaveLength(5 * fleet.length);
    for (const { body, group } of received) expect(group).toBe(String(body.vehicleId));
    const speederTimes = received.filter(({ body }) => body.vehicleId === speeder!.vehicleId).map(({ body }) => body.deviceTime);
    expect(speederTimes).toEqual([0, 1, 2, 3, 4].map((second) => new Date(START + second * 1000).toISOString()));
  });
});
