import { createHash } from 'node:crypto';

/**
 * The id of the alert for one event of one rule on one vehicle. Derived, never random: a redelivered or
 * re-evaluated message yields the same id, so the conditional put of the alert can only succeed once.
 * The time is normalised so that `…+03:00` and the same instant in `Z` form give one id.
 */
export function alertIdFor(ruleId: number, vehicleId: number, kind: string, time: string): string {
  const instant = new Date(time).toISOString();
  return createHash('sha256').update(`${ruleId}|${vehicleId}|${kind}|${instant}`).digest('hex').slice(0, 32);
}

/** The id of the escalation of an alert: one per alert, so an escalation written twice is the same item. */
export function escalationIdFor(alertId: string, step: { level: number; round: number } = { level: 0, round: 0 }): string {
  // the first level keeps the id escalations had before chains
  const name = step.level === 0 && step.round === 0 ? `escalated|${alertId}` : `escalated|${alertId}|${step.level}|${step.round}`;
  return createHash('sha256').update(name).digest('hex').slice(0, 32);
}
