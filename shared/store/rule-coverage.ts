import pLimit from 'p-limit';
import { resourcesConfig } from '../config';
import type { StoredRule } from '../schemas/notification';
import { compileRule, zoneIdsOf } from '../rules/rule-index';
import { scopeCovers, scopeOf } from '../rules/scope';
import { batchGetItems } from './batch-get';
import { listRulesOfClient } from './rules-store';
import { applyRefChange, type RefChange } from './vehicle-state-store';

/**
 * Which rules cover a vehicle, as the vehicle's item records them (`ruleRefs`, `zoneRefs`). The projector keeps
 * them when a rule changes; this keeps them when the vehicle changes hands: a scoped rule (settings.scope client
 * or subtree) of the new owner chain starts covering it at once, one of the old chain stops. The work is one
 * read of the rules of each client of the two chains, whatever the size of the platform.
 */

/** The geozones a stored rule looks at (its settings compiled where they can be). */
export function zonesOfRule(rule: StoredRule): number[] {
  const compilation = compileRule(rule);
  return zoneIdsOf(rule, compilation.ok ? compilation.compiled.settings : undefined);
}

/** The stored version of each existing zone, read consistently. */
export async function zoneVersionsOf(zoneIds: readonly number[]): Promise<Record<number, number>> {
  const versions: Record<number, number> = {};
  if (zoneIds.length === 0) return versions;
  const zones = await batchGetItems(
    resourcesConfig().GEOZONES_TABLE,
    zoneIds.map((id) => ({ id })),
    { projectionExpression: 'id, version', consistentRead: true },
  );
  for (const zone of zones) versions[Number(zone.id)] = typeof zone.version === 'number' ? zone.version : 1;
  return versions;
}

/** Whether a rule watches a vehicle owned by `owners` (owner first): its scope takes it in and its client is in the chain. */
export function ruleCovers(rule: Pick<StoredRule, 'parentId' | 'settings' | 'vehicleIds'>, vehicleId: number, owners: readonly string[]): boolean {
  return owners.includes(rule.parentId) && scopeCovers(rule, scopeOf(rule), new Set(rule.vehicleIds), vehicleId, owners);
}

const COVERAGE_CONCURRENCY = 8;

async function rulesOfChain(chain: readonly string[]): Promise<StoredRule[]> {
  const limit = pLimit(COVERAGE_CONCURRENCY);
  return (await Promise.all(chain.map((clientId) => limit(() => listRulesOfClient(clientId))))).flat();
}

/** Rules that covered the vehicle under the old chain and do not under the new one. */
export async function rulesLeaving(vehicleId: number, from: readonly string[], to: readonly string[]): Promise<StoredRule[]> {
  return (await rulesOfChain(from)).filter((rule) => ruleCovers(rule, vehicleId, from) && !ruleCovers(rule, vehicleId, to));
}

/**
 * Records on the vehicle's item the scoped rules of its owner chain (and their zones), and, after a move, drops
 * the scoped rules of the old chain that no longer take it in. Listed rules keep their refs: they name the
 * vehicle themselves, and evaluation checks the owner chain anyway. Returns every rule, listed or scoped, that
 * stopped applying with the move.
 */
export async function projectVehicleScope(
  vehicleId: number,
  owners: readonly string[],
  previousOwners: readonly string[] = [],
): Promise<StoredRule[]> {
  const covering = (await rulesOfChain(owners)).filter((rule) => scopeOf(rule) !== 'listed' && ruleCovers(rule, vehicleId, owners));
  const lost = previousOwners.length > 0 ? await rulesLeaving(vehicleId, previousOwners, owners) : [];
  const leaving = lost.filter((rule) => scopeOf(rule) !== 'listed');
  const zoneIds = [...new Set(covering.flatMap(zonesOfRule))];
  const change: RefChange = {
    vehicleId,
    ...(covering.length > 0 ? { setRules: Object.fromEntries(covering.map((rule) => [rule.id, rule.version])) } : {}),
    ...(zoneIds.length > 0 ? { setZones: await zoneVersionsOf(zoneIds) } : {}),
    ...(leaving.length > 0 ? { removeRules: leaving.map((rule) => rule.id) } : {}),
  };
  await applyRefChange(change);
  return lost;
}
