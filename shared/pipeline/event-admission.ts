import type { RuleEvent } from '../schemas/alert';
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
 *   with the suppression. It is judged after the schedule and the zone condition and before the noise budget, so a
 *   silenced event spends no budget.
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
  'silenced',
] as const;

export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

/** One evaluation that raised no alert, and why. `time`: the event's time, or the late message's device time. */
export interface Suppression {
  ruleId: number;
  time: string;
  reason: SuppressionReason;
  /** The maintenance silence that held it back (reason `silenced`). */
  silenceId?: string;
}

/** Why an event is held back before the noise budget: the reason, and for `silenced` the silence. */
export interface Hold {
  reason: SuppressionReason;
  silenceId?: string;
}

/**
 * Whether an event becomes an alert, as far as the schedule, the zone condition and maintenance silences go (in
 * that order): null when it passes on to the noise budget, else why not. `zone` is the zone condition's verdict at
 * the event's position (zone-gate.ts), undefined when it holds or there is none; `silence` finds the silence
 * holding the event back, if any, and is asked only when the schedule and the zone let it through.
 */
export function holdOf(compiled: CompiledRule, event: RuleEvent, zone?: ZoneSuppression, silence?: () => string | undefined): Hold | null {
  if (!scheduleAdmits(compiled, event)) return { reason: 'outsideSchedule' };
  if (zone) return { reason: zone };
  const silenceId = silence?.();
  return silenceId === undefined ? null : { reason: 'silenced', silenceId };
}

/** holdOf's reason alone. */
export function suppressionOf(
  compiled: CompiledRule,
  event: RuleEvent,
  zone?: ZoneSuppression,
  silence?: () => string | undefined,
): SuppressionReason | null {
  return holdOf(compiled, event, zone, silence)?.reason ?? null;
}
