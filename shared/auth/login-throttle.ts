import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';

/**
 * Slows down password guessing per login: after FREE_ATTEMPTS consecutive failures, each further attempt must
 * wait twice as long as the previous one (1 s, 2 s, 4 s ... at most 15 minutes). A success clears the count.
 * Unknown logins are counted too, so the answer does not reveal which logins exist.
 * Item `LOGINFAIL#<login lower-case>` / `LOGINFAIL` in the directory table, expiring a day after the last failure.
 */
export const FREE_ATTEMPTS = 5;
export const MAX_DELAY_MS = 15 * 60_000;

const table = () => resourcesConfig().DIRECTORY_TABLE;
const key = (login: string) => ({ pk: `LOGINFAIL#${login.toLowerCase()}`, sk: 'LOGINFAIL' });

export function delayAfter(failures: number): number {
  if (failures < FREE_ATTEMPTS) return 0;
  return Math.min(1000 * 2 ** (failures - FREE_ATTEMPTS), MAX_DELAY_MS);
}

/** Milliseconds the next attempt for `login` must still wait (0 = may try now). */
export async function loginWaitMs(login: string, now: number): Promise<number> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: key(login), ConsistentRead: true }));
  if (!Item) return 0;
  const waitUntil = Number(Item.lastFailureAt) + delayAfter(Number(Item.failures));
  return Math.max(0, waitUntil - now);
}

export async function recordLoginFailure(login: string, now: number): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: key(login),
      UpdateExpression: 'ADD failures :one SET lastFailureAt = :now, #ttl = :ttl',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':one': 1, ':now': now, ':ttl': Math.ceil(now / 1000) + 86_400 },
    }),
  );
}

export async function clearLoginFailures(login: string): Promise<void> {
  await documentClient().send(new DeleteCommand({ TableName: table(), Key: key(login) }));
}
