import { randomUUID } from 'node:crypto';
import type { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { GetCommand, PutCommand, UpdateCommand, paginateQuery, paginateScan } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import {
  agentSchema,
  storedUserSchema,
  vehicleProfileSchema,
  type Agent,
  type Language,
  type StoredUser,
  type VehicleProfile,
} from '../schemas/directory';
import { hashPassword } from '../auth/password';
import { batchGetItems } from './batch-get';
import { parseRecord } from './record-schema';
import { conditionFailed, conditionFailedAt, transactOrConflict } from './dynamo';
import { directoryKeys, PK, SK } from './keys';

/**
 * Clients (agents), their hierarchy, users and vehicles in the directory table (key layout in
 * keys.ts). Besides the records, a login has a guard item `LOGIN#<login>` / `LOGIN`
 * written in the same transaction as its user, so two users can never share a login; it also holds the
 * password hash, apart from the user record that other functions read.
 */
const table = () => resourcesConfig().DIRECTORY_TABLE;
const loginGuardKey = directoryKeys.loginGuard;

export class DirectoryConflictError extends Error {}

export interface NewAgent {
  name: string;
  fullName?: string;
  parentId?: string | null;
  agentInfoType?: number;
}

export async function createAgent(input: NewAgent): Promise<Agent> {
  const agent = agentSchema.parse({
    agentId: randomUUID(),
    parentId: input.parentId ?? null,
    name: input.name,
    fullName: input.fullName,
    agentInfoType: input.agentInfoType,
  });
  const items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']> = [
    { Put: { TableName: table(), Item: { ...directoryKeys.agent(agent.agentId), ...agent }, ConditionExpression: 'attribute_not_exists(pk)' } },
  ];
  if (agent.parentId) {
    items.push(
      { ConditionCheck: { TableName: table(), Key: directoryKeys.agent(agent.parentId), ConditionExpression: 'attribute_exists(pk)' } },
      { Put: { TableName: table(), Item: { ...directoryKeys.childLink(agent.parentId, agent.agentId), agentId: agent.agentId } } },
    );
  }
  const outcome = await transactOrConflict({ TransactItems: items });
  if (!outcome.ok) throw new DirectoryConflictError(`parent client ${agent.parentId} does not exist`);
  return agent;
}

export async function getAgent(agentId: string): Promise<Agent | null> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: directoryKeys.agent(agentId) }));
  return Item ? agentSchema.parse(Item) : null;
}

/** Deepest client chain followed: a loop or a runaway chain stops there. */
const MAX_DEPTH = 32;

/** The client and the clients above it, nearest first. */
export async function clientAndAncestors(agentId: string): Promise<string[]> {
  const chain: string[] = [];
  let current: string | null = agentId;
  while (current && chain.length < MAX_DEPTH && !chain.includes(current)) {
    chain.push(current);
    current = (await getAgent(current))?.parentId ?? null;
  }
  return chain;
}

export async function childAgentIds(agentId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const page of paginateQuery(
    { client: documentClient() },
    {
      TableName: table(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :child)',
      ExpressionAttributeValues: { ':pk': directoryKeys.agent(agentId).pk, ':child': SK.child },
      ProjectionExpression: 'agentId',
    },
  )) {
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
  isEnabled?: boolean;
  sessionDuration?: number | null;
  phoneNumber?: string | null;
}

/** A user as the API may show it (the stored user never carries the password hash). */
export type PublicUser = StoredUser;

export function publicUser(user: StoredUser): PublicUser {
  return user;
}

export async function createUser(input: NewUser): Promise<PublicUser> {
  if (input.password.length < 1) throw new Error('a password is required');
  const user = parseRecord(
    storedUserSchema,
    {
      id: randomUUID(),
      login: input.login,
      email: input.email,
      parentId: input.parentId,
      firstName: input.firstName,
      lastName: input.lastName,
      language: input.language,
      isReadOnly: input.isReadOnly,
      isEnabled: input.isEnabled,
      sessionDuration: input.sessionDuration ?? null,
      phoneNumber: input.phoneNumber ?? null,
    },
    'user',
  );
  const passwordHash = await hashPassword(input.password);
  const outcome = await transactOrConflict({
    TransactItems: [
      { ConditionCheck: { TableName: table(), Key: directoryKeys.agent(user.parentId), ConditionExpression: 'attribute_exists(pk)' } },
      {
        Put: {
          TableName: table(),
          Item: { ...loginGuardKey(user.login), userId: user.id, passwordHash },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          TableName: table(),
          Item: { ...directoryKeys.user(user.id), ...directoryKeys.loginIndex(user.login), ...user },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      { Put: { TableName: table(), Item: { ...directoryKeys.userLink(user.parentId, user.id), userId: user.id } } },
    ],
  });
  if (!outcome.ok) {
    if (conditionFailedAt(outcome.reasons, 0)) throw new DirectoryConflictError(`client ${user.parentId} does not exist`);
    if (conditionFailedAt(outcome.reasons, 1)) throw new DirectoryConflictError(`login ${user.login} is taken`);
    throw outcome.error;
  }
  return publicUser(user);
}

/**
 * What a replacement of a user sets; the linked chats, push devices, preferences, the password (when absent) and
 * the phone's verification (when the number stays) are kept.
 */
export type UserReplacement = Omit<StoredUser, 'telegramChats' | 'pushDevices' | 'preferences' | 'phoneVerifiedAt'> & { password?: string };

/**
 * Replaces a user's record in one transaction with its login guard and client link, conditional on the login
 * and client read before, so a concurrent change answers as a conflict instead of being overwritten. A new
 * login must be free; the password hash moves with the login, or is replaced when a password is given.
 */
export async function replaceUser(previous: StoredUser, next: UserReplacement): Promise<PublicUser> {
  const { password, ...fields } = next;
  const user = parseRecord(
    storedUserSchema,
    {
      ...fields,
      telegramChats: previous.telegramChats,
      pushDevices: previous.pushDevices,
      preferences: previous.preferences,
      // a new number must be verified again
      phoneVerifiedAt: fields.phoneNumber === previous.phoneNumber ? previous.phoneVerifiedAt : null,
    },
    'user',
  );
  const credential = await findCredential(previous.login);
  if (!credential || credential.userId !== previous.id) throw new DirectoryConflictError(`user ${previous.id} changed meanwhile; try again`);
  const passwordHash = password === undefined ? credential.passwordHash : await hashPassword(password);
  const sameGuard = previous.login.toLowerCase() === user.login.toLowerCase();
  const items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']> = [
    {
      Put: {
        TableName: table(),
        Item: { ...directoryKeys.user(user.id), ...directoryKeys.loginIndex(user.login), ...user },
        ConditionExpression: 'login = :login AND parentId = :parent',
        ExpressionAttributeValues: { ':login': previous.login, ':parent': previous.parentId },
      },
    },
    sameGuard
      ? {
          Put: {
            TableName: table(),
            Item: { ...loginGuardKey(user.login), userId: user.id, passwordHash },
            ConditionExpression: 'userId = :id',
            ExpressionAttributeValues: { ':id': user.id },
          },
        }
      : {
          Put: {
            TableName: table(),
            Item: { ...loginGuardKey(user.login), userId: user.id, passwordHash },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
  ];
  if (!sameGuard) {
    items.push({
      Delete: {
        TableName: table(),
        Key: loginGuardKey(previous.login),
        ConditionExpression: 'userId = :id',
        ExpressionAttributeValues: { ':id': user.id },
      },
    });
  }
  if (user.parentId !== previous.parentId) {
    items.push(
      { ConditionCheck: { TableName: table(), Key: directoryKeys.agent(user.parentId), ConditionExpression: 'attribute_exists(pk)' } },
      { Delete: { TableName: table(), Key: directoryKeys.userLink(previous.parentId, user.id) } },
      { Put: { TableName: table(), Item: { ...directoryKeys.userLink(user.parentId, user.id), userId: user.id } } },
    );
  } else {
    // also writes the link of a user stored before client links existed
    items.push({ Put: { TableName: table(), Item: { ...directoryKeys.userLink(user.parentId, user.id), userId: user.id } } });
  }
  const outcome = await transactOrConflict({ TransactItems: items });
  if (!outcome.ok) {
    const { reasons } = outcome;
    const guardFailed = conditionFailedAt(reasons, 1);
    const clientFailed = user.parentId !== previous.parentId && conditionFailedAt(reasons, sameGuard ? 2 : 3);
    if (!sameGuard && guardFailed) throw new DirectoryConflictError(`login ${user.login} is taken`);
    if (clientFailed) throw new DirectoryConflictError(`client ${user.parentId} does not exist`);
    if (conditionFailedAt(reasons, 0) || guardFailed) throw new DirectoryConflictError(`user ${user.id} changed meanwhile; try again`);
    throw outcome.error;
  }
  return publicUser(user);
}

/** Ids of the users of one client (not of the clients below it). */
export async function userIdsOfClient(agentId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const page of paginateQuery(
    { client: documentClient() },
    {
      TableName: table(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :user)',
      ExpressionAttributeValues: { ':pk': directoryKeys.agent(agentId).pk, ':user': SK.user },
      ProjectionExpression: 'userId',
    },
  )) {
    for (const item of page.Items ?? []) ids.push(String(item.userId));
  }
  return ids;
}

/**
 * Writes the client link of every user (idempotent): users stored before links existed then appear in their
 * client's user list. An operator's one-off task (`npm run admin -- link-users`); it scans the table.
 */
export async function linkUsersToClients(): Promise<number> {
  let linked = 0;
  for await (const page of paginateScan(
    { client: documentClient() },
    {
      TableName: table(),
      FilterExpression: 'begins_with(pk, :user) AND sk = :profile',
      ExpressionAttributeValues: { ':user': PK.user, ':profile': 'PROFILE' },
      ProjectionExpression: 'id, parentId',
    },
  )) {
    for (const item of page.Items ?? []) {
      if (typeof item.id !== 'string' || typeof item.parentId !== 'string') continue;
      await documentClient().send(
        new PutCommand({ TableName: table(), Item: { ...directoryKeys.userLink(item.parentId, item.id), userId: item.id } }),
      );
      linked++;
    }
  }
  return linked;
}

export async function getUser(userId: string): Promise<StoredUser | null> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: directoryKeys.user(userId), ConsistentRead: true }));
  if (!Item) return null;
  const parsed = storedUserSchema.safeParse(Item);
  return parsed.success ? parsed.data : null;
}

export async function findUserByLogin(login: string): Promise<StoredUser | null> {
  const credential = await findCredential(login);
  return credential ? getUser(credential.userId) : null;
}

export interface Credential {
  userId: string;
  passwordHash: string;
}

/** The user id and password hash behind a login, from its guard item. */
export async function findCredential(login: string): Promise<Credential | null> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: loginGuardKey(login), ConsistentRead: true }));
  return typeof Item?.userId === 'string' && typeof Item.passwordHash === 'string' ? { userId: Item.userId, passwordHash: Item.passwordHash } : null;
}

/** Replaces a password hash, unless it changed meanwhile (a concurrent login upgraded it first). */
export async function replacePasswordHash(login: string, previous: string, next: string): Promise<void> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: loginGuardKey(login),
        UpdateExpression: 'SET passwordHash = :next',
        ConditionExpression: 'passwordHash = :previous',
        ExpressionAttributeValues: { ':next': next, ':previous': previous },
      }),
    );
  } catch (error) {
    if (!conditionFailed(error)) throw error;
  }
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

export async function getVehicles(vehicleIds: readonly number[]): Promise<VehicleProfile[]> {
  const items = await batchGet(vehicleIds.map((id) => directoryKeys.vehicle(id)));
  return items.flatMap((item) => {
    const parsed = vehicleProfileSchema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}
