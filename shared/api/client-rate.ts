import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';

/**
 * Requests of all users of one client within one calendar minute, counted by one conditional ADD on
 * `RATE#<clientId>#<minute>` in the directory table (expiring two minutes later). Returns 0 when the request
 * may go ahead, else the milliseconds until the next minute starts. A `bucket` counts one kind of request on its
 * own (`RATE#<clientId>#<bucket>#<minute>`), under its own limit.
 */
export async function takeClientRequest(clientId: string, now: number, perMinute: number, bucket?: string): Promise<number> {
  const minute = Math.floor(now / 60_000);
  const counter = bucket ? `${clientId}#${bucket}` : clientId;
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: resourcesConfig().DIRECTORY_TABLE,
        Key: { pk: `RATE#${counter}#${minute}`, sk: 'RATE' },
        UpdateExpression: 'ADD requests :one SET #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(requests) OR requests < :limit',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':limit': perMinute, ':ttl': (minute + 2) * 60 },
      }),
    );
    return 0;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return (minute + 1) * 60_000 - now;
    throw error;
  }
}
