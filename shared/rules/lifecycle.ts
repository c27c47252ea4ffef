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

/** The outcome of a prolongation: the new expiry, and whether the 90-day cap cut the requested days short. */
export interface Prolongation {
  expiresAt: string;
  clamped: boolean;
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

/**
 * Validity of a newly created rule: from its activation (or now) for `validity` days. An activation time so far
 * back that the period would already be over starts the period now, as re-activating an expired rule does,
 * rather than storing a rule that can never fire.
 */
export function initialValidity(body: NotificationBody, now: number): Validity {
  let from = activationStart(body, now);
  if (from + body.validity * DAY_MS <= now) from = now;
  return { validFrom: iso(from), expiresAt: iso(from + body.validity * DAY_MS) };
}

/**
 * The latest a period starting at `from` may end: 90 days after its start, where a start in the past counts
 * as now. A deferred rule (activation mode 1) may thus end 90 days after its activation, never later.
 */
export function validityCap(from: number, now: number): number {
  return Math.max(from, now) + MAX_VALIDITY_DAYS * DAY_MS;
}

/**
 * Validity after a replace (PUT). The period keeps its start unless the activation time changed; a rule that
 * activates now (mode 0) never keeps a start in the future, so switching a deferred rule to mode 0 cannot
 * carry its far expiry into force. The end is the start plus the new `validity`, except that an unchanged
 * start and validity keep the stored end, so a replace never undoes a prolongation. A rule made active while
 * its period is already over restarts from now, so that re-enabling an expired rule makes it work again
 * instead of being deactivated at the next sweep. The end never passes `validityCap`.
 */
export function replacedValidity(previous: StoredRule, body: NotificationBody, now: number): Validity {
  const activationChanged =
    body.activationMode === 1 &&
    body.activationTime !== null &&
    (previous.activationMode !== 1 || previous.activationTime === null || Date.parse(previous.activationTime) !== Date.parse(body.activationTime));
  const previousFrom = Date.parse(previous.validFrom);
  let from = activationChanged ? activationStart(body, now) : previousFrom;
  if (body.activationMode === 0 && from > now) from = now;
  let expiresAt = from + body.validity * DAY_MS;
  if (from === previousFrom && body.validity === previous.validity) expiresAt = Math.max(expiresAt, Date.parse(previous.expiresAt));
  if (body.active && expiresAt <= now) {
    return { validFrom: iso(now), expiresAt: iso(now + body.validity * DAY_MS) };
  }
  return { validFrom: iso(from), expiresAt: iso(Math.min(expiresAt, validityCap(from, now))) };
}

/**
 * Prolonging by `days` (1..90): counted from the current expiry, or from now when the rule has already
 * expired, and capped (see `validityCap`). The cap clamps the request, and says so, rather than refusing it,
 * so that prolonging by the default (the rule's validity) always works. The result is never earlier than the
 * current expiry. Throws ProlongationError for other day counts.
 */
export function prolong(rule: StoredRule, days: number, now: number): Prolongation {
  if (!Number.isInteger(days) || days < 1 || days > MAX_VALIDITY_DAYS) throw new ProlongationError(days);
  const current = Date.parse(rule.expiresAt);
  const requested = Math.max(current, now) + days * DAY_MS;
  const expiresAt = Math.max(current, Math.min(requested, validityCap(Date.parse(rule.validFrom), now)));
  return { expiresAt: iso(expiresAt), clamped: expiresAt < requested };
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
  // The first whole period that ends after now ends at most one validity (≤ 90 days) ahead.
  return { action: 'prolong', expiresAt: iso(expiresAt + periods * period) };
}
