import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { storedUserSchema, type PushDevice } from '../schemas/directory';
import { conditionFailed } from './dynamo';
import { directoryKeys } from './keys';

/**
 * Changes one entry of a user's `telegramChats` or `pushDevices` map by its id, in one UpdateItem: no read
 * first and no list positions, so concurrent changes of other entries are never lost.
 */
export type UserMap = 'telegramChats' | 'pushDevices';

const table = () => resourcesConfig().DIRECTORY_TABLE;

function isMissingMap(error: unknown): boolean {
  // the map does not exist yet, or the user was stored before maps (a list)
  return (error as Error).name === 'ValidationException' && /document path/i.test((error as Error).message);
}

/** Turns a missing or list-typed attribute into a map, keeping its entries. */
async function ensureMap(userId: string, map: UserMap): Promise<void> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: directoryKeys.user(userId), ConsistentRead: true }));
  if (!Item) return;
  const current = storedUserSchema.shape[map].parse(Item[map]);
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: directoryKeys.user(userId),
        UpdateExpression: 'SET #map = :map',
        ConditionExpression: 'attribute_not_exists(#map) OR attribute_type(#map, :list)',
        ExpressionAttributeNames: { '#map': map },
        ExpressionAttributeValues: { ':map': current, ':list': 'L' },
      }),
    );
  } catch (error) {
    if (!conditionFailed(error)) throw error;
  }
}

interface EntryUpdate {
  UpdateExpression: string;
  ConditionExpression?: string;
  ExpressionAttributeValues?: Record<string, unknown>;
}

/**
 * Runs an update on `#map.#id` (the expression names them so). Returns false when its condition failed.
 */
export async function updateUserMapEntry(userId: string, map: UserMap, id: string, update: EntryUpdate): Promise<boolean> {
  const send = () =>
    documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: directoryKeys.user(userId),
        ...update,
        ExpressionAttributeNames: { '#map': map, '#id': id },
      }),
    );
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await send();
      return true;
    } catch (error) {
      if (conditionFailed(error)) return false;
      if (attempt === 0 && isMissingMap(error)) {
        await ensureMap(userId, map);
        continue;
      }
      throw error;
    }
  }
  return false;
}

/** The user's push devices by endpoint, or null when there is no such user. */
export async function loadPushDevices(userId: string): Promise<Record<string, PushDevice> | null> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: directoryKeys.user(userId), ConsistentRead: true }));
  if (!Item) return null;
  return storedUserSchema.shape.pushDevices.parse(Item.pushDevices);
}
