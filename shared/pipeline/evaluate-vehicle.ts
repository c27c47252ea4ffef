import { isDeepStrictEqual } from 'node:util';
import type { RuleEvent } from '../schemas/alert';
import type { RuleType } from '../schemas/notification';
import type { TerminalMessage } from '../schemas/terminal-message';
import type { CompiledRule, EvaluationContext, RuleEvaluator } from '../rules/types';
import type { VehicleState } from '../store/vehicle-state-store';

/**
 * Runs one vehicle's messages (already in device-time order) through the rules that apply to it. Pure: the
 * outcome depends only on the arguments, so a redelivered batch evaluated against the state it already
 * produced changes nothing and raises nothing new.
 *
 * A message at or before the state's `lastDeviceTime` is stale: it never moves the vehicle's clock or rolls
 * a rule's state back; it can only raise (and remember) what the evaluator's `evaluateStale` allows. For a
 * vehicle that rules watch, `lastDeviceTime` is therefore stored whenever it moves, even when no rule state
 * changed: a late message is then judged against the newest message processed, never against an older one
 * that happened to be written. Only a vehicle no rule watches has its clock and position coalesced into
 * heartbeats.
 */
export type EvaluatorLookup = (type: RuleType) => RuleEvaluator | undefined;

/** Last-seen and position alone are written at most this often per vehicle. */
export const HEARTBEAT_INTERVAL_MS = 60_000;

export interface RaisedEvent {
  rule: CompiledRule;
  event: RuleEvent;
}

export interface VehicleOutcome {
  /** The state to store, or undefined when nothing worth a write changed. Its version is not yet bumped. */
  nextState: VehicleState | undefined;
  events: RaisedEvent[];
  staleMessages: number;
  /** Rule evaluations that threw; the rule's state is kept as it was. */
  failures: { ruleId: number; error: unknown }[];
}

export interface VehicleInput {
  vehicleId: number;
  state: VehicleState | undefined;
  messages: readonly TerminalMessage[];
  rules: readonly CompiledRule[];
  context: EvaluationContext;
  evaluatorFor: EvaluatorLookup;
}

export function evaluateVehicle(input: VehicleInput): VehicleOutcome {
  const { vehicleId, state, messages, rules, context, evaluatorFor } = input;
  const previousRules = state?.rules ?? {};
  const ruleStates: Record<string, unknown> = {};
  for (const { rule } of rules) {
    const key = String(rule.id);
    if (key in previousRules) ruleStates[key] = previousRules[key];
  }
  let lastDeviceTime = state?.lastDeviceTime ?? null;
  let lastDeviceMs = lastDeviceTime === null ? Number.NEGATIVE_INFINITY : Date.parse(lastDeviceTime);
  let lastSeenAt = state?.lastSeenAt ?? null;
  let lastPosition = state?.lastPosition ?? null;
  const events: RaisedEvent[] = [];
  const failures: VehicleOutcome['failures'] = [];
  let staleMessages = 0;

  for (const message of messages) {
    const deviceMs = Date.parse(message.deviceTime);
    const stale = deviceMs <= lastDeviceMs;
    if (stale) staleMessages++;
    for (const compiled of rules) {
      const evaluator = evaluatorFor(compiled.rule.type);
      if (!evaluator) continue;
      const key = String(compiled.rule.id);
      try {
        const step = stale ? evaluator.evaluateStale : evaluator.evaluate;
        if (!step) continue;
        const result = step.call(evaluator, compiled, ruleStates[key], message, context);
        if (result.state === undefined) delete ruleStates[key];
        else ruleStates[key] = plainJson(result.state);
        for (const event of result.events) events.push({ rule: compiled, event });
      } catch (error) {
        failures.push({ ruleId: compiled.rule.id, error });
      }
    }
    if (stale) continue;
    lastDeviceMs = deviceMs;
    lastDeviceTime = message.deviceTime;
    lastPosition = { latitude: message.latitude, longitude: message.longitude, speed: message.speed, deviceTime: message.deviceTime };
    const receivedAt = Math.min(message.serverTime ? Date.parse(message.serverTime) : context.now, context.now);
    lastSeenAt = Math.max(lastSeenAt ?? receivedAt, receivedAt);
  }

  const candidate: VehicleState = {
    vehicleId,
    version: state?.version ?? 0,
    lastDeviceTime,
    lastSeenAt,
    lastPosition,
    rules: ruleStates,
  };
  return { nextState: worthWriting(state, candidate, rules.length > 0) ? candidate : undefined, events, staleMessages, failures };
}

/**
 * A change of any rule's state is written at once, and so is a device clock that moved on a vehicle rules
 * watch (late messages are judged against it). Otherwise last-seen, device time and position are a
 * heartbeat, written for a new vehicle and then at most once per HEARTBEAT_INTERVAL_MS. Events alone need
 * no state write: their alerts are keyed by the event, so raising one again can only find it there.
 */
function worthWriting(previous: VehicleState | undefined, next: VehicleState, watched: boolean): boolean {
  if (!previous) return next.lastDeviceTime !== null || Object.keys(next.rules).length > 0;
  if (!isDeepStrictEqual(previous.rules, next.rules)) return true;
  if (next.lastDeviceTime === previous.lastDeviceTime) return false;
  if (watched) return true;
  if (previous.lastSeenAt === null || next.lastSeenAt === null) return true;
  return next.lastSeenAt - previous.lastSeenAt >= HEARTBEAT_INTERVAL_MS;
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
}

/** Time passing without messages: lets each rule with a `tick` look at the vehicle's clock. */
export function tickVehicle(input: TickInput): VehicleOutcome {
  const { vehicleId, state, rules, context, evaluatorFor } = input;
  const ruleStates: Record<string, unknown> = { ...state?.rules };
  const events: RaisedEvent[] = [];
  const failures: VehicleOutcome['failures'] = [];
  const clock = { vehicleId, lastDeviceTime: state?.lastDeviceTime ?? null, lastSeenAt: state?.lastSeenAt ?? null };
  for (const compiled of rules) {
    const tick = evaluatorFor(compiled.rule.type)?.tick;
    if (!tick) continue;
    const key = String(compiled.rule.id);
    try {
      const result = tick(compiled, ruleStates[key], clock, context);
      if (result.state === undefined) delete ruleStates[key];
      else ruleStates[key] = plainJson(result.state);
      for (const event of result.events) events.push({ rule: compiled, event });
    } catch (error) {
      failures.push({ ruleId: compiled.rule.id, error });
    }
  }
  const changed = events.length > 0 || !isDeepStrictEqual(state?.rules ?? {}, ruleStates);
  const nextState: VehicleState | undefined = changed
    ? {
        vehicleId,
        version: state?.version ?? 0,
        lastDeviceTime: clock.lastDeviceTime,
        lastSeenAt: clock.lastSeenAt,
        lastPosition: state?.lastPosition ?? null,
        rules: ruleStates,
      }
    : undefined;
  return { nextState, events, staleMessages: 0, failures };
}
