/**
 * Why an evaluation that ran does not become an alert. Evaluate records them in the rule's suppressed log (runs of one reason, shared/pipeline/noise-budget.ts); the preview
 * (`POST /api/v3/notifications/preview`) answers them, so both read the same decision from here.
 *
 * - `staleMessage`: the message is not newer than the vehicle's clock, and the rule's evaluator takes no late
 *   messages (only the panic button does), so the message is not evaluated for that rule.
 * - `outsideSchedule`: the event falls outside `settings.schedule` (see shared/pipeline/schedule-gate.ts).
 * - `outsideZones`, `insideZones`: the rule's zone condition (`settings.zones`, `zoneMode`) wants the vehicle
 *   inside one of its zones, or outside all of them, and it is not (see shared/pipeline/zone-gate.ts).
 * - `cooldown`, `maxPerDay`: the rule's noise budget holds the alert back (see shared/pipeline/noise-budget.ts).
 * - `belowMinDuration`: an episode (speeding, idle, parking, analog sensor) ended before its minimum duration,
 *   timed by the message that ended it (the evaluator's `cutShort`).
 * - `silenced`: a maintenance silence of the client holds the event back (shared/pipeline/maintenance-silence.ts); its id goes
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
