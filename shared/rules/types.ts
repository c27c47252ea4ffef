import type { z } from 'zod';
import type { RuleEvent } from '../schemas/alert';
import type { RuleType, StoredRule } from '../schemas/notification';
import type { TerminalMessage } from '../schemas/terminal-message';
import type { ZoneLookup } from '../geo/zone-lookup';
import type { RuleSchedule } from './schedule';

export type { ZoneLookup } from '../geo/zone-lookup';

/**
 * The contract between the pure rule evaluators and the I/O shell (evaluate and sweep functions).
 * Evaluators do no I/O and read no clock: time arrives as `now` (epoch ms) and message times.
 * Every state an evaluator returns must be plain JSON (it is stored in the vehicle's DynamoDB item).
 */

export interface EvaluationContext {
  /** Wall-clock time of the evaluation, epoch ms. */
  now: number;
  zones: ZoneLookup;
}

/** A rule whose `settings` map has been parsed by its evaluator's schema. */
export interface CompiledRule<Settings = unknown> {
  rule: StoredRule;
  settings: Settings;
  /** `settings.schedule` in the rule's timezone; absent: the rule may raise alerts at any time. */
  schedule?: RuleSchedule;
}

export interface Evaluation<State> {
  /** The rule's new state for this vehicle; undefined drops it. */
  state: State | undefined;
  events: RuleEvent[];
}

export interface RuleEvaluator<Settings = unknown, State = unknown> {
  type: RuleType;
  /** Parses the rule's `settings` (string map) into typed settings, with documented keys and defaults. */
  settingsSchema: z.ZodType<Settings, Record<string, string>>;
  /** Feeds one message, in device-time order, for one vehicle. */
  evaluate(rule: CompiledRule<Settings>, state: State | undefined, message: TerminalMessage, context: EvaluationContext): Evaluation<State>;
  /**
   * A message older than the vehicle's last processed device time never rolls state back. When defined, this
   * returns the events such a message may still raise on its own (instantaneous events), and the state with,
   * at most, a memory of what it raised added, so that the other late messages of the same occurrence (which
   * may arrive in later batches) are recognised and raise nothing more.
   */
  evaluateStale?(rule: CompiledRule<Settings>, state: State | undefined, message: TerminalMessage, context: EvaluationContext): Evaluation<State>;
  /**
   * The alerted episode the state holds, for a condition that lasts (speeding, idle, parking, a sensor out of
   * range, outside after a reported zone exit, a lost connection); undefined when there is none. Reminders (`repeat`) and `cleared` messages
   * (`notifyCleared`) follow it, outside the evaluator (shared/pipeline/noise-budget.ts).
   */
  episode?(rule: CompiledRule<Settings>, state: State | undefined): Episode | undefined;
  /**
   * Whether a current message that moved the state from `before` to `after` ended an episode that never lasted
   * its minimum duration (speeding's `minDuration`, idle's and parking's `minutes`, a sensor's `minDuration`):
   * recorded in the rule's suppressed log as `belowMinDuration`.
   */
  cutShort?(rule: CompiledRule<Settings>, before: State, after: State | undefined): boolean;
  /** Time passing with no message (connection loss): called by the scheduled sweep with the vehicle's state. */
  tick?(rule: CompiledRule<Settings>, state: State | undefined, vehicle: VehicleClock, context: EvaluationContext): Evaluation<State>;
}

/** An episode that was alerted: when it started (epoch ms) and the kind of its alert. */
export interface Episode {
  since: number;
  kind: string;
}

/** What the sweep knows of a vehicle without a message: when it was last heard from. */
export interface VehicleClock {
  vehicleId: number;
  /** Device time of the last processed message, ISO; null if never seen. */
  lastDeviceTime: string | null;
  /** Server receive time of the last message, epoch ms; null if never seen. */
  lastSeenAt: number | null;
}
