import { RULE_TYPES, type RuleType } from '../../schemas/notification';
import type { CompiledRule, ZoneLookup } from '../../rules/types';
import { isEffective } from '../../rules/lifecycle';
import { loadVehicleState, loadVehicleStates, type LoadedState } from '../../store/vehicle-state-store';
import type { AlertItem } from '../../store/alerts-store';
import { logger } from '../../observability/logger';
import { commitChanges, type VehicleChange } from '../commit-changes';
import { enqueueDeliveries } from '../enqueue-deliveries';
import { HEARTBEAT_INTERVAL_MS, tickVehicle, type EvaluatorLookup } from '../evaluate-vehicle';
import { toVehicleChange } from '../vehicle-change';

/**
 * Connection loss is the absence of messages, so no message can raise it: every minute the sweep shows each
 * vehicle under an effective connection-loss rule the passing time, and commits what the rule decides the
 * same way the evaluate function does.
 */
export interface TickRuleSource {
  rulesOfType(type: RuleType): CompiledRule[];
  zones: ZoneLookup;
}

export interface ConnectionLossResult {
  vehicles: number;
  alertsCreated: AlertItem[];
  failedVehicles: number[];
}

/** `certainAsOf`: silences are judged as of this moment at the latest (see backlog-hold.ts). */
export async function runConnectionLossPass(
  index: TickRuleSource,
  evaluatorFor: EvaluatorLookup,
  now: number,
  certainAsOf: number = now,
): Promise<ConnectionLossResult> {
  const rules = index.rulesOfType(RULE_TYPES.connectionLoss).filter((compiled) => isEffective(compiled.rule, now));
  const rulesByVehicle = new Map<number, CompiledRule[]>();
  for (const compiled of rules) {
    for (const vehicleId of compiled.rule.vehicleIds) {
      const list = rulesByVehicle.get(vehicleId) ?? [];
      list.push(compiled);
      rulesByVehicle.set(vehicleId, list);
    }
  }
  if (rulesByVehicle.size === 0) return { vehicles: 0, alertsCreated: [], failedVehicles: [] };

  // A stored last-seen may trail the truth by up to one heartbeat interval (heartbeats are coalesced), so the
  // vehicle is judged as of that long ago: a loss is raised only once the silence is certain, never for a
  // vehicle that is still reporting.
  const context = { now: Math.min(now - HEARTBEAT_INTERVAL_MS, certainAsOf), zones: index.zones };
  const changeFor = (vehicleId: number, loaded: LoadedState): VehicleChange | undefined =>
    toVehicleChange(
      vehicleId,
      loaded,
      tickVehicle({ vehicleId, state: loaded.state, rules: rulesByVehicle.get(vehicleId) ?? [], context, evaluatorFor }),
      now,
    );

  const states = await loadVehicleStates([...rulesByVehicle.keys()]);
  const changes: VehicleChange[] = [];
  for (const [vehicleId, loaded] of states) {
    const change = changeFor(vehicleId, loaded);
    if (change) changes.push(change);
  }
  const committed = await commitChanges(changes, async (vehicleId) => changeFor(vehicleId, await loadVehicleState(vehicleId)));
  for (const alert of committed.created) {
    logger.info('alert raised', { alertId: alert.alertId, ruleId: alert.ruleId, vehicleId: alert.vehicleId, kind: alert.event.kind });
  }
  await enqueueDeliveries(committed.created.map((alert) => alert.alertId));
  return { vehicles: rulesByVehicle.size, alertsCreated: committed.created, failedVehicles: [...committed.failedVehicles.keys()] };
}
