import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { smsKeys } from './keys';

/**
 * Numbers that opted out of a client's SMS, in the directory table: `SMSOPTOUT#<clientId>` / `<number>`. Written
 * when the service refuses a send as opted out (the number replied STOP); from then on deliver sends that number
 * nothing for the client, without asking the service (and paying for the refusal) again.
 */
const table = () => resourcesConfig().DIRECTORY_TABLE;
const key = smsKeys.optOut;

export async function markSmsOptedOut(clientId: string, phoneNumber: string, reason: string, now: number): Promise<void> {
  await documentClient().send(
    new PutCommand({ TableName: table(), Item: { ...key(clientId, phoneNumber), reason, at: new Date(now).toISOString() } }),
  );
}

export async function isSmsOptedOut(clientId: string, phoneNumber: string): Promise<boolean> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: key(clientId, phoneNumber), ConsistentRead: true }));
  return Item !== undefined;
}
