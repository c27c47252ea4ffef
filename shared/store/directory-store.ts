import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, TransactWriteCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import {
  agentSchema,
  directoryKeys,
  storedUserSchema,
  vehicleProfileSchema,
  type Agent,
  type Language,
  type StoredUser,
  type VehicleProfile,
} from '../schemas/directory';
import { hashPassword } from '../auth/password';
import { batchGetItems } from './batch-get';
import { setVehicleOwners } from './vehicle-state-store';

/**
 * Clients (agents), their hierarchy, users and vehicles in the directory table (key layout in
 * `shared/schemas/directory.ts`). Besides that layout, a login has a guard item `LOGIN#<login>` / `LOGIN`
 * written in the same transaction as its user, so two users can never share a login.
 */
const table = () => resourcesConfig().DIRECTORY_TABLE;
const loginGuardKey = (login: string) => ({ pk: `LOGIN#${login.toLowerCase()}`, sk: 'LOGIN' });

export class DirectoryConflictError extends Error {}

export interface NewAgent {
  name: string;
  fullName?: string;
  parentId?: string | null;
  agentInfoType?: number;
}

export async function createAgent(input: NewAgent): Promise<Agent> {
  const agent = agentSchema.parse({ agentId: randomUUID(), parentId: input.parentId ?? null, name: input.name, fullName: input.fullName, agentInfoType: input.agentInfoType });
  const items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']> = [
    { Put: { TableName: table(), Item: { ...directoryKeys.agent(agent.agentId), ...agent }, ConditionExpression: 'attribute_not_exists(pk)' } },
  ];
  if (agent.parentId) {
    items.push(
      { ConditionCheck: { TableName: table(), Key: directoryKeys.agent(agent.parentId), ConditionExpression: 'attribute_exists(pk)' } },
      { Put: { TableName: table(), Item: { ...directoryKeys.childLink(agent.parentId, agent.agentId), agentId: agent.agentId } } },
    );
  }
  try {
    await documentClient().send(new TransactWriteCommand({ TransactItems: items }));
  } catch (error) {
    if (error instanceof TransactionCanceledException) throw new DirectoryConflictError(`parent client ${agent.parentId} does not exist`);
    throw error;
  }
  return agent;
}

export async function getAgent(agentId: string): Promise<Agent | null> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: directoryKeys.agent(agentId) }));
  return Item ? agentSchema.parse(Item) : null;
}

export async function childAgentIds(agentId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const page of paginateQuery({ client: documentClient() }, {
    TableName: table(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :child)',
    ExpressionAttributeValues: { ':pk': directoryKeys.agent(agentId).pk, ':child': 'CHILD#' },
    ProjectionExpression: 'agentId',
  })) {
    for (const item of page.Items ?? []) ids.push(String(item.agentId));
  }
  return ids;
}

/** The client and every client below it, breadth first (the client itself first). */
export async function subtreeAgentIds(agentId: string): Promise<string[]> {
  const seen = new Set<string>([agentId]);
  let level = [agentId];
  while (level.length > 0) {
    const children = (await Promise.all(level.map(childAgentIds))).flat().filter((id) => !seen.has(id));
    for (const id of children) seen.add(id);
    level = children;
  }
  return [...seen];
}

export interface NewUser {
  parentId: string;
  login: string;
  password: string;
  email: string;
  firstName?: string;
  lastName?: string;
  language?: Language;
  isReadOnly?: boolean;
  sessionDuration?: number | null;
}

/** A user as the API may show it: everything but the password hash. */
export type PublicUser = Omit<StoredUser, 'passwordHash'>;

export function publicUser(user: StoredUser): PublicUser {
  const { passwordHash: _hidden, ...rest } = user;
  return rest;
}

export async function createUser(input: NewUser): Promise<PublicUser> {
  if (input.password.length < 1) throw new Error('a password is required');
  const user = storedUserSchema.parse({
    id: randomUUID(),
    login: input.login,
    email: input.email,
    parentId: input.parentId,
    firstName: input.firstName,
    lastName: input.lastName,
    language: input.language,
    isReadOnly: input.isReadOnly,
    sessionDuration: input.sessionDuration ?? null,
    passwordHash: await hashPassword(input.password),
  });
  try {
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          { ConditionCheck: { TableName: table(), Key: directoryKeys.agent(user.parentId), ConditionExpression: 'attribute_exists(pk)' } },
          { Put: { TableName: table(), Item: { ...loginGuardKey(user.login), userId: user.id }, ConditionExpression: 'attribute_not_exists(pk)' } },
          {
            Put: {
              TableName: table(),
              Item: { ...directoryKeys.user(user.id), ...directoryKeys.loginIndex(user.login), ...user },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      }),
    );
  } catch (error) {
    if (error instanceof TransactionCanceledException) {
      const [client, login] = error.CancellationReasons ?? [];
      if (client?.Code === 'ConditionalCheckFailed') throw new DirectoryConflictError(`client ${user.parentId} does not exist`);
      if (login?.Code === 'ConditionalCheckFailed') throw new DirectoryConflictError(`login ${user.login} is taken`);
    }
    throw error;
  }
  return publicUser(user);
}

export async function getUser(userId: string): Promise<StoredUser | null> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: directoryKeys.user(userId), ConsistentRead: true }));
  if (!Item) return null;
  const parsed = storedUserSchema.safeParse(Item);
  return parsed.success ? parsed.data : null;
}

export async function findUserByLogin(login: string): Promise<StoredUser | null> {
  const guard = await documentClient().send(new GetCommand({ TableName: table(), Key: loginGuardKey(login), ConsistentRead: true }));
  const userId = guard.Item?.userId;
  return typeof userId === 'string' ? getUser(userId) : null;
}

async function batchGet(keys: Record<string, string>[]): Promise<Record<string, unknown>[]> {
  return batchGetItems(table(), [...new Map(keys.map((key) => [key.pk, key])).values()]);
}

export async function getUsers(userIds: readonly string[]): Promise<StoredUser[]> {
  const items = await batchGet(userIds.map((id) => directoryKeys.user(id)));
  return items.flatMap((item) => {
    const parsed = storedUserSchema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}

/** The client and every client above it, the client first. */
export async function ownerChain(agentId: string): Promise<string[]> {
  const chain: string[] = [];
  for (let current: string | null = agentId; current !== null && !chain.includes(current); ) {
    chain.push(current);
    current = (await getAgent(current))?.parentId ?? null;
  }
  return chain;
}

/**
 * Stores a vehicle under its owner. The vehicle's item in the state table learns the owner (and the clients
 * above it) at once, so evaluation stops applying a former owner's rules from the next message on.
 */
export async function putVehicle(vehicle: VehicleProfile): Promise<VehicleProfile> {
  const parsed = vehicleProfileSchema.parse(vehicle);
  const agent = await getAgent(parsed.parentId);
  if (!agent) throw new DirectoryConflictError(`client ${parsed.parentId} does not exist`);
  await documentClient().send(new PutCommand({ TableName: table(), Item: { ...directoryKeys.vehicle(parsed.vehicleId), ...parsed } }));
  await setVehicleOwners(parsed.vehicleId, await ownerChain(parsed.parentId));
  return parsed;
}

export async function getVehicles(vehicleIds: readonly number[]): Promise<VehicleProfile[]> {
  const items = await batchGet(vehicleIds.map((id) => directoryKeys.vehicle(id)));
  return items.flatMap((item) => {
    const parsed = vehicleProfileSchema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}
