import { GetCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { geozoneSchema, type Geozone } from '../schemas/geozone';
import { batchGetItems } from './batch-get';
import { parseRecord } from './record-schema';
import { createCounted, transactCounted, type CountChange, type TransactItem } from './client-counts';
import { cancellation, conditionFailed, conditionFailedAt, queryAll } from './dynamo';

/**
 * Geozones in the geozones table; item `id = 0` holds `lastGeozoneId`, the global id sequence that clients'
 * counters draw blocks of ids from (shared/store/client-counts.ts). Evaluators learn of a change through
 * the table's stream (the projector names the zone's new version on the items of the vehicles whose rules
 * use it). `refStamp` counts the rule writes that referred to the zone, so that a deletion can be refused
 * when a rule started using the zone after the caller checked.
 */
export const GEOZONES_META_ID = 0;

const table = () => resourcesConfig().GEOZONES_TABLE;

/** The zone changed (or a rule did, during a deletion) since the caller read it: the write did not happen. */
export class GeozoneConflictError extends Error {}

/** The zone exists at `expected` version; zones stored before versioning count as version 1. */
function atVersion(expected: number) {
  return {
    ConditionExpression: expected === 1 ? 'attribute_exists(id) AND (attribute_not_exists(version) OR version = :expected)' : 'version = :expected',
    ExpressionAttributeValues: { ':expected': expected },
  };
}

function parseZone(item: Record<string, unknown> | undefined): Geozone | null {
  if (!item) return null;
  const parsed = geozoneSchema.safeParse(item);
  return parsed.success ? parsed.data : null;
}

/** The input each computed field of a zone comes from, to name it when the stored record is refused. */
const ZONE_SOURCES = { area: 'geometry', perimetr: 'geometry' };

/** The zone's own write (alone, or the first item of its transaction) failed its condition. */
const zoneConditionFailed = (error: unknown) => conditionFailed(error) || conditionFailedAt(cancellation(error)?.reasons ?? [], 0);

/** Stores a new zone under a fresh id from its owner's geozone counter, at version 1, counting it in the owner's geozones (at most `limit`, when given). */
export async function createGeozone(zone: Omit<Geozone, 'id' | 'version'>, limit?: number): Promise<Geozone> {
  // checked before an id is taken, so a refused zone uses none
  const record = parseRecord(geozoneSchema.omit({ id: true }), { ...zone, version: 1 }, 'geozone', ZONE_SOURCES);
  const id = await createCounted('geozones', record.parentId, limit, (taken) => [
    { Put: { TableName: table(), Item: { ...record, id: taken }, ConditionExpression: 'attribute_not_exists(id)' } },
  ]);
  return { ...record, id };
}

export async function getGeozone(id: number): Promise<Geozone | null> {
  if (id === GEOZONES_META_ID) return null;
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: { id }, ConsistentRead: true }));
  return parseZone(Item);
}

export async function getGeozones(ids: readonly number[]): Promise<Geozone[]> {
  const unique = [...new Set(ids)].filter((id) => id !== GEOZONES_META_ID);
  const items = await batchGetItems(
    table(),
    unique.map((id) => ({ id })),
  );
  return items.flatMap((item) => parseZone(item) ?? []);
}

/** The count changes of a zone that moves from `from` to `to` (within `limit`); none when it stays. */
function moveCounts(from: string, to: string, limit?: number): CountChange[] {
  if (from === to) return [];
  return [
    { kind: 'geozones', clientId: from, delta: -1 },
    { kind: 'geozones', clientId: to, delta: 1, limit },
  ];
}

/**
 * Replaces a zone stored at `expectedVersion` with `zone` (same id, version `expectedVersion + 1`). False when
 * the zone no longer exists; GeozoneConflictError when it was changed meanwhile. A zone that moves to another
 * client (`previousParentId` differs) moves from one count to the other, within `limit`.
 */
export async function replaceGeozone(
  zone: Geozone,
  expectedVersion: number,
  move: { previousParentId: string; limit?: number } = { previousParentId: zone.parentId },
): Promise<boolean> {
  const stored = parseRecord(geozoneSchema, zone, 'geozone', ZONE_SOURCES);
  try {
    const put = { Put: { TableName: table(), Item: stored, ...atVersion(expectedVersion) } };
    await transactCounted([put], moveCounts(move.previousParentId, stored.parentId, move.limit));
    return true;
  } catch (error) {
    if (!zoneConditionFailed(error)) throw error;
    if ((await getGeozone(zone.id)) === null) return false;
    throw new GeozoneConflictError(`geozone ${zone.id} was changed by someone else; read it again`);
  }
}

/** How many rule writes have referred to the zone so far (0 for none); read before checking its references. */
export async function geozoneRefStamp(id: number): Promise<number> {
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: table(), Key: { id }, ProjectionExpression: 'refStamp', ConsistentRead: true }),
  );
  return typeof Item?.refStamp === 'number' ? Item.refStamp : 0;
}

/**
 * Deletes a zone stored at `expectedVersion` (so still owned by `parentId`), provided its `refStamp` is still
 * `seenRefStamp`: the caller read it before checking that no rule references the zone, so a rule written in
 * between cancels the deletion. The zone is counted out of its owner's geozones.
 */
export async function deleteGeozone(id: number, expectedVersion: number, seenRefStamp: number, parentId: string): Promise<void> {
  const version = atVersion(expectedVersion);
  try {
    await transactCounted(
      [
        {
          Delete: {
            TableName: table(),
            Key: { id },
            ConditionExpression: `(${version.ConditionExpression}) AND ${seenRefStamp === 0 ? 'attribute_not_exists(refStamp)' : 'refStamp = :stamp'}`,
            ExpressionAttributeValues: { ...version.ExpressionAttributeValues, ...(seenRefStamp === 0 ? {} : { ':stamp': seenRefStamp }) },
          },
        },
      ],
      [{ kind: 'geozones', clientId: parentId, delta: -1 }],
    );
  } catch (error) {
    if (zoneConditionFailed(error)) throw new GeozoneConflictError(`geozone ${id} changed during deletion; try again`);
    throw error;
  }
}

export async function listGeozonesOfClient(parentId: string): Promise<Geozone[]> {
  const zones: Geozone[] = [];
  for await (const page of paginateQuery(
    { client: documentClient() },
    {
      TableName: table(),
      IndexName: 'byParent',
      KeyConditionExpression: 'parentId = :parent',
      ExpressionAttributeValues: { ':parent': parentId },
    },
  )) {
    for (const item of page.Items ?? []) {
      const zone = parseZone(item);
      if (zone) zones.push(zone);
    }
  }
  return zones;
}

/**
 * Transaction items that make a rule write fail if one of these zones was deleted meanwhile, and move each
 * zone's `refStamp` on, so that a deletion checked before this write is refused.
 */
export function geozonesExist(ids: readonly number[]): TransactItem[] {
  return [...new Set(ids)].map((id) => ({
    Update: {
      TableName: table(),
      Key: { id },
      UpdateExpression: 'ADD refStamp :one',
      ConditionExpression: 'attribute_exists(id)',
      ExpressionAttributeValues: { ':one': 1 },
    },
  }));
}

/** Which of these zone ids exist (keys only, so a check costs what the ids cost, not what the polygons weigh). */
export async function existingGeozoneIds(ids: readonly number[]): Promise<Set<number>> {
  const unique = [...new Set(ids)].filter((id) => id !== GEOZONES_META_ID);
  const items = await batchGetItems(
    table(),
    unique.map((id) => ({ id })),
    { projectionExpression: 'id' },
  );
  return new Set(items.map((item) => Number(item.id)));
}

/** The client's zones as stored, unparsed (the rule cache compiles them), by the `byParent` index. */
export async function geozoneItemsOfClient(parentId: string): Promise<Record<string, unknown>[]> {
  return queryAll({
    TableName: table(),
    IndexName: 'byParent',
    KeyConditionExpression: 'parentId = :parent',
    ExpressionAttributeValues: { ':parent': parentId },
  });
}
