import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../../shared/aws/clients';
import { resourcesConfig } from '../../../shared/config';
import { alertSchema, type Alert } from '../../../shared/schemas/alert';
import { storedUserSchema, type PushDevice, type StoredUser, type TelegramChat } from '../../../shared/schemas/directory';
import { storedRuleSchema, type StoredRule } from '../../../shared/schemas/notification';
import { registerVehicle } from '../../../shared/store/vehicle-registry';
import { DELIVERY_T0 } from '../../support/fixtures';
import { directoryKeys } from '../../../shared/store/keys';

export const PARENT_ID = '5c0bd3a4-7ad5-4cde-9d3c-0a7b63f0b001';

/** Chats and devices may be given as lists; they are stored as maps keyed by id. */
type UserFields = Omit<Partial<StoredUser>, 'telegramChats' | 'pushDevices'> & {
  login: string;
  email: string;
  telegramChats?: TelegramChat[];
  pushDevices?: PushDevice[];
};

export async function putUser(fields: UserFields): Promise<StoredUser> {
  const user = storedUserSchema.parse({
    id: randomUUID(),
    parentId: PARENT_ID,
    ...fields,
  });
  await documentClient().send(
    new PutCommand({
      TableName: resourcesConfig().DIRECTORY_TABLE,
      Item: { ...directoryKeys.user(user.id), ...directoryKeys.loginIndex(user.login), ...user },
    }),
  );
  return user;
}

export async function getUser(userId: string): Promise<StoredUser> {
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: resourcesConfig().DIRECTORY_TABLE, Key: directoryKeys.user(userId), ConsistentRead: true }),
  );
  return storedUserSchema.parse(Item);
}

let nextRuleId = 100;

export async function putRule(fields: Partial<StoredRule>): Promise<StoredRule> {
  const rule = storedRuleSchema.parse({
    id: nextRuleId++,
    type: 2,
    parentId: PARENT_ID,
    name: 'Speed limit',
    active: true,
    version: 1,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    validFrom: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-12-01T00:00:00.000Z',
    ...fields,
  });
  await documentClient().send(new PutCommand({ TableName: resourcesConfig().RULES_TABLE, Item: rule }));
  await ensureAgent(rule.parentId);
  return rule;
}

/** The rule's client, so that delivery can check who owns what. */
async function ensureAgent(agentId: string): Promise<void> {
  await putIfAbsent({ ...directoryKeys.agent(agentId), agentId, parentId: null, name: 'Fixture client', fullName: '', agentInfoType: 0, status: 1 });
}

async function putIfAbsent(item: Record<string, unknown>): Promise<void> {
  try {
    await documentClient().send(
      new PutCommand({ TableName: resourcesConfig().DIRECTORY_TABLE, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
}

export async function putVehicle(vehicleId: number, name: string): Promise<void> {
  await ensureAgent(PARENT_ID);
  await registerVehicle({ vehicleId, name, parentId: PARENT_ID }, { allowMove: true });
}

let nextAlert = 1;

/**
 * A pending alert as the evaluate function writes it. Evaluation raises alerts only for vehicles of the rule's
 * client, so the vehicle is registered to the rule's client unless the directory already knows it. Without a
 * `severity` in `fields` it is an alert as stored before severities existed.
 */
export async function putAlert(
  rule: StoredRule,
  vehicleId: number,
  event: Partial<Alert['event']> = {},
  /** Other fields of the stored alert, such as a `severity`. */
  fields: Partial<Omit<Alert, 'event'>> = {},
): Promise<Alert> {
  await putIfAbsent({ ...directoryKeys.vehicle(vehicleId), vehicleId, name: `Vehicle ${vehicleId}`, parentId: rule.parentId });
  const time = new Date(DELIVERY_T0 + nextAlert * 1000).toISOString();
  const alert = alertSchema.parse({
    alertId: `alert-${process.pid}-${nextAlert++}`,
    ruleId: rule.id,
    ruleType: rule.type,
    ruleName: rule.name,
    vehicleId,
    parentId: rule.parentId,
    event: { kind: 'speeding', time, latitude: 55.7558, longitude: 37.6173, speed: 104, values: { limit: 90 }, ...event },
    createdAt: time,
    status: 'pending',
    deliveries: {},
    stored: rule.stored,
    ...fields,
  });
  await documentClient().send(
    new PutCommand({
      TableName: resourcesConfig().ALERTS_TABLE,
      Item: { ...alert, timeKey: `${alert.event.time}#${alert.alertId}`, outbox: 'pending', expiresAt: 1_900_000_000 },
    }),
  );
  return alert;
}

export async function getAlertItem(alertId: string): Promise<Record<string, unknown>> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: resourcesConfig().ALERTS_TABLE, Key: { alertId }, ConsistentRead: true }));
  if (!Item) throw new Error(`alert ${alertId} not found`);
  return Item;
}

/** A chat linked to a user through the bot (`/start <code>`), without going through the bot. */
export async function linkChat(userId: string, chatId: string): Promise<void> {
  await documentClient().send(
    new PutCommand({ TableName: resourcesConfig().DIRECTORY_TABLE, Item: { pk: `TGCHAT#${chatId}`, sk: 'TGCHAT', userId } }),
  );
  await documentClient().send(
    new UpdateCommand({
      TableName: resourcesConfig().DIRECTORY_TABLE,
      Key: directoryKeys.user(userId),
      UpdateExpression: 'SET telegramChats.#chat = :chat',
      ExpressionAttributeNames: { '#chat': chatId },
      ExpressionAttributeValues: { ':chat': { chatId, username: '', active: true, linkedAt: '2026-01-01T00:00:00.000Z' } },
    }),
  );
}
