import { describe, expect, it } from 'vitest';
import { evaluateVehicle, tickVehicle, type EvaluatorLookup } from '../../shared/pipeline/evaluate-vehicle';
import { deadlineToStore, heartbeatIntervalMs, silenceDeadline, silenceWindow } from '../../shared/pipeline/silence-deadline';
import { RULE_EVALUATORS } from '../../shared/rules/registry';
import type { StoredRule } from '../../shared/schemas/notification';
import { terminalMessageSchema, type TerminalMessage } from '../../shared/schemas/terminal-message';
import type { VehicleState } from '../../shared/schemas/vehicle-state';
import { resolveRules } from '../support/resolve-rules';
import { PIPELINE_RULE_DEFAULTS, storedRule } from '../support/fixtures';

/**
 * Schedules where events become alerts (pure part): office hours Mon-Fri 08:00-18:00 in Europe/Berlin, which is
 * UTC+1 in November, so 08:00 is 07:00Z and 18:00 is 17:00Z. 2026-11-23 is a Monday.
 */
const evaluatorFor: EvaluatorLookup = (type) => RULE_EVALUATORS[type];
const OFFICE = { schedule: 'Mon-Fri 08:00-18:00' };
const ZONE = { timezone: 'Europe/Berlin' } as const;
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const MIN = 60_000;
/** A rule in force through the weeks of these tests: until 2027-01-01, 306 days after T0. */
const IN_FORCE = { ...PIPELINE_RULE_DEFAULTS, validDays: 306 };

/** The rules as evaluate resolves them for vehicle 1 (RuleCache), and the zones that come with them (none here). */
const resolved = (...rules: StoredRule[]) => resolveRules(rules, 1, at('2026-11-23T00:00:00Z'));
const rulesOf = async (...rules: StoredRule[]) => (await resolved(...rules)).rules;
const { zones } = await resolved();

function drive(
  rules: Awaited<ReturnType<typeof rulesOf>>,
  from: string,
  seconds: number,
  every: number,
  speed: (second: number) => number,
  state?: VehicleState,
) {
  const start = at(from);
  const messages: TerminalMessage[] = [];
  for (let second = 0; second <= seconds; second += every) {
    messages.push(
      terminalMessageSchema.parse({
        vehicleId: 1,
        deviceTime: iso(start + second * 1000),
        latitude: 55.75,
        longitude: 37.62,
        speed: speed(second),
        parameters: {},
      }),
    );
  }
  const now = start + seconds * 1000 + 1000;
  return evaluateVehicle({ vehicleId: 1, state, messages, rules, context: { now, zones: zones }, evaluatorFor, vehicleClock: 'exact' });
}

const speeding = (settings: Record<string, string>) =>
  storedRule({ id: 1, vehicleIds: [1], ...ZONE, settings: { limit: '90', minDuration: '10', ...OFFICE, ...settings } }, IN_FORCE);

describe('schedule: events raised by messages', () => {
  it('lets a speeding that starts at 17:59 and lasts 3 minutes raise one alert', async () => {
    const outcome = drive(await rulesOf(speeding({})), '2026-11-23T16:59:00Z', 180, 10, () => 120);
    expect(outcome.events.map(({ event }) => [event.kind, event.time])).toEqual([['speeding', '2026-11-23T16:59:10.000Z']]);
  });

  it('lets an episode that starts inside alert even when it is confirmed after the close', async () => {
    const outcome = drive(await rulesOf(speeding({ minDuration: '120' })), '2026-11-23T16:59:30Z', 180, 10, () => 120);
    expect(outcome.events.map(({ event }) => [event.kind, event.time, event.values.since])).toEqual([
      ['speeding', '2026-11-23T17:01:30.000Z', '2026-11-23T16:59:30.000Z'],
    ]);
  });

  it('raises nothing for an episode entirely outside, and nothing for it when the schedule opens while it lasts', async () => {
    const night = drive(await rulesOf(speeding({})), '2026-11-23T19:00:00Z', 300, 10, () => 120);
    expect(night.events).toEqual([]);
    // the rule's state moved on all the same: it knows the episode
    expect(night.nextState?.rules['1']).toMatchObject({ alerted: true });

    const intoMorning = drive(await rulesOf(speeding({})), '2026-11-24T06:58:00Z', 600, 10, () => 120);
    expect(intoMorning.events).toEqual([]);
    expect(intoMorning.nextState?.rules['1']).toMatchObject({ alerted: true, start: at('2026-11-24T06:58:00Z') });
  });

  it('alerts for an episode confirmed after the opening though it began just before', async () => {
    const outcome = drive(await rulesOf(speeding({ minDuration: '120' })), '2026-11-24T06:59:00Z', 240, 10, () => 120);
    expect(outcome.events.map(({ event }) => event.time)).toEqual(['2026-11-24T07:01:00.000Z']);
  });

  it('raises nothing at the weekend and alerts again on Monday; a rule without a schedule alerts at any time', async () => {
    const saturday = drive(await rulesOf(speeding({})), '2026-11-28T10:00:00Z', 60, 10, () => 120);
    expect(saturday.events).toEqual([]);
    const monday = drive(await rulesOf(speeding({})), '2026-11-30T10:00:00Z', 60, 10, () => 120);
    expect(monday.events).toHaveLength(1);
    const always = drive(
      await rulesOf(storedRule({ id: 1, vehicleIds: [1], settings: { limit: '90', minDuration: '10' } }, IN_FORCE)),
      '2026-11-28T10:00:00Z',
      60,
      10,
      () => 120,
    );
    expect(always.events).toHaveLength(1);
  });

  it('reads the schedule in the rule timezone, a fixed offset in hours as well', async () => {
    // 08:00 at UTC+3 is 05:00Z
    const early = async (timezone: StoredRule['timezone']) =>
      drive(
        await rulesOf(storedRule({ id: 1, vehicleIds: [1], timezone, settings: { limit: '90', minDuration: '0', ...OFFICE } }, IN_FORCE)),
        '2026-11-24T05:10:00Z',
        20,
        10,
        () => 120,
      ).events;
    expect(await early(3)).toHaveLength(1);
    expect(await early('Europe/Berlin')).toEqual([]);
  });
});

const silence = storedRule({ id: 2, type: 7, name: 'silence', vehicleIds: [1], ...ZONE, settings: { minutes: '30', ...OFFICE } }, IN_FORCE);
const silenceRules = await rulesOf(silence);

describe('schedule: connection loss, raised by time passing', () => {
  const rules = silenceRules;
  const heartbeat = heartbeatIntervalMs(rules, 'coalesced');
  const seenAt = (time: string, rulesState: Record<string, unknown> = {}): VehicleState => ({
    vehicleId: 1,
    version: 4,
    lastDeviceTime: time,
    lastSeenAt: at(time),
    lastPosition: null,
    rules: rulesState,
  });
  const tick = (state: VehicleState, now: number) => tickVehicle({ vehicleId: 1, state, rules, context: { now, zones: zones }, evaluatorFor });

  it('holds a loss that begins after the close until the opening, and reports it then if still lost', () => {
    // last seen 17:50, lost at 18:20: outside
    const state = seenAt('2026-11-23T16:50:00Z');
    for (const now of ['2026-11-23T17:25:00Z', '2026-11-23T23:00:00Z', '2026-11-24T06:59:59Z']) {
      const held = tick(state, at(now));
      expect(held.events).toEqual([]);
      // nothing changes, so nothing is written and the loss is judged again later
      expect(held.nextState).toBeUndefined();
    }
    const opened = tick(state, at('2026-11-24T07:00:00Z'));
    expect(opened.events.map(({ event }) => [event.kind, event.time, event.values.lastSeenAt])).toEqual([
      ['connectionLost', '2026-11-24T07:00:00.000Z', '2026-11-23T16:50:00.000Z'],
    ]);
    const reported = opened.nextState!;
    expect(reported.rules['2']).toEqual({ silentSince: at('2026-11-23T16:50:00Z') });
    // a sweep that runs again, later or anew from the same state, adds nothing new
    expect(tick(reported, at('2026-11-24T07:05:00Z')).events).toEqual([]);
    expect(tick(state, at('2026-11-24T07:03:00Z')).events.map(({ event }) => event)).toEqual(opened.events.map(({ event }) => event));
  });

  it('reports nothing at the opening for a vehicle heard again before it', () => {
    // heard at 07:50 local after a silent night: lost only at 08:20, if still silent then
    const back = seenAt('2026-11-24T06:50:00Z');
    expect(tick(back, at('2026-11-24T07:00:00Z')).events).toEqual([]);
    expect(tick(back, at('2026-11-24T07:20:00Z')).events.map(({ event }) => event.time)).toEqual(['2026-11-24T07:20:00.000Z']);
  });

  it('reports a loss that began inside when the sweep notices it after the close, timed when it began', () => {
    const state = seenAt('2026-11-23T16:20:00Z');
    expect(tick(state, at('2026-11-23T17:30:00Z')).events.map(({ event }) => event.time)).toEqual(['2026-11-23T16:50:00.000Z']);
  });

  it('raises no restored alert outside the schedule, and forgets the loss all the same', async () => {
    const notify = await rulesOf(storedRule({ ...silence, settings: { ...silence.settings, notifyRestored: 'true' } }, IN_FORCE));
    const message = terminalMessageSchema.parse({ vehicleId: 1, deviceTime: '2026-11-24T05:00:00Z', latitude: 55.75, longitude: 37.62, speed: 0 });
    const night = evaluateVehicle({
      vehicleId: 1,
      state: seenAt('2026-11-23T12:00:00Z', { '2': { silentSince: at('2026-11-23T12:00:00Z') } }),
      messages: [message],
      rules: notify,
      context: { now: at('2026-11-24T05:00:01Z'), zones: zones },
      evaluatorFor,
      vehicleClock: 'exact',
    });
    expect(night.events).toEqual([]);
    expect(night.nextState?.rules).toEqual({});
  });

  it('puts the silence deadline at the opening (plus one coalesced heartbeat) for a loss that would begin outside', () => {
    expect(silenceDeadline(seenAt('2026-11-23T16:50:00Z'), rules, 'coalesced')).toBe(at('2026-11-24T07:00:00Z') + heartbeat);
    expect(silenceDeadline(seenAt('2026-11-23T10:00:00Z'), rules, 'coalesced')).toBe(at('2026-11-23T10:30:00Z') + heartbeat);
    // Friday evening: Monday morning
    expect(silenceDeadline(seenAt('2026-11-27T17:00:00Z'), rules, 'coalesced')).toBe(at('2026-11-30T07:00:00Z') + heartbeat);
  });

  it('keeps the stored deadline while the vehicle reports through the night, so heartbeats do not rewrite the index', () => {
    let stored: number | null = null;
    const deadlines = new Set<number | null>();
    for (let minute = 0; minute < 10 * 60; minute += 3) {
      const seen = at('2026-11-23T19:00:00Z') + minute * MIN;
      stored = deadlineToStore(stored, silenceWindow(seenAt(iso(seen)), rules, 'coalesced'), seen);
      deadlines.add(stored);
    }
    expect([...deadlines]).toEqual([at('2026-11-24T07:00:00Z') + heartbeat]);
  });
});
