import { buildAlertItem, buildSilencedAlertItem, type AlertItem } from '../store/alerts/alerts-store';
import { buildVisitItem, type VisitItem } from '../store/visits-store';
import type { LoadedState } from '../store/vehicle-state-store';
import { logger } from '../observability/logger';
import type { VehicleChange } from './commit-changes';
import type { CompiledRule } from '../rules/types';
import type { VehicleClock } from '../config';
import { SUPPRESSION_REASONS } from '../schemas/suppression';
import { type VehicleOutcome } from './evaluate-vehicle';
import { deadlineToStore, silenceWindow } from './silence-deadline';
import { storedRun } from './noise-budget';

/** A visit opened and closed by the same batch is written once, complete (a transaction may touch an item once). */
function latestPerVisit(items: VisitItem[]): VisitItem[] {
  return [...new Map(items.map((item) => [item.visitKey, item])).values()];
}

/** What an evaluation outcome asks to write: the state (if worth it) and one pending alert per distinct event. */
export function toVehicleChange(
  vehicleId: number,
  loaded: LoadedState,
  outcome: VehicleOutcome,
  now: number,
  rules: readonly CompiledRule[],
  clock: VehicleClock,
): VehicleChange | undefined {
  for (const { ruleId, error } of outcome.failures) logger.error('rule evaluation failed', { vehicleId, ruleId, error });
  const alerts = new Map<string, AlertItem>();
  for (const { rule, event } of outcome.events) {
    const alert = buildAlertItem(rule.rule, vehicleId, event, now);
    if (!alerts.has(alert.alertId)) alerts.set(alert.alertId, alert);
  }
  // a silenced event of a rule that stores alerts is kept in the history, in the same write as the state and with
  // nothing to deliver: no outbox entry, no delivery request, no deliver invocation
  for (const { rule, event, silenceId } of outcome.silenced ?? []) {
    if (!rule.rule.stored) continue;
    const alert = buildSilencedAlertItem(rule.rule, vehicleId, event, silenceId, now);
    if (!alerts.has(alert.alertId)) alerts.set(alert.alertId, alert);
  }
  // a deadline that no longer fits (passed while the vehicle reports, or a connection-loss rule added, changed
  // or gone) is moved with a write of the state as it is, so that the sweep neither misses the vehicle nor
  // keeps finding it
  const stale =
    !outcome.nextState &&
    loaded.state !== undefined &&
    deadlineToStore(loaded.silentAt, silenceWindow(loaded.state, rules, clock), now) !== loaded.silentAt;
  const state = outcome.nextState ?? (stale ? loaded.state : undefined);
  if (!state && alerts.size === 0) return undefined;
  return {
    vehicleId,
    expectedVersion: loaded.version,
    state,
    projection: loaded.projection,
    silentAt: state ? deadlineToStore(loaded.silentAt, silenceWindow(state, rules, clock), now) : null,
    alerts: [...alerts.values()],
    ...(state && outcome.suppressedLog.length > 0
      ? {
          suppressedLog: outcome.suppressedLog.map(({ ruleId, slot, reason, first, last, count, age, silenceId }) => ({
            vehicleId,
            ruleId,
            slot,
            run: storedRun(SUPPRESSION_REASONS.indexOf(reason), first, last, count, silenceId ?? age),
          })),
        }
      : {}),
    ...(state && outcome.visits ? { visits: latestPerVisit(outcome.visits.map((record) => buildVisitItem(vehicleId, record, now))) } : {}),
  };
}
