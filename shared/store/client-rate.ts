import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { conditionFailed } from './dynamo';
import { throttleKeys } from './keys';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;

/**
 * Requests of all users of one client within one calendar minute, counted by one conditional ADD on
 * `RATE#<clientId>#<minute>` in the directory table (expiring two minutes later). Returns 0 when the request
 * may go ahead, else the milliseconds until the next minute starts. A `bucket` counts one kind of request on its
 * own (`RATE#<clientId>#<bucket>#<window>`), under its own limit, within windows of `windowMs` (a minute unless
 * told; numbered from the epoch in those units).
 */
export async function takeClientRequest(clientId: string, now: number, limit: number, bucket?: string, windowMs = MINUTE_MS): Promise<number> {
  const period = Math.floor(now / windowMs);
  const counter = bucket ? `${clientId}#${bucket}` : clientId;
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: resourcesConfig().DIRECTORY_TABLE,
        Key: throttleKeys.clientRate(counter, period),
        UpdateExpression: 'ADD requests :one SET #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(requests) OR requests < :limit',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':ttl': ((period + 2) * windowMs) / 1000 },
      }),
    );
    return 0;
  } catch (error) {
    if (conditionFailed(error)) return (period + 1) * windowMs - now;
    throw error;
  }
}
