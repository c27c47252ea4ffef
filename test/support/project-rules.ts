import { projectRuleChange } from '../../shared/pipeline/projection';
import type { StoredRule } from '../../shared/schemas/notification';
import { setVehicleOwners } from '../../shared/store/vehicle-state-store';

/**
 * What the rules table's stream and the directory do for rules a test stored directly: the projector's own
 * function names each rule on its vehicles' items, and each vehicle is recorded as owned by the rule's client.
 * (The stream path itself is covered by test/projection/projector.test.ts.)
 */
export async function projectRules(rules: readonly StoredRule[], options: { registerVehicles?: boolean } = {}): Promise<void> {
  for (const rule of rules) await projectRuleChange(undefined, rule);
  if (options.registerVehicles ?? true) {
    const owners = new Map<number, string>();
    for (const rule of rules) for (const vehicleId of rule.vehicleIds) owners.set(vehicleId, rule.parentId);
    for (const [vehicleId, owner] of owners) await setVehicleOwners(vehicleId, [owner]);
  }
}
