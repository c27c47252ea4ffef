import type { RuleEvent } from '../schemas/alert';
import type { CompiledRule } from '../rules/types';

/**
 * A rule's schedule (`settings.schedule`) applies where the rule's events become alerts, not inside the
 * evaluators: they run, and their state moves on, at every hour, so an episode seen outside the schedule is
 * over (or known) by the time the schedule opens and raises nothing then.
 *
 * - An event raised by a message passes when its time is inside the schedule, or when the episode it reports
 *   (from `values.since` to its time) reached into the schedule: a speeding that starts at 17:59 and is
 *   confirmed at 18:01 alerts once; an episode entirely outside raises nothing.
 * - An event raised by time passing (the sweep's tick: connection loss) outside the schedule is held: the rule's
 *   state stays as it was, so the condition is judged again, and it is raised at the opening, timed then, if
 *   it still holds.
 */

const sinceOf = (event: RuleEvent): number => (typeof event.values.since === 'string' ? Date.parse(event.values.since) : Number.NaN);

/** Whether an event raised by a message may become an alert. */
export function scheduleAdmits(compiled: CompiledRule, event: RuleEvent): boolean {
  const schedule = compiled.schedule;
  if (schedule === undefined) return true;
  const time = Date.parse(event.time);
  if (schedule.isOpen(time)) return true;
  const since = sinceOf(event);
  if (!(since < time)) return false;
  const opening = schedule.nextOpening(since);
  return opening !== null && opening <= time;
}

/**
 * The events of one tick as they may become alerts (one outside the schedule retimed to the opening, once the
 * judged moment has reached it), or null when one must wait for the opening: the tick then changes nothing.
 */
export function scheduledTickEvents(compiled: CompiledRule, events: readonly RuleEvent[], judgedAt: number): RuleEvent[] | null {
  const schedule = compiled.schedule;
  if (schedule === undefined || events.length === 0) return [...events];
  const admitted: RuleEvent[] = [];
  for (const event of events) {
    const time = Date.parse(event.time);
    if (schedule.isOpen(time)) {
      admitted.push(event);
      continue;
    }
    const opening = schedule.nextOpening(time);
    if (opening === null || opening > judgedAt) return null;
    admitted.push({ ...event, time: new Date(opening).toISOString() });
  }
  return admitted;
}

/** When a condition that arises at `time` (a connection counted as lost) may first be reported. */
export function reportableFrom(compiled: CompiledRule, time: number): number {
  const schedule = compiled.schedule;
  if (schedule === undefined) return time;
  return schedule.nextOpening(time) ?? Number.POSITIVE_INFINITY;
}
