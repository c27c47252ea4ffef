import type { VehicleClock } from '../config';
import type { CompiledRule } from '../rules/types';
import { RULE_TYPES } from '../schemas/notification';
import type { VehicleState } from '../schemas/vehicle-state';
import { nextReminderAt } from './noise-budget';
import { reportableFrom } from './schedule-gate';

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
