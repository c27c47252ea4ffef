import { isDeepStrictEqual } from 'node:util';
import type { RuleEvent } from '../schemas/alert';
import { RULE_TYPES, type RuleType } from '../schemas/notification';
import type { TerminalMessage } from '../schemas/terminal-message';
import type { CompiledRule, EvaluationContext, RuleEvaluator } from '../rules/types';
import type { VehicleClock } from '../config';
import type { NoiseState, VehicleState } from '../store/vehicle-state-store';
import { advanceOpenVisits, EMPTY_VISITS, hasVisits, journalMessage, type Journal, type VisitRecord, type VisitsState } from '../rules/visit-journal';
import { reportableFrom, scheduledTickEvents } from './schedule-gate';
import { holdOf, maxEventAgeMs, tooOldAge, type Hold, type Suppression, type SuppressionReason } from './event-admission';
import { NO_SILENCES, type Position, type VehicleSilences } from './maintenance-silence';
import { judgeWithMessage, judgeWithoutMessage, silencedEpisodeOf, stillLasts, type SilencedEpisodeVerdict } from './silenced-episodes';
import {
  admitEvent,
  closeRun,
  episodeAlerted,
  episodeFollowUps,
  followsEpisodes,
  nextReminderAt,
  recordSuppression,
  tickReminder,
  withoutOpenRun,
  type SuppressedLogEntry,
} from './noise-budget';
import { advanceGate, gateSuppression, staleSuppression, zoneConditionOf, type ZoneGates } from './zone-gate';

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
export type EvaluatorLookup = (type: RuleType) => RuleEvaluator | undefined;

/** Bounds of the heartbeat interval: last-seen and position alone are written at most this often per vehicle. */
export const MIN_HEARTBEAT_INTERVAL_MS = 60_000;
export const MAX_HEARTBEAT_INTERVAL_MS = 600_000;

/** Connection-loss limits (`minutes`) among the rules, in ms; the heartbeat and the sweep follow the smallest. */
function silenceLimitsMs(rules: readonly CompiledRule[]): number[] {
  return rules
    .filter((compiled) => compiled.rule.type === RULE_TYPES.connectionLoss)
    .map((compiled) => (compiled.settings as { minutes: number }).minutes * 60_000);
}

/**
 * How often a heartbeat alone (last seen, device time, position) is worth a write: never for a vehicle no rule
 * watches; with the `exact` clock, every time it moves (0); with `coalesced`, a tenth of the smallest
 * connection-loss limit among the vehicle's rules, between 1 and 10 minutes, and 10 minutes under other rules
 * only (they keep the stale-message clock fresh).
 */
export function heartbeatIntervalMs(rules: readonly CompiledRule[], clock: VehicleClock): number {
  if (rules.length === 0) return Number.POSITIVE_INFINITY;
  if (clock === 'exact') return 0;
  const limits = silenceLimitsMs(rules);
  if (limits.length === 0) return MAX_HEARTBEAT_INTERVAL_MS;
  return Math.min(MAX_HEARTBEAT_INTERVAL_MS, Math.max(MIN_HEARTBEAT_INTERVAL_MS, Math.min(...limits) / 10));
}

/** How a stored state's clock was written: as configured, or with heartbeats only where its messages were stamped. */
export function storedClock(state: VehicleState | undefined, configured: VehicleClock): VehicleClock {
  return state?.stamped ? 'coalesced' : configured;
}

/**
 * When the sweep must next look at the vehicle (epoch ms), or null when no connection-loss rule waits for a
 * silence: the earliest `lastSeenAt + minutes` of a rule that has not reported the current silence (for a rule
 * with a schedule, the schedule's next opening from then, when the loss may first be reported), plus one
 * heartbeat interval (0 when the state was written with the exact clock), since the stored last-seen may trail
 * the truth by that much.
 */
export function silenceDeadline(state: VehicleState, rules: readonly CompiledRule[], clock: VehicleClock): number | null {
  return silenceWindow(state, rules, clock)?.deadline ?? null;
}

/** A deadline window: the deadline, how much earlier a stored one may stay, and how far ahead it must still be. */
export interface SilenceWindow {
  deadline: number;
  slack: number;
  guard: number;
}

/** How long a reporting vehicle may go between two writes beyond its heartbeat interval: its next message's wait. */
const NEXT_WRITE_MARGIN_MS = 2 * 60_000;

/**
 * The deadline, and when a stored deadline may stay instead of being moved (an index write): while it is due no
 * later than the new one and at most the smallest limit earlier (the slack), and while it is still far enough
 * ahead (the guard) not to pass before the vehicle's next write: a quarter of the limit, or the heartbeat interval
 * and a message's wait when that is longer, but never more than half the limit. A vehicle that keeps reporting
 * then moves its deadline about once per limit instead of with every few heartbeats, and never has it pass while
 * it reports, which matters because the sweep counts passed deadlines as vehicles falling silent
 * (feed-outage.ts). One that falls silent is looked at by the sweep at most the slack early, and its deadline
 * moved then.
 */
export function silenceWindow(state: VehicleState, rules: readonly CompiledRule[], clock: VehicleClock): SilenceWindow | null {
  const deadline = earliestSilence(state, rules, clock);
  // an episode a maintenance silence holds back is judged again at its exact time (silenced-episodes.ts)
  const episodes = rules.flatMap(({ rule }) => state.noise?.[String(rule.id)]?.z?.c ?? []);
  if (episodes.length > 0) {
    const check = Math.min(...episodes) + heartbeatIntervalMs(rules, storedClock(state, clock));
    if (deadline === null || check <= deadline) return { deadline: check, slack: 0, guard: 0 };
  }
  if (deadline === null) return null;
  const limit = Math.min(...silenceLimitsMs(rules));
  const nextWrite = heartbeatIntervalMs(rules, storedClock(state, clock)) + NEXT_WRITE_MARGIN_MS;
  return { deadline, slack: limit, guard: Math.min(limit / 2, Math.max(limit / 4, nextWrite)) };
}

/** The deadline to store: the one stored while the window lets it stay. */
export function deadlineToStore(stored: number | null, window: SilenceWindow | null, now: number): number | null {
  if (window === null) return null;
  const keep = stored !== null && stored > now + window.guard && stored <= window.deadline && stored >= window.deadline - window.slack;
  return keep ? stored : window.deadline;
}

function earliestSilence(state: VehicleState, rules: readonly CompiledRule[], clock: VehicleClock): number | null {
  const lastSeen = state.lastSeenAt ?? (state.lastDeviceTime === null ? null : Date.parse(state.lastDeviceTime));
  if (lastSeen === null) return null;
  let earliest = Number.POSITIVE_INFINITY;
  for (const compiled of rules) {
    if (compiled.rule.type !== RULE_TYPES.connectionLoss) continue;
    const ruleState = state.rules[String(compiled.rule.id)] as { silentSince?: number } | undefined;
    if (ruleState?.silentSince === lastSeen) {
      // a reported loss that lasts owes its reminders (settings.repeat) at their times
      const noise = state.noise?.[String(compiled.rule.id)];
      const reminder = noise?.e === lastSeen ? nextReminderAt(compiled, noise) : null;
      if (reminder !== null) earliest = Math.min(earliest, reportableFrom(compiled, reminder));
      continue;
    }
    earliest = Math.min(earliest, reportableFrom(compiled, lastSeen + (compiled.settings as { minutes: number }).minutes * 60_000));
  }
  return Number.isFinite(earliest) ? earliest + heartbeatIntervalMs(rules, storedClock(state, clock)) : null;
}

export interface RaisedEvent {
  rule: CompiledRule;
  event: RuleEvent;
}

export interface SilencedEvent extends RaisedEvent {
  silenceId: string;
}

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

/**
 * The rules' noise budgets over one evaluation: where an event that passed the schedule and the zone condition
 * is admitted or held (noise-budget.ts), and where suppressions are recorded.
 */
class Budgets {
  readonly noise: Record<string, NoiseState> = {};
  readonly suppressed: Suppression[] = [];
  readonly log: SuppressedLogEntry[] = [];
  readonly silenced: SilencedEvent[] = [];

  constructor(
    previous: Record<string, NoiseState> | undefined,
    keep: (key: string) => boolean,
    private readonly events: RaisedEvent[],
  ) {
    for (const [key, value] of Object.entries(previous ?? {})) if (keep(key)) this.noise[key] = value;
  }

  private set(key: string, noise: NoiseState | undefined, closed?: SuppressedLogEntry): void {
    if (noise === undefined) delete this.noise[key];
    else this.noise[key] = noise;
    if (closed) this.log.push(closed);
  }

  /** `detail`: the maintenance silence of a `silenced` suppression, or the message's age (seconds) of a `tooOld` one. */
  suppress(compiled: CompiledRule, time: string, reason: SuppressionReason, detail?: string | number): void {
    const silenceId = reason === 'silenced' && typeof detail === 'string' ? detail : undefined;
    const age = reason === 'tooOld' && typeof detail === 'number' ? detail : undefined;
    this.suppressed.push({
      ruleId: compiled.rule.id,
      time,
      reason,
      ...(silenceId === undefined ? {} : { silenceId }),
      ...(age === undefined ? {} : { age }),
    });
    const key = String(compiled.rule.id);
    const recorded = recordSuppression(compiled.rule.id, this.noise[key], reason, Date.parse(time), silenceId ?? age);
    this.set(key, recorded.noise, recorded.closed);
  }

  /**
   * An event, with what the schedule, zone condition and maintenance silences and the message's age say of it (`held`: why it is held
   * back, if it is): true when it became an alert.
   */
  offer(compiled: CompiledRule, event: RuleEvent, held: Hold | null | undefined, cooled: boolean): boolean {
    if (held) {
      this.suppress(compiled, event.time, held.reason, held.silenceId ?? held.age);
      if (held.silenceId !== undefined) this.silenced.push({ rule: compiled, event, silenceId: held.silenceId });
      return false;
    }
    const key = String(compiled.rule.id);
    const admission = admitEvent(compiled, this.noise[key], event, cooled);
    this.set(key, admission.noise);
    if (admission.notice) this.events.push({ rule: compiled, event: admission.notice });
    if (admission.reason !== null) {
      this.suppress(compiled, event.time, admission.reason);
      return false;
    }
    const closed = closeRun(compiled.rule.id, this.noise[key]);
    this.set(key, closed.noise, closed.closed);
    this.events.push({ rule: compiled, event });
    return true;
  }

  /** After a current message or a tick moved a rule's state: its episode's bookkeeping, reminder or cleared message. */
  follow(
    compiled: CompiledRule,
    evaluator: RuleEvaluator,
    before: unknown,
    after: unknown,
    alertedAt: string | undefined,
    at: { time: number; latitude: number | null; longitude: number | null; speed: number | null },
    raised: boolean,
    held: (event: RuleEvent) => Hold | null | undefined,
  ): void {
    const key = String(compiled.rule.id);
    if (!evaluator.episode || (this.noise[key]?.e === undefined && !followsEpisodes(compiled))) return;
    const next = evaluator.episode(compiled, after);
    if (alertedAt !== undefined) {
      this.set(key, episodeAlerted(compiled, this.noise[key], next, Date.parse(alertedAt)));
      return;
    }
    const followed = episodeFollowUps(compiled, this.noise[key], evaluator.episode(compiled, before), next, at, raised);
    this.set(key, followed.noise);
    if (followed.event) this.offer(compiled, followed.event, held(followed.event), false);
  }

  /** Time passing over an alerted episode with no messages (a lost connection): its reminder when due. */
  remind(
    compiled: CompiledRule,
    evaluator: RuleEvaluator,
    ruleState: unknown,
    now: number,
    held: (event: RuleEvent) => Hold | null | undefined,
  ): void {
    const key = String(compiled.rule.id);
    if (!evaluator.episode || this.noise[key]?.e === undefined) return;
    const reminded = tickReminder(compiled, this.noise[key], evaluator.episode(compiled, ruleState), now);
    this.set(key, reminded.noise);
    if (reminded.event) this.offer(compiled, reminded.event, held(reminded.event), false);
  }

  /** The episode a maintenance silence holds back for the rule, if any. */
  silencedEpisode(compiled: CompiledRule): NonNullable<NoiseState['z']> | undefined {
    return this.noise[String(compiled.rule.id)]?.z;
  }

  private setSilencedEpisode(key: string, episode: NoiseState['z']): void {
    const { z: _previous, ...rest } = this.noise[key] ?? {};
    this.set(key, episode === undefined && Object.keys(rest).length === 0 ? undefined : { ...rest, ...(episode ? { z: episode } : {}) });
  }

  /** Remembers the episode a silenced event began, when the rule's state holds it (silenced-episodes.ts). */
  rememberSilenced(compiled: CompiledRule, evaluator: RuleEvaluator, ruleState: unknown, event: RuleEvent, silences: VehicleSilences): void {
    const held = this.silenced.findLast((entry) => entry.rule === compiled && entry.event === event);
    const silence = held && silences.silences.find((candidate) => candidate.id === held.silenceId);
    const episode = silence && silencedEpisodeOf(compiled, evaluator, ruleState, event, silence);
    if (episode) this.setSilencedEpisode(String(compiled.rule.id), episode);
  }

  /** Forgets a silenced episode the rule's state no longer holds: it ended while silenced, and owes nothing. */
  forgetEnded(compiled: CompiledRule, evaluator: RuleEvaluator, ruleState: unknown): void {
    const episode = this.silencedEpisode(compiled);
    if (episode && !stillLasts(compiled, evaluator, ruleState, episode)) this.setSilencedEpisode(String(compiled.rule.id), undefined);
  }

  /**
   * Acts on a silenced episode's verdict: forgotten when over, kept (maybe with a later check) while held, and
   * raised once when the silence no longer holds it, after which its reminders and cleared message follow it as
   * any alerted episode's.
   */
  settleSilenced(
    compiled: CompiledRule,
    evaluator: RuleEvaluator,
    ruleState: unknown,
    verdict: SilencedEpisodeVerdict,
    held: (event: RuleEvent) => Hold | null | undefined,
  ): void {
    const key = String(compiled.rule.id);
    if (verdict.outcome === 'held') return this.setSilencedEpisode(key, verdict.episode);
    this.setSilencedEpisode(key, undefined);
    if (verdict.outcome === 'over') return;
    if (this.offer(compiled, verdict.event, held(verdict.event), true))
      this.set(key, episodeAlerted(compiled, this.noise[key], evaluator.episode?.(compiled, ruleState), Date.parse(verdict.event.time)));
  }
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
  const budgets = new Budgets(state?.noise, (key) => key in ruleStates || rules.some(({ rule }) => String(rule.id) === key), events);
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

  const candidate: VehicleState = {
    vehicleId,
    version: state?.version ?? 0,
    lastDeviceTime,
    lastSeenAt,
    lastPosition,
    rules: ruleStates,
    ...(Object.keys(gates).length > 0 ? { zoneGates: gates } : {}),
    ...(Object.keys(budgets.noise).length > 0 ? { noise: budgets.noise } : {}),
    ...(hasVisits(visits) ? { visits } : {}),
    ...(stamped ? { stamped: true as const } : {}),
  };
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
  const budgets = new Budgets(state?.noise, () => true, events);
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
  const nextState: VehicleState | undefined = changed
    ? {
        vehicleId,
        version: state?.version ?? 0,
        lastDeviceTime: clock.lastDeviceTime,
        lastSeenAt: clock.lastSeenAt,
        lastPosition: state?.lastPosition ?? null,
        rules: ruleStates,
        ...(state?.zoneGates ? { zoneGates: state.zoneGates } : {}),
        ...(Object.keys(budgets.noise).length > 0 ? { noise: budgets.noise } : {}),
        ...(state?.visits ? { visits: state.visits } : {}),
        ...(state?.stamped ? { stamped: true as const } : {}),
      }
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
