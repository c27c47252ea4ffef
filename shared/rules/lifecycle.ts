import type { NotificationBody, StoredRule } from '../schemas/notification';

/**
 * Validity of notification rules: when a rule is in force, how long it lasts, how it is prolonged.
 * All functions are pure; `now` is epoch milliseconds and every returned time is an ISO string (UTC).
 */

export const DAY_MS = 86_400_000;
/** A rule is never valid further ahead than this, whether prolonged by hand or created. */
export const MAX_VALIDITY_DAYS = 90;

export interface Validity {
  validFrom: string;
  expiresAt: string;
}

export type SweepDecision = { action: 'none' } | { action: 'deactivate' } | { action: 'prolong'; expiresAt: string };

/** Raised when a prolongation asks for a number of days outside 1..90. */
export class ProlongationError extends RangeError {
  constructor(days: number) {
    super(`prolongation days must be a whole number from 1 to ${MAX_VALIDITY_DAYS}, got ${days}`);
    this.name = 'ProlongationError';
  }
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The moment a rule with this activation setting starts (activation mode 1 waits for activationTime). */
function activationStart(body: Pick<NotificationBody, 'activationMode' | 'activationTime'>, now: number): number {
  if (body.activationMode === 1 && body.activationTime !== null) return Date.parse(body.activationTime);
  return now;
}

/** Whether a rule raises events at `now`: active, already activated, not yet expired. */
export function isEffective(rule: StoredRule, now: number): boolean {
  if (!rule.active) return false;
  if (rule.activationMode === 1 && rule.activationTime !== null && Date.parse(rule.activationTime) > now) return false;
  return now < Date.parse(rule.expiresAt);
}

/** Validity of a newly created rule: from its activation (or now) for `validity` days. */
export function initialValidity(body: NotificationBody, now: number): Validity {
  const from = activationStart(body, now);
  return { validFrom: iso(from), expiresAt: iso(from + body.validity * DAY_MS) };
}

/**
 * Validity after a replace (PUT). The period keeps its start unless the activation time changed, and is
 * recomputed with the new `validity`. A rule made active while that period is already over restarts from now,
 * so that re-enabling an expired rule makes it work again instead of being deactivated at the next sweep.
 */
export function replacedValidity(previous: StoredRule, body: NotificationBody, now: number): Validity {
  const activationChanged =
    body.activationMode === 1 &&
    body.activationTime !== null &&
    (previous.activationMode !== 1 || previous.activationTime === null || Date.parse(previous.activationTime) !== Date.parse(body.activationTime));
  const from = activationChanged ? activationStart(body, now) : Date.parse(previous.validFrom);
  const expiresAt = from + body.validity * DAY_MS;
  if (body.active && expiresAt <= now) {
    return { validFrom: iso(now), expiresAt: iso(now + body.validity * DAY_MS) };
  }
  return { validFrom: iso(from), expiresAt: iso(expiresAt) };
}

/**
 * New expiry after prolonging by `days` (1..90): counted from the current expiry, or from now when the rule
 * has already expired, and capped at 90 days ahead of now. Throws ProlongationError for other day counts.
 */
export function prolong(rule: StoredRule, days: number, now: number): string {
  if (!Number.isInteger(days) || days < 1 || days > MAX_VALIDITY_DAYS) throw new ProlongationError(days);
  const base = Math.max(Date.parse(rule.expiresAt), now);
  return iso(Math.min(base + days * DAY_MS, now + MAX_VALIDITY_DAYS * DAY_MS));
}

/**
 * What the scheduled sweep does with a rule: an active, expired rule is prolonged by whole `validity`
 * periods until it ends in the future when it has autoProlongation, and deactivated otherwise.
 */
export function sweepDecision(rule: StoredRule, now: number): SweepDecision {
  if (!rule.active) return { action: 'none' };
  const expiresAt = Date.parse(rule.expiresAt);
  if (now < expiresAt) return { action: 'none' };
  if (!rule.autoProlongation) return { action: 'deactivate' };
  const period = rule.validity * DAY_MS;
  const periods = Math.floor((now - expiresAt) / period) + 1;
  return { action: 'prolong', expiresAt: iso(expiresAt + periods * period) };
}
