import { isDeepStrictEqual } from 'node:util';
import type { RuleEvent } from '../schemas/alert';
import type { RuleType } from '../schemas/notification';
import type { TerminalMessage } from '../schemas/terminal-message';
import type { VehicleState, VisitsState, ZoneGates } from '../schemas/vehicle-state';
import type { CompiledRule, EvaluationContext, RuleEvaluator } from '../rules/types';
import type { VehicleClock } from '../config';
import { advanceOpenVisits, EMPTY_VISITS, hasVisits, journalMessage, type Journal, type VisitRecord } from '../rules/visit-journal';
import { scheduledTickEvents } from './schedule-gate';
import { holdOf, maxEventAgeMs, tooOldAge, type Hold, type Suppression } from './event-admission';
import { NO_SILENCES, type Position, type VehicleSilences } from './maintenance-silence';
import { judgeWithMessage, judgeWithoutMessage, stillLasts } from './silenced-episodes';
import { withoutOpenRun, type SuppressedLogEntry } from './noise-budget';
import { NoiseBudgets, type RaisedEvent, type SilencedEvent } from './noise-budgets';
import { heartbeatIntervalMs, storedClock } from './silence-deadline';
import { advanceGate, gateSuppression, staleSuppression, zoneConditionOf } from './zone-gate';

/** The evaluator of a rule type, if fleetwatch has one. */
export type EvaluatorLookup = (type: RuleType) => RuleEvaluator | undefined;

/** Where an event happened, or else where the vehicle was last seen: where a silence by geozone judges it. */
function positionOf(event: RuleEvent, fallback: Position | null): Position | null {
  return event.latitude !== null && event.longitude !== null ? { latitude: event.latitude, longitude: event.longitude } : fallback;
}

export interface VehicleOutcome {
  /** The state to store, or undefined when nothing worth a write changed. Its version is not yet bumped. */
  nextState: VehicleState | undefined;
  events: RaisedEvent[];
  staleMessages: number;
  /** Evaluations that raised no alert, with the reason (event-admission.ts). */
  suppressed: Suppression[];
  /** Events a maintenance silence held back: kept in the history (never delivered) when their rule stores alerts. */
  silenced?: SilencedEvent[];
  /** Runs of suppressions that closed, for the rules' suppressed logs. */
  suppressedLog: SuppressedLogEntry[];
  /** Rule evaluations that threw; the rule's state is kept as it was. */
  failures: { ruleId: number; error: unknown }[];
  /** Geozone visits opened or closed (only with a state to write). */
  visits?: VisitRecord[];
}

export interface VehicleInput {
  vehicleId: number;
  state: VehicleState | undefined;
  messages: readonly TerminalMessage[];
  rules: readonly CompiledRule[];
  context: EvaluationContext;
  evaluatorFor: EvaluatorLookup;
  /** The zones of the owners' clients, journaled as visits after the rules; absent: the journal is left as it is. */
  journal?: Journal;
  /** How the vehicle's clock is stored (config: VEHICLE_CLOCK) when its messages are not all stamped. */
  vehicleClock: VehicleClock;
  /** Seconds a message may be old for its events to become alerts where a rule sets no `maxEventAge` (config: MAX_EVENT_AGE_SECONDS); absent or 0: any age. */
  maxEventAgeSeconds?: number;
  /** Epoch ms the messages' ages are taken at; default `context.now` (the preview's `evaluatedAt`). */
  agedAt?: number;
  /** The maintenance silences that may hold back the vehicle's events; absent: none. */
  silences?: VehicleSilences;
}

/**
 * Runs one vehicle's messages (already in device-time order) through the rules that apply to it. Pure: the
 * outcome depends only on the arguments, so a redelivered batch evaluated against the state it already
 * produced changes nothing and raises nothing new.
 *
 * A message at or before the state's `lastDeviceTime` is stale: it never moves the vehicle's clock or rolls
 * a rule's state back; it can only raise (and remember) what the evaluator's `evaluateStale` allows. With the
 * `exact` vehicle clock every message that moves the clock is written, so the stored `lastDeviceTime` is the
 * newest device time evaluated. With `coalesced`, heartbeat-only changes are written once per interval, so the
 * stored clock may trail the newest message by up to one interval of messages that changed no rule state, and
 * a late message within that window is evaluated as a current reading.
 *
 * A message stamped by its producer (`previousDeviceTime`, the newest device time sent before it) is also late
 * at or before its stamp, so it is judged exactly whatever the stored clock trails. A vehicle whose messages
 * are all stamped is therefore written as under `coalesced` (rule-state changes and heartbeats), and its state
 * says so (`stamped`), since the sweep must then allow for a last-seen one heartbeat old.
 */
export function evaluateVehicle(input: VehicleInput): VehicleOutcome {
  const { vehicleId, state, messages, rules, context, evaluatorFor, journal, vehicleClock } = input;
  const agedAt = input.agedAt ?? context.now;
  const ageLimits = rules.map((compiled) => maxEventAgeMs(compiled, input.maxEventAgeSeconds ?? 0));
  const silences = input.silences ?? NO_SILENCES;
  let visits: VisitsState = state?.visits ?? EMPTY_VISITS;
  const visitRecords: VisitRecord[] = [];
  const previousRules = state?.rules ?? {};
  const ruleStates: Record<string, unknown> = {};
  const previousGates = state?.zoneGates ?? {};
  const gates: ZoneGates = {};
  for (const { rule } of rules) {
    const key = String(rule.id);
    if (key in previousRules) ruleStates[key] = previousRules[key];
    if (key in previousGates) gates[key] = previousGates[key]!;
  }
  let lastDeviceTime = state?.lastDeviceTime ?? null;
  let lastDeviceMs = lastDeviceTime === null ? Number.NEGATIVE_INFINITY : Date.parse(lastDeviceTime);
  let lastSeenAt = state?.lastSeenAt ?? null;
  let lastPosition = state?.lastPosition ?? null;
  const events: RaisedEvent[] = [];
  const failures: VehicleOutcome['failures'] = [];
  const budgets = new NoiseBudgets(state?.noise, (key) => key in ruleStates || rules.some(({ rule }) => String(rule.id) === key), events);
  let staleMessages = 0;
  const stamped = messages.length > 0 && messages.every((message) => message.previousDeviceTime !== undefined);

  for (const message of messages) {
    const deviceMs = Date.parse(message.deviceTime);
    // the stamp judges its own message only: the newer message it names may still come later in this batch,
    // which is in device-time order, so it never moves the clock
    const stamp = message.previousDeviceTime === undefined ? Number.NEGATIVE_INFINITY : Date.parse(message.previousDeviceTime);
    const stale = deviceMs <= Math.max(lastDeviceMs, stamp);
    if (stale) staleMessages++;
    const ageMs = agedAt - deviceMs;
    for (let index = 0; index < rules.length; index++) {
      const compiled = rules[index]!;
      const evaluator = evaluatorFor(compiled.rule.type);
      if (!evaluator) continue;
      const key = String(compiled.rule.id);
      try {
        const condition = zoneConditionOf(compiled);
        if (condition && !stale) gates[key] = advanceGate(condition, gates[key], message, context);
        const step = stale ? evaluator.evaluateStale : evaluator.evaluate;
        if (!step) {
          budgets.suppress(compiled, message.deviceTime, 'staleMessage');
          continue;
        }
        const before = ruleStates[key];
        const here = { latitude: message.latitude, longitude: message.longitude };
        const silenceAt = (time: number, position: Position | null) => silences.match(compiled.rule, vehicleId, time, position);
        const oldAge = tooOldAge(ageLimits[index]!, ageMs);
        const age = oldAge === undefined ? undefined : Math.floor(oldAge / 1000);
        const held = (event: RuleEvent) =>
          holdOf(
            compiled,
            event,
            condition && (stale ? staleSuppression(condition, event, message, context.zones) : gateSuppression(condition, gates[key])),
            () => silenceAt(Date.parse(event.time), positionOf(event, here))?.id,
            age,
          );
        const at = { time: deviceMs, latitude: message.latitude, longitude: message.longitude, speed: message.speed };
        // an episode a silence held back, still lasting when this message finds the silence over, is raised first
        const silencedEpisode = stale ? undefined : budgets.silencedEpisode(compiled);
        if (silencedEpisode) {
          const verdict = judgeWithMessage(silencedEpisode, stillLasts(compiled, evaluator, before, silencedEpisode), at, (time) =>
            silenceAt(time, here),
          );
          budgets.settleSilenced(compiled, evaluator, before, verdict, held);
        }
        // an old message still moves the rule's state: what it saw is known, and raises nothing later
        const result = step.call(evaluator, compiled, before, message, context);
        if (result.state === undefined) delete ruleStates[key];
        else ruleStates[key] = plainJson(result.state);
        let alertedAt: string | undefined;
        for (const event of result.events) {
          if (budgets.offer(compiled, event, held(event), true)) alertedAt = event.time;
          else if (!stale) budgets.rememberSilenced(compiled, evaluator, ruleStates[key], event, silences);
        }
        if (!stale && before !== undefined && evaluator.cutShort?.(compiled, before, ruleStates[key]))
          budgets.suppress(compiled, message.deviceTime, 'belowMinDuration');
        if (!stale) {
          budgets.forgetEnded(compiled, evaluator, ruleStates[key]);
          budgets.follow(compiled, evaluator, before, ruleStates[key], alertedAt, at, result.events.length > 0, held);
        }
      } catch (error) {
        failures.push({ ruleId: compiled.rule.id, error });
      }
    }
    if (stale) continue;
    if (journal) {
      const journaled = journalMessage(visits, journal, message);
      visits = journaled.state;
      visitRecords.push(...journaled.records);
    }
    lastDeviceMs = deviceMs;
    lastDeviceTime = message.deviceTime;
    lastPosition = { latitude: message.latitude, longitude: message.longitude, speed: message.speed, deviceTime: message.deviceTime };
    const receivedAt = Math.min(message.serverTime ? Date.parse(message.serverTime) : context.now, context.now);
    lastSeenAt = Math.max(lastSeenAt ?? receivedAt, receivedAt);
  }

  const candidate = nextVehicleState(vehicleId, state, {
    lastDeviceTime,
    lastSeenAt,
    lastPosition,
    rules: ruleStates,
    zoneGates: gates,
    noise: budgets.noise,
    visits,
    stamped,
  });
  const { suppressed, log: suppressedLog, silenced } = budgets;
  // entries and exits are worth a write; a path inside a zone is extended only when the state is written anyway
  const visitsMoved = visitRecords.length > 0 || !isDeepStrictEqual(state?.visits?.zones ?? {}, visits.zones);
  if (!visitsMoved && !worthWriting(state, candidate, rules, vehicleClock))
    return { nextState: undefined, events, staleMessages, suppressed, suppressedLog, failures, silenced };
  if (candidate.visits && lastPosition) candidate.visits = advanceOpenVisits(candidate.visits, lastPosition);
  return {
    nextState: candidate,
    events,
    staleMessages,
    suppressed,
    suppressedLog,
    failures,
    silenced,
    ...(visitRecords.length > 0 ? { visits: visitRecords } : {}),
  };
}

/**
 * A change of any rule's state is written at once. Last-seen, device time and position alone are a
 * heartbeat, written for a vehicle first seen and then once per interval (heartbeatIntervalMs: 0 with the
 * exact clock, so with every message that moves it; stamped messages follow the coalesced interval).
 * A change of how the clock is written is written at once too, so that the sweep knows how far it may trail.
 * Events alone need no state write: their alerts are keyed by the event, so raising one again can only
 * find it there.
 */
function worthWriting(previous: VehicleState | undefined, next: VehicleState, rules: readonly CompiledRule[], configured: VehicleClock): boolean {
  const intervalMs = heartbeatIntervalMs(rules, storedClock(next, configured));
  if (!previous) return Object.keys(next.rules).length > 0 || (next.lastDeviceTime !== null && Number.isFinite(intervalMs));
  if (!isDeepStrictEqual(previous.rules, next.rules) || !isDeepStrictEqual(previous.zoneGates ?? {}, next.zoneGates ?? {})) return true;
  if (storedClock(previous, configured) !== storedClock(next, configured) && Number.isFinite(intervalMs)) return true;
  // an open run of suppressions is not worth a write of its own (it rides with the next one)
  if (!isDeepStrictEqual(withoutOpenRun(previous.noise), withoutOpenRun(next.noise))) return true;
  if (next.lastDeviceTime === previous.lastDeviceTime) return false;
  if (previous.lastSeenAt === null || next.lastSeenAt === null) return Number.isFinite(intervalMs);
  return next.lastSeenAt - previous.lastSeenAt >= intervalMs;
}

/** What a vehicle's next state is made of; its version stays the previous one until the write bumps it. */
interface StateParts extends Pick<VehicleState, 'lastDeviceTime' | 'lastSeenAt' | 'lastPosition' | 'rules' | 'zoneGates' | 'noise' | 'visits'> {
  stamped: boolean;
}

/** The state to store: what is empty is left out, so that it compares equal to the copy stored before. */
function nextVehicleState(vehicleId: number, previous: VehicleState | undefined, parts: StateParts): VehicleState {
  const { zoneGates, noise, visits } = parts;
  return {
    vehicleId,
    version: previous?.version ?? 0,
    lastDeviceTime: parts.lastDeviceTime,
    lastSeenAt: parts.lastSeenAt,
    lastPosition: parts.lastPosition,
    rules: parts.rules,
    ...(zoneGates && Object.keys(zoneGates).length > 0 ? { zoneGates } : {}),
    ...(noise && Object.keys(noise).length > 0 ? { noise } : {}),
    ...(visits && hasVisits(visits) ? { visits } : {}),
    ...(parts.stamped ? { stamped: true as const } : {}),
  };
}

/** States are stored in DynamoDB: keep only what JSON keeps, so comparisons with the stored copy hold. */
function plainJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

export interface TickInput {
  vehicleId: number;
  state: VehicleState | undefined;
  /** The rules with a `tick` that cover this vehicle (connection loss); other rules' states are kept as they are. */
  rules: readonly CompiledRule[];
  context: EvaluationContext;
  evaluatorFor: EvaluatorLookup;
  /** The maintenance silences that may hold back the vehicle's events; absent: none. */
  silences?: VehicleSilences;
}

/**
 * Time passing without messages: lets each rule with a `tick` look at the vehicle's clock, and judges the
 * episodes maintenance silences hold back whose check is due (silenced-episodes.ts).
 */
export function tickVehicle(input: TickInput): VehicleOutcome {
  const { vehicleId, state, rules, context, evaluatorFor } = input;
  const silences = input.silences ?? NO_SILENCES;
  const ruleStates: Record<string, unknown> = { ...state?.rules };
  const events: RaisedEvent[] = [];
  const failures: VehicleOutcome['failures'] = [];
  const budgets = new NoiseBudgets(state?.noise, () => true, events);
  const clock = { vehicleId, lastDeviceTime: state?.lastDeviceTime ?? null, lastSeenAt: state?.lastSeenAt ?? null };
  const lastSeen = state?.lastPosition ? { latitude: state.lastPosition.latitude, longitude: state.lastPosition.longitude } : null;
  for (const compiled of rules) {
    const evaluator = evaluatorFor(compiled.rule.type);
    if (!evaluator) continue;
    const key = String(compiled.rule.id);
    try {
      const condition = zoneConditionOf(compiled);
      const zone = condition && gateSuppression(condition, tickGate(condition, state, key, context));
      const silenceAt = (time: number, position: Position | null) => silences.match(compiled.rule, vehicleId, time, position);
      const silenceOf = (event: RuleEvent) => () => silenceAt(Date.parse(event.time), positionOf(event, lastSeen))?.id;
      const held = (event: RuleEvent) => holdOf(compiled, event, zone, silenceOf(event));
      const silencedEpisode = budgets.silencedEpisode(compiled);
      if (silencedEpisode) {
        const lasts = stillLasts(compiled, evaluator, ruleStates[key], silencedEpisode);
        const verdict = judgeWithoutMessage(silencedEpisode, lasts, context.now, lastSeen, (time) => silenceAt(time, lastSeen));
        budgets.settleSilenced(compiled, evaluator, ruleStates[key], verdict, held);
      }
      const tick = evaluator.tick;
      if (!tick) continue;
      const result = tick(compiled, ruleStates[key], clock, context);
      // outside the rule's schedule the tick waits for the opening: its state stays, to be judged again then
      const admitted = scheduledTickEvents(compiled, result.events, context.now);
      if (admitted === null) {
        for (const event of result.events) budgets.suppress(compiled, event.time, 'outsideSchedule');
        continue;
      }
      const before = ruleStates[key];
      if (result.state === undefined) delete ruleStates[key];
      else ruleStates[key] = plainJson(result.state);
      // the schedule was judged above: a tick's event waits for the opening, and is retimed to it
      const tickHold = (event: RuleEvent): Hold | null => holdOf({ ...compiled, schedule: undefined }, event, zone, silenceOf(event));
      let alertedAt: string | undefined;
      for (const event of admitted) {
        if (budgets.offer(compiled, event, tickHold(event), true)) alertedAt = event.time;
        else budgets.rememberSilenced(compiled, evaluator, ruleStates[key], event, silences);
      }
      if (alertedAt !== undefined) {
        const at = { time: Date.parse(alertedAt), latitude: null, longitude: null, speed: null };
        budgets.follow(compiled, evaluator, before, ruleStates[key], alertedAt, at, true, held);
      } else if (admitted.length === 0) budgets.remind(compiled, evaluator, ruleStates[key], context.now, held);
    } catch (error) {
      failures.push({ ruleId: compiled.rule.id, error });
    }
  }
  // as with messages, an open run of suppressions is not worth a write of its own: a sweep every minute while a
  // schedule is closed would otherwise write the vehicle every minute
  const changed =
    events.length > 0 ||
    !isDeepStrictEqual(state?.rules ?? {}, ruleStates) ||
    !isDeepStrictEqual(withoutOpenRun(state?.noise), withoutOpenRun(budgets.noise));
  const nextState = changed
    ? nextVehicleState(vehicleId, state, {
        lastDeviceTime: clock.lastDeviceTime,
        lastSeenAt: clock.lastSeenAt,
        lastPosition: state?.lastPosition ?? null,
        rules: ruleStates,
        zoneGates: state?.zoneGates,
        noise: budgets.noise,
        visits: state?.visits,
        stamped: state?.stamped === true,
      })
    : undefined;
  return { nextState, events, staleMessages: 0, suppressed: budgets.suppressed, suppressedLog: budgets.log, failures, silenced: budgets.silenced };
}

/** Where a tick judges the zone condition: the gate the messages left, or else the last position. */
function tickGate(
  condition: NonNullable<ReturnType<typeof zoneConditionOf>>,
  state: VehicleState | undefined,
  key: string,
  context: EvaluationContext,
) {
  const gate = state?.zoneGates?.[key];
  if (gate || !state?.lastPosition) return gate;
  const { latitude, longitude } = state.lastPosition;
  return { zones: Object.fromEntries(context.zones.zonesContaining(latitude, longitude, condition.zones).map((id) => [id, { inside: true }])) };
}
