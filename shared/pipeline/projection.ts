import { isDeepStrictEqual } from 'node:util';
import pLimit from 'p-limit';
import { logger } from '../observability/logger';
import { geozoneSchema, type Geozone } from '../schemas/geozone';
import { storedRuleSchema, type StoredRule } from '../schemas/notification';
import { scopeOf } from '../rules/scope';
import { zonesOfRule, zoneVersionsOf } from '../store/rule-coverage';
import { listRulesOfClient } from '../store/rules-store';
import { subtreeAgentIds } from '../store/directory-store';
import { applyRefChange, bumpZoneSet, vehicleIdsOwnedBy, type RefChange } from '../store/vehicle-state-store';

/**
 * The projector: keeps each vehicle's item naming the rules that list it (id → version) and the versions of
 * the geozones those rules use, from the rules and geozones tables' streams. A rule change touches only the
 * vehicles the rule lists before or after the change; a geozone change only the vehicles of its client's rules
 * that use it. Nothing here reads the whole platform.
 * Every change is idempotent (it sets versions, or removes refs), so a stream batch retried replays safely.
 */
export const PROJECTION_CONCURRENCY = 16;

const ruleKey = (item: Record<string, unknown> | undefined) => (item && Number(item.id) !== 0 ? item : undefined);

function parseRule(item: Record<string, unknown> | undefined): StoredRule | undefined {
  if (!ruleKey(item)) return undefined;
  const parsed = storedRuleSchema.safeParse(item);
  if (!parsed.success) logger.error('unreadable rule image not projected', { ruleId: item?.id, issues: parsed.error.issues.slice(0, 5) });
  return parsed.success ? parsed.data : undefined;
}

function parseZone(item: Record<string, unknown> | undefined): Geozone | undefined {
  if (!item || Number(item.id) === 0) return undefined;
  const parsed = geozoneSchema.safeParse(item);
  return parsed.success ? parsed.data : undefined;
}

async function applyAll(changes: RefChange[]): Promise<number> {
  const limit = pLimit(PROJECTION_CONCURRENCY);
  await Promise.all(changes.map((change) => limit(() => applyRefChange(change))));
  return changes.length;
}

/**
 * The vehicles a rule watches: those it lists, or, for a scoped rule, those registered to its client (and to the
 * clients below it), found through the owner index: the cost follows the vehicles of the scope, not the platform.
 */
export async function vehiclesOfRule(rule: StoredRule): Promise<number[]> {
  const scope = scopeOf(rule);
  if (scope === 'listed') return rule.vehicleIds;
  if (scope === 'client') return vehicleIdsOwnedBy(rule.parentId);
  return vehiclesBelow(rule.parentId);
}

const sameScope = (a: StoredRule, b: StoredRule) =>
  scopeOf(a) === scopeOf(b) && a.parentId === b.parentId && isDeepStrictEqual(a.vehicleIds, b.vehicleIds);

/** Projects one change of a rules-table item (old and new images, either absent). Returns the vehicles touched. */
export async function projectRuleChange(
  oldImage: Record<string, unknown> | undefined,
  newImage: Record<string, unknown> | undefined,
): Promise<number> {
  if (!ruleKey(oldImage) && !ruleKey(newImage)) return 0;
  const before = parseRule(oldImage);
  const after = parseRule(newImage);
  // a write that changed neither the rule's version nor its vehicles (e.g. a restore of the same item) moves nothing
  if (before && after && before.version === after.version && sameScope(before, after)) return 0;
  const watched = after ? await vehiclesOfRule(after) : [];
  const listed = new Set(watched);
  const dropped = before && !(after && sameScope(before, after)) ? (await vehiclesOfRule(before)).filter((vehicleId) => !listed.has(vehicleId)) : [];

  const changes: RefChange[] = dropped.map((vehicleId) => ({ vehicleId, removeRules: [(before ?? after)!.id] }));
  if (after) {
    const zoneVersions = await zoneVersionsOf(zonesOfRule(after));
    for (const vehicleId of listed) changes.push({ vehicleId, setRules: { [after.id]: after.version }, setZones: zoneVersions });
  }
  return applyAll(changes);
}

/**
 * Projects one change of a geozones-table item onto the vehicles of the rules that use it: rules of the zone's
 * client and of the clients below it (a zone condition may name a zone of a client above the rule's).
 */
export async function projectGeozoneChange(
  oldImage: Record<string, unknown> | undefined,
  newImage: Record<string, unknown> | undefined,
  now: number = Date.now(),
): Promise<number> {
  const before = parseZone(oldImage);
  const after = parseZone(newImage);
  const zone = after ?? before;
  if (!zone) return 0;
  if (before && after && before.version === after.version) return 0;
  const vehicles = new Set<number>();
  for (const clientId of await subtreeAgentIds(zone.parentId)) {
    for (const rule of await listRulesOfClient(clientId)) {
      if (zonesOfRule(rule).includes(zone.id)) for (const vehicleId of await vehiclesOfRule(rule)) vehicles.add(vehicleId);
    }
  }
  const change = (vehicleId: number): RefChange =>
    after ? { vehicleId, setZones: { [zone.id]: after.version } } : { vehicleId, removeZones: [zone.id] };
  const touched = await applyAll([...vehicles].map(change));
  let journaled = 0;
  for (const clientId of new Set([before?.parentId, after?.parentId].filter((id): id is string => id !== undefined))) {
    journaled += await startZoneSetVersion(clientId, now);
  }
  return touched + journaled;
}

/** The vehicles owned by the client or by a client below it. */
async function vehiclesBelow(clientId: string): Promise<number[]> {
  return (await Promise.all((await subtreeAgentIds(clientId)).map(vehicleIdsOwnedBy))).flat();
}

/**
 * A client's zones changed: every vehicle whose owner chain includes the client gets a new version of that
 * client's zone set, so that its next message journals the zones as they are now. The cost follows the vehicles
 * affected, not the platform.
 */
async function startZoneSetVersion(clientId: string, version: number): Promise<number> {
  const vehicleIds = await vehiclesBelow(clientId);
  const limit = pLimit(PROJECTION_CONCURRENCY);
  const bumped = await Promise.all(vehicleIds.map((vehicleId) => limit(() => bumpZoneSet(vehicleId, clientId, version))));
  return bumped.filter(Boolean).length;
}
