import { scopeOf } from '../../shared/rules/scope';
import { RuleCache, type VehicleRules } from '../../shared/pipeline/rule-cache';
import type { RuleRecords } from '../../shared/store/rule-records';
import type { Geozone } from '../../shared/schemas/geozone';
import type { StoredRule } from '../../shared/schemas/notification';
import type { LoadedState } from '../../shared/store/vehicle-state-store';

/** The records of a known set of rules and geozones, held in memory, for RuleCache to read instead of DynamoDB. */
export function memoryRuleRecords(rules: readonly StoredRule[], zones: readonly Geozone[] = []): RuleRecords {
  const rulesById = new Map(rules.map((rule) => [rule.id, rule as unknown as Record<string, unknown>]));
  const zonesById = new Map(zones.map((zone) => [zone.id, zone as unknown as Record<string, unknown>]));
  const found = (byId: Map<number, Record<string, unknown>>, ids: readonly number[]) =>
    ids.flatMap((id) => (byId.has(id) ? [structuredClone(byId.get(id)!)] : []));
  return {
    rulesById: (ids) => Promise.resolve(found(rulesById, ids)),
    zonesById: (ids) => Promise.resolve(found(zonesById, ids)),
    zonesOfClient: (clientId) =>
      Promise.resolve(zones.filter((zone) => zone.parentId === clientId).map((zone) => structuredClone(zone) as unknown as Record<string, unknown>)),
  };
}

/**
 * Resolves a known set of rules and geozones for vehicles the way evaluate and the sweep do: through RuleCache,
 * from vehicle items as the projector writes them (every rule listing the vehicle, and every scoped rule, at its
 * version; the cache itself judges a scope against the owners). The vehicle's
 * owner chain is `owners`, by default every client the rules belong to.
 */
export function ruleResolver(rules: readonly StoredRule[], zones: readonly Geozone[] = [], options: { owners?: string[] } = {}) {
  const cache = new RuleCache(undefined, memoryRuleRecords(rules, zones));
  const owners = options.owners ?? [...new Set(rules.map((rule) => rule.parentId))];
  const item = (vehicleId: number): LoadedState => ({
    state: undefined,
    version: 1,
    projection: {
      owners: owners.length > 0 ? owners : ['no-rules'],
      ruleRefs: Object.fromEntries(
        rules.filter((rule) => scopeOf(rule) !== 'listed' || rule.vehicleIds.includes(vehicleId)).map((rule) => [String(rule.id), rule.version]),
      ),
      zoneRefs: {},
    },
    silentAt: null,
  });
  return {
    cache,
    forVehicles(vehicleIds: Iterable<number>, now: number): Promise<Map<number, VehicleRules>> {
      return cache.resolve(new Map([...vehicleIds].map((vehicleId) => [vehicleId, item(vehicleId)])), now);
    },
    async forVehicle(vehicleId: number, now: number): Promise<VehicleRules> {
      return (await this.forVehicles([vehicleId], now)).get(vehicleId)!;
    },
  };
}

/** The rules of a known set that apply to a vehicle at `now`, as evaluate resolves them. */
export async function resolveRules(
  rules: readonly StoredRule[],
  vehicleId: number,
  now: number,
  zones: readonly Geozone[] = [],
): Promise<VehicleRules> {
  return ruleResolver(rules, zones).forVehicle(vehicleId, now);
}
