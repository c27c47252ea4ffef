import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetItems } from './batch-get';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { storedUserSchema, vehicleProfileSchema, type StoredUser, type VehicleProfile } from '../schemas/directory';
import { storedRuleSchema, type StoredRule } from '../schemas/notification';
import { logger } from '../observability/logger';
import { directoryKeys } from './keys';

/** Reads of the rules and directory tables the deliver function needs. */

export async function loadRule(ruleId: number): Promise<StoredRule | null> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: resourcesConfig().RULES_TABLE, Key: { id: ruleId } }));
  if (!Item) return null;
  const parsed = storedRuleSchema.safeParse(Item);
  if (!parsed.success) {
    logger.error('stored rule does not match its schema', { ruleId, issues: parsed.error.issues.map((issue) => issue.path.join('.')) });
    return null;
  }
  return parsed.data;
}

/** Users by id; ids without a (valid) user are left out. */
export async function loadUsers(userIds: readonly string[]): Promise<StoredUser[]> {
  const items = await batchGetItems(
    resourcesConfig().DIRECTORY_TABLE,
    [...new Set(userIds)].map((id) => directoryKeys.user(id)),
  );
  const users: StoredUser[] = [];
  for (const item of items) {
    const parsed = storedUserSchema.safeParse(item);
    if (parsed.success) users.push(parsed.data);
    else logger.error('stored user does not match its schema', { userId: item.id, issues: parsed.error.issues.map((issue) => issue.path.join('.')) });
  }
  return users;
}

/** The vehicle's directory record (name and owning client), or null when the directory does not know it. */
export async function loadVehicle(vehicleId: number): Promise<VehicleProfile | null> {
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: resourcesConfig().DIRECTORY_TABLE, Key: directoryKeys.vehicle(vehicleId), ConsistentRead: true }),
  );
  const parsed = vehicleProfileSchema.safeParse(Item);
  return parsed.success ? parsed.data : null;
}
