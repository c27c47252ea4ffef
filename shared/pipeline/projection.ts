import pLimit from 'p-limit';
import { paginateQuery } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { logger } from '../observability/logger';
import { geozoneSchema, type Geozone } from '../schemas/geozone';
import { storedRuleSchema, type StoredRule } from '../schemas/notification';
import { compileRule, zoneIdsOf } from '../rules/rule-index';
import { batchGetItems } from '../store/batch-get';
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

function zonesOfRule(rule: StoredRule): number[] {
  const compilation = compileRule(rule);
  return zoneIdsOf(rule, compilation.ok ? compilation.compiled.settings : undefined);
}

async function applyAll(changes: RefChange[]): Promise<number> {
  const limit = pLimit(PROJECTION_CONCURRENCY);
  await Promise.all(changes.map((change) => limit(() => applyRefChange(change))));
  return changes.length;
}

/** Projects one change of a rules-table item (old and new images, either absent). Returns the vehicles touched. */
export async function projectRuleChange(
  oldImage: Record<string, unknown> | undefined,
  newImage: Record<string, unknown> | undefined,
): Promise<number> {
  if (!ruleKey(oldImage) && !ruleKey(newImage)) return 0;
  const before = parseRule(oldImage);
  const after = parseRule(newImage);
  const listed = new Set(after?.vehicleIds ?? []);
  const dropped = (before?.vehicleIds ?? []).filter((vehicleId) => !listed.has(vehicleId));
  // a write that changed neither the rule's version nor its vehicles (e.g. a restore of the same item) moves nothing
  if (before && after && before.version === after.version && dropped.length === 0 && before.vehicleIds.length === after.vehicleIds.length) return 0;

  const changes: RefChange[] = dropped.map((vehicleId) => ({ vehicleId, removeRules: [(before ?? after)!.id] }));
  if (after) {
    const zoneIds = zonesOfRule(after);
    const zoneVersions: Record<number, number> = {};
    if (zoneIds.length > 0) {
      const zones = await batchGetItems(
        resourcesConfig().GEOZONES_TABLE,
        zoneIds.map((id) => ({ id })),
        {
          projectionExpression: 'id, version',
          consistentRead: true,
        },
      );
      for (const zone of zones) zoneVersions[Number(zone.id)] = typeof zone.version === 'number' ? zone.version : 1;
    }
    for (const vehicleId of listed) changes.push({ vehicleId, setRules: { [after.id]: after.version }, setZones: zoneVersions });
  }
  return applyAll(changes);
}

/** Projects one change of a geozones-table item onto the vehicles of the rules (of the zone's client) that use it. */
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
  for await (const page of paginateQuery(
    { client: documentClient() },
    {
      TableName: resourcesConfig().RULES_TABLE,
      IndexName: 'byParent',
      KeyConditionExpression: 'parentId = :parent',
      ExpressionAttributeValues: { ':parent': zone.parentId },
    },
  )) {
    for (const item of page.Items ?? []) {
      const rule = parseRule(item);
      if (rule && zonesOfRule(rule).includes(zone.id)) for (const vehicleId of rule.vehicleIds) vehicles.add(vehicleId);
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
