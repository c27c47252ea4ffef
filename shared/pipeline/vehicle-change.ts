import { buildAlertItem, type AlertItem } from '../store/alerts-store';
import type { LoadedState } from '../store/vehicle-state-store';
import { logger } from '../observability/logger';
import type { VehicleChange } from './commit-changes';
import type { VehicleOutcome } from './evaluate-vehicle';

/** What an evaluation outcome asks to write: the state (if worth it) and one pending alert per distinct event. */
export function toVehicleChange(vehicleId: number, loaded: LoadedState, outcome: VehicleOutcome, now: number): VehicleChange | undefined {
  for (const { ruleId, error } of outcome.failures) logger.error('rule evaluation failed', { vehicleId, ruleId, error });
  const alerts = new Map<string, AlertItem>();
  for (const { rule, event } of outcome.events) {
    const alert = buildAlertItem(rule.rule, vehicleId, event, now);
    if (!alerts.has(alert.alertId)) alerts.set(alert.alertId, alert);
  }
  if (!outcome.nextState && alerts.size === 0) return undefined;
  return { vehicleId, expectedVersion: loaded.version, state: outcome.nextState, alerts: [...alerts.values()] };
}
