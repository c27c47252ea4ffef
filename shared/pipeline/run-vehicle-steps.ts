import type { VehicleClock } from '../config';
import type { AlertItem } from '../store/alerts/alerts-store';
import { loadVehicleState, loadVehicleStates, type LoadedState } from '../store/vehicle-state-store';
import { logger } from '../observability/logger';
import { commitChanges, type VehicleChange } from './commit-changes';
import { enqueueDeliveries } from '../queues/enqueue-deliveries';
import type { VehicleOutcome } from './evaluate-vehicle';
import type { RuleCache, VehicleRules } from './rule-cache';
import { toVehicleChange } from './vehicle-change';

/**
 * The one path from vehicles to delivered alerts, shared by evaluate (messages) and the sweep (time passing):
 * load the vehicles' items in BatchGetItem requests, resolve the rules that apply to each (rule cache), run the
 * pure step, commit states and alerts transactionally (recomputing a vehicle whose item moved meanwhile), and
 * ask for delivery of the alerts this commit created.
 * A vehicle the directory does not know (no owner on its item) is skipped: it raises nothing and is not written.
 */
export type VehicleStep = (vehicleId: number, loaded: LoadedState, rules: VehicleRules) => VehicleOutcome;

export interface VehicleStepsResult {
  created: AlertItem[];
  enqueued: Set<string>;
  /** Vehicles whose work must be repeated (their messages redelivered), with the error. */
  failedVehicles: Map<number, unknown>;
  /** Vehicles skipped because no client owns them. */
  unknownVehicles: number[];
}

export interface VehicleStepsOptions {
  /** How the vehicles' clocks are stored (config: VEHICLE_CLOCK). */
  vehicleClock: VehicleClock;
  /** Resolve the visit journal's zones too (messages do; the sweep's time passing does not move vehicles). */
  journal?: boolean;
  /**
   * Read the items eventually consistent. Safe only where every step whose outcome depends on the item commits
   * with the item's version as condition, which evaluate under the exact clock does: a stale read then fails
   * its commit and the vehicle is read again, consistently, and recomputed.
   */
  eventuallyConsistent?: boolean;
}

export async function runVehicleSteps(
  vehicleIds: readonly number[],
  step: VehicleStep,
  rules: RuleCache,
  now: number,
  options: VehicleStepsOptions,
): Promise<VehicleStepsResult> {
  const result: VehicleStepsResult = { created: [], enqueued: new Set(), failedVehicles: new Map(), unknownVehicles: [] };
  let loaded: Map<number, LoadedState>;
  let resolved: Map<number, VehicleRules>;
  try {
    loaded = await loadVehicleStates(vehicleIds, { consistent: options.eventuallyConsistent !== true });
    resolved = await rules.resolve(loaded, now, options);
  } catch (error) {
    logger.error('vehicles or their rules not loaded; their work will be repeated', { vehicles: vehicleIds.length, error });
    for (const vehicleId of new Set(vehicleIds)) result.failedVehicles.set(vehicleId, error);
    return result;
  }

  const changeFor = (vehicleId: number, item: LoadedState, vehicleRules: VehicleRules): VehicleChange | undefined =>
    toVehicleChange(vehicleId, item, step(vehicleId, item, vehicleRules), now, vehicleRules.rules, options.vehicleClock);

  const changes: VehicleChange[] = [];
  for (const [vehicleId, item] of loaded) {
    if (item.projection.owners.length === 0) {
      result.unknownVehicles.push(vehicleId);
      continue;
    }
    try {
      const change = changeFor(vehicleId, item, resolved.get(vehicleId)!);
      if (change) changes.push(change);
    } catch (error) {
      logger.error('vehicle not evaluated', { vehicleId, error });
      result.failedVehicles.set(vehicleId, error);
    }
  }
  // debug only: the platform's stream carries every vehicle, and those of clients without rules are the usual case
  if (result.unknownVehicles.length > 0) logger.debug('messages of vehicles no client owns ignored', { vehicleIds: result.unknownVehicles });

  const committed = await commitChanges(changes, async (vehicleId) => {
    const item = await loadVehicleState(vehicleId);
    if (item.projection.owners.length === 0) return undefined;
    const vehicleRules = (await rules.resolve(new Map([[vehicleId, item]]), now, options)).get(vehicleId)!;
    return changeFor(vehicleId, item, vehicleRules);
  });
  for (const [vehicleId, error] of committed.failedVehicles) result.failedVehicles.set(vehicleId, error);
  result.created = committed.created;
  for (const alert of committed.created) {
    logger.info(alert.silenced ? 'silenced alert kept in the history' : 'alert raised', {
      alertId: alert.alertId,
      ruleId: alert.ruleId,
      vehicleId: alert.vehicleId,
      kind: alert.event.kind,
    });
  }
  // only alerts in the outbox are delivered: a silenced one is kept in the history alone
  result.enqueued = await enqueueDeliveries(committed.created.filter((alert) => alert.outbox !== undefined).map((alert) => alert.alertId));
  return result;
}
