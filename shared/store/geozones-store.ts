import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, type BatchGetCommandOutput, GetCommand, TransactWriteCommand, UpdateCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { geozoneSchema, type Geozone } from '../schemas/geozone';
import { rulesVersionBump } from './rules-store';

/**
 * Geozones in the geozones table; item `id = 0` holds `lastGeozoneId`. Every change bumps the rules version
 * (rules table meta item) in the same transaction, since evaluators compile zones together with rules.
 */
export const GEOZONES_META_ID = 0;

type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

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

/** Stores a new zone under the next id, at version 1. */
export async function createGeozone(zone: Omit<Geozone, 'id' | 'version'>): Promise<Geozone> {
  const { Attributes } = await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: { id: GEOZONES_META_ID },
      UpdateExpression: 'ADD lastGeozoneId :one',
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const stored = geozoneSchema.parse({ ...zone, id: Number(Attributes?.lastGeozoneId), version: 1 });
  await documentClient().send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: table(), Item: stored, ConditionExpression: 'attribute_not_exists(id)' } },
        rulesVersionBump(),
      ],
    }),
  );
  return stored;
}

export async function getGeozone(id: number): Promise<Geozone | null> {
  if (id === GEOZONES_META_ID) return null;
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: { id }, ConsistentRead: true }));
  return parseZone(Item);
}

export async function getGeozones(ids: readonly number[]): Promise<Geozone[]> {
  const unique = [...new Set(ids)].filter((id) => id !== GEOZONES_META_ID);
  const zones: Geozone[] = [];
  for (let start = 0; start < unique.length; start += 100) {
    let pending: Record<string, unknown>[] | undefined = unique.slice(start, start + 100).map((id) => ({ id }));
    for (let attempt = 0; pending && pending.length > 0 && attempt < 8; attempt++) {
      const result: BatchGetCommandOutput = await documentClient().send(new BatchGetCommand({ RequestItems: { [table()]: { Keys: pending } } }));
      for (const item of result.Responses?.[table()] ?? []) {
        const zone = parseZone(item);
        if (zone) zones.push(zone);
      }
      pending = result.UnprocessedKeys?.[table()]?.Keys;
    }
    if (pending && pending.length > 0) throw new Error('the geozones table did not answer every key of a batch read');
  }
  return zones;
}

/**
 * Replaces a zone stored at `expectedVersion` with `zone` (same id, version `expectedVersion + 1`). False when
 * the zone no longer exists; GeozoneConflictError when it was changed meanwhile.
 */
export async function replaceGeozone(zone: Geozone, expectedVersion: number): Promise<boolean> {
  const stored = geozoneSchema.parse(zone);
  try {
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [{ Put: { TableName: table(), Item: stored, ...atVersion(expectedVersion) } }, rulesVersionBump()],
      }),
    );
    return true;
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    if ((await getGeozone(zone.id)) === null) return false;
    throw new GeozoneConflictError(`geozone ${zone.id} was changed by someone else; read it again`);
  }
}

/**
 * Deletes a zone stored at `expectedVersion`, provided the rules version is still `seenRulesVersion`: the
 * caller read it before checking that no rule references the zone, so a rule written in between cancels the
 * deletion.
 */
export async function deleteGeozone(id: number, expectedVersion: number, seenRulesVersion: number): Promise<void> {
  try {
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [{ Delete: { TableName: table(), Key: { id }, ...atVersion(expectedVersion) } }, rulesVersionBump(seenRulesVersion)],
      }),
    );
  } catch (error) {
    if (error instanceof TransactionCanceledException) throw new GeozoneConflictError(`geozone ${id} changed during deletion; try again`);
    throw error;
  }
}

export async function listGeozonesOfClient(parentId: string): Promise<Geozone[]> {
  const zones: Geozone[] = [];
  for await (const page of paginateQuery({ client: documentClient() }, {
    TableName: table(),
    IndexName: 'byParent',
    KeyConditionExpression: 'parentId = :parent',
    ExpressionAttributeValues: { ':parent': parentId },
  })) {
    for (const item of page.Items ?? []) {
      const zone = parseZone(item);
      if (zone) zones.push(zone);
    }
  }
  return zones;
}

/** Transaction items that make a rule write fail if one of these zones was deleted meanwhile. */
export function geozonesExist(ids: readonly number[]): TransactItem[] {
  return [...new Set(ids)].map((id) => ({
    ConditionCheck: { TableName: table(), Key: { id }, ConditionExpression: 'attribute_exists(id)' },
  }));
}
