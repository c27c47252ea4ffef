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
] as const;

export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

/** One evaluation that raised no alert, and why. `time`: the event's time, or the late message's device time. */
export interface Suppression {
  ruleId: number;
  time: string;
  reason: SuppressionReason;
}

/**
 * Whether an event a message raised becomes an alert: null when it does, else the reason it does not. `zone` is
 * the zone condition's verdict at the event's position (zone-gate.ts), undefined when it holds or there is none.
 */
export function suppressionOf(compiled: CompiledRule, event: RuleEvent, zone?: ZoneSuppression): SuppressionReason | null {
  if (!scheduleAdmits(compiled, event)) return 'outsideSchedule';
  return zone ?? null;
}
