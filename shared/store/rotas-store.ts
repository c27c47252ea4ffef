import { randomBytes } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { logger } from '../observability/logger';
import { rotaIdClient, storedRotaSchema, type StoredRota } from '../schemas/rota';
import { parseRecord } from './record-schema';
import { conditionFailed, queryAll } from './dynamo';
import { rotaKeys } from './keys';

/** The on-call rotas of each client (schemas/rota.ts for the layout). */
const table = () => resourcesConfig().DIRECTORY_TABLE;

export const newRotaId = (clientId: string) => `${clientId}.${randomBytes(16).toString('base64url')}`;
export const newOverrideId = () => randomBytes(16).toString('base64url');

export class RotaLimitError extends Error {
  override name = 'RotaLimitError';
  constructor(readonly limit: number) {
    super(`the client already has ${limit} rotas, the most allowed`);
  }
}

/** Another writer changed the rota since it was read. */
export class RotaConflictError extends Error {
  override name = 'RotaConflictError';
}

function parseItem(item: Record<string, unknown>): StoredRota | null {
  const parsed = storedRotaSchema.safeParse(item);
  if (parsed.success) return parsed.data;
  logger.error('unreadable rota skipped', { rotaId: item.id, issues: parsed.error.issues.slice(0, 5) });
  return null;
}

/**
 * Stores a new rota when its client holds fewer than `limit`. The count is read before the write: rotas change
 * rarely and by people, so two clients' writers racing past the limit by one is accepted rather than paying a
 * counter on every write.
 */
export async function createRota(input: StoredRota, limit: number): Promise<StoredRota> {
  const rota = parseRecord(storedRotaSchema, input, 'rota');
  const { Count } = await documentClient().send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': rotaKeys.partition(rota.parentId), ':prefix': rotaKeys.sortPrefix },
      Select: 'COUNT',
    }),
  );
  if ((Count ?? 0) >= limit) throw new RotaLimitError(limit);
  await documentClient().send(
    new PutCommand({
      TableName: table(),
      Item: { ...rotaKeys.rota(rota.parentId, rota.id), ...rota },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return rota;
}

export async function getRota(rotaId: string): Promise<StoredRota | null> {
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: table(), Key: rotaKeys.rota(rotaIdClient(rotaId), rotaId), ConsistentRead: true }),
  );
  return Item ? parseItem(Item) : null;
}

/** The rotas of several ids, those that exist (one read each; an escalation names a few). */
export async function getRotas(rotaIds: readonly string[]): Promise<StoredRota[]> {
  const rotas = await Promise.all([...new Set(rotaIds)].map((id) => getRota(id)));
  return rotas.filter((rota) => rota !== null);
}

/** A client's rotas, by name. */
export async function listRotas(clientId: string): Promise<StoredRota[]> {
  const items = await queryAll({
    TableName: table(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': rotaKeys.partition(clientId), ':prefix': rotaKeys.sortPrefix },
    ConsistentRead: true,
  });
  const rotas = items.map(parseItem).filter((rota) => rota !== null);
  return rotas.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

/** Writes the rota's next version over the one read (`version` one less): RotaConflictError when another write came first. */
export async function replaceRota(next: StoredRota): Promise<StoredRota> {
  const rota = parseRecord(storedRotaSchema, next, 'rota');
  try {
    await documentClient().send(
      new PutCommand({
        TableName: table(),
        Item: { ...rotaKeys.rota(rota.parentId, rota.id), ...rota },
        ConditionExpression: 'attribute_exists(pk) AND version = :read',
        ExpressionAttributeValues: { ':read': rota.version - 1 },
      }),
    );
    return rota;
  } catch (error) {
    if (conditionFailed(error)) throw new RotaConflictError(`rota ${rota.id} changed meanwhile`);
    throw error;
  }
}

export async function deleteRota(rota: Pick<StoredRota, 'id' | 'parentId'>): Promise<boolean> {
  try {
    await documentClient().send(
      new DeleteCommand({ TableName: table(), Key: rotaKeys.rota(rota.parentId, rota.id), ConditionExpression: 'attribute_exists(pk)' }),
    );
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}
