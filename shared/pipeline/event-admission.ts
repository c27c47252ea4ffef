import type { RuleEvent } from '../schemas/alert';
import { RULE_TYPES } from '../schemas/notification';
import type { CommonSettings } from '../rules/settings';
import type { CompiledRule } from '../rules/types';
import { scheduleAdmits } from './schedule-gate';
import type { ZoneSuppression } from './zone-gate';

/**
 * Why an evaluation that ran does not become an alert. Evaluate records them in the rule's suppressed log (runs of one reason, noise-budget.ts); the preview
 * (`POST /api/v3/notifications/preview`) answers them, so both read the same decision from here.
 *
 * - `staleMessage`: the message is not newer than the vehicle's clock, and the rule's evaluator takes no late
 *   messages (only the panic button does), so the message is not evaluated for that rule.
 * - `outsideSchedule`: the event falls outside `settings.schedule` (see schedule-gate.ts).
 * - `outsideZones`, `insideZones`: the rule's zone condition (`settings.zones`, `zoneMode`) wants the vehicle
 *   inside one of its zones, or outside all of them, and it is not (see zone-gate.ts).
 * - `cooldown`, `maxPerDay`: the rule's noise budget holds the alert back (see noise-budget.ts).
 * - `belowMinDuration`: an episode (speeding, idle, parking, analog sensor) ended before its minimum duration,
 *   timed by the message that ended it (the evaluator's `cutShort`).
 * - `silenced`: a maintenance silence of the client holds the event back (maintenance-silence.ts); its id goes
 *   with the suppression.
 * - `tooOld`: the message that raised the event was older than `settings.maxEventAge` (else the deployment's
 *   MAX_EVENT_AGE_SECONDS) when it was evaluated: news too late to act on (see maxEventAgeMs).
 * An event raised by a message is judged in this order: schedule, zone condition, maintenance silence, age, noise
 * budget; the first that holds it back names the reason, so an event held for any reason spends no noise budget.
 * The suppressed log stores a reason by its index here: new reasons are added at the end, never reordered.
 */
export const SUPPRESSION_REASONS = [
  'staleMessage',
  'outsideSchedule',
  'outsideZones',
  'insideZones',
  'cooldown',
  'maxPerDay',
  'belowMinDuration',
  'tooOld',
  'silenced',
] as const;

export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

/** One evaluation that raised no alert, and why. `time`: the event's time, or the late message's device time. */
export interface Suppression {
  ruleId: number;
  time: string;
  reason: SuppressionReason;
  /** `tooOld` only: how old the message was when evaluated, whole seconds. */
  age?: number;
  /** The maintenance silence that held it back (reason `silenced`). */
  silenceId?: string;
}

/**
 * How old a message may be when evaluated (ms; 0: any age) before the events it raises are `tooOld`: the rule's
 * `settings.maxEventAge`, else the deployment's default (seconds). Connection loss is never aged: its events
 * say when messages stopped and started arriving, which a late reading does not make stale (the reading that
 * ends a dead zone is often an old one from the terminal's black box, and it must still restore the connection).
 */
export function maxEventAgeMs(compiled: CompiledRule, defaultSeconds: number): number {
  if (compiled.rule.type === RULE_TYPES.connectionLoss) return 0;
  return ((compiled.settings as Partial<CommonSettings>).maxEventAge ?? defaultSeconds) * 1000;
}

/** A message's age (ms) when it is too old for a rule's limit (maxEventAgeMs), else undefined. */
export function tooOldAge(limitMs: number, ageMs: number): number | undefined {
  return limitMs > 0 && ageMs > limitMs ? ageMs : undefined;
}

/** Why an event is held back before the noise budget: the reason, for `silenced` the silence, for `tooOld` the age. */
export interface Hold {
  reason: SuppressionReason;
  silenceId?: string;
  age?: number;
}

/**
 * Whether an event becomes an alert, as far as the schedule, the zone condition, maintenance silences and the
 * message's age go (in that order): null when it passes on to the noise budget, else why not. `zone` is the zone
 * condition's verdict at the event's position (zone-gate.ts), undefined when it holds or there is none; `silence`
 * finds the silence holding the event back, if any, and is asked only when the schedule and the zone let it
 * through; `age` is the message's age in seconds when it is too old (tooOldAge; never for time passing, the sweep's ticks).
 */
export function holdOf(
  compiled: CompiledRule,
  event: RuleEvent,
  zone?: ZoneSuppression,
  silence?: () => string | undefined,
  age?: number,
): Hold | null {
  if (!scheduleAdmits(compiled, event)) return { reason: 'outsideSchedule' };
  if (zone) return { reason: zone };
  const silenceId = silence?.();
  if (silenceId !== undefined) return { reason: 'silenced', silenceId };
  return age === undefined ? null : { reason: 'tooOld', age };
}

/** holdOf's reason alone. */
export function suppressionOf(
  compiled: CompiledRule,
  event: RuleEvent,
  zone?: ZoneSuppression,
  silence?: () => string | undefined,
  age?: number,
): SuppressionReason | null {
  return holdOf(compiled, event, zone, silence, age)?.reason ?? null;
}
