import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, type BatchGetCommandOutput, GetCommand, TransactWriteCommand, UpdateCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/clients';
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

/** A rule changed while the deletion checked references, or the zone vanished: the deletion did not happen. */
export class GeozoneConflictError extends Error {}

function parseZone(item: Record<string, unknown> | undefined): Geozone | null {
  if (!item) return null;
  const parsed = geozoneSchema.safeParse(item);
  return parsed.success ? parsed.data : null;
}

export async function createGeozone(zone: Omit<Geozone, 'id'>): Promise<Geozone> {
  const { Attributes } = await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: { id: GEOZONES_META_ID },
      UpdateExpression: 'ADD lastGeozoneId :one',
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const stored = geozoneSchema.parse({ ...zone, id: Number(Attributes?.lastGeozoneId) });
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

/** Replaces an existing zone (same id); false when it no longer exists. */
export async function replaceGeozone(zone: Geozone): Promise<boolean> {
  const stored = geozoneSchema.parse(zone);
  try {
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table(), Item: stored, ConditionExpression: 'attribute_exists(id)' } },
          rulesVersionBump(),
        ],
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof TransactionCanceledException) return false;
    throw error;
  }
}

/**
 * Deletes a zone, provided the rules version is still `seenRulesVersion`: the caller read it before checking
 * that no rule references the zone, so a rule written in between cancels the deletion.
 */
export async function deleteGeozone(id: number, seenRulesVersion: number): Promise<void> {
  try {
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          { Delete: { TableName: table(), Key: { id }, ConditionExpression: 'attribute_exists(id)' } },
          rulesVersionBump(seenRulesVersion),
        ],
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
