import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { parseRecord } from './record-schema';
import { conditionFailed } from './dynamo';
import { feedOutagePartition } from './keys';

/**
 * Interrupted feeds the sweep is holding connection-loss alerts for, one item per scope in the directory table:
 * `FEEDOUTAGE` / `<scope>`, the scope being `platform` or a client id. Few exist at a time (none while every feed
 * flows), so the sweep reads them all with one Query. The item is created with a condition, so the outage's
 * operations alarm is raised by exactly one sweep, however often sweeps repeat or overlap.
 */
export const PLATFORM_SCOPE = 'platform';

export const feedOutageSchema = z.object({
  scope: z.string().min(1),
  /** When the sweep first saw the mass silence (epoch ms). */
  since: z.number(),
  /** The last sweep that still saw it (epoch ms); the hold ends a grace period after this. */
  seenAt: z.number(),
  /** A client's vehicles when the outage began, the share's base while it lasts; 0 for the platform. */
  vehicles: z.number().int().min(0),
});
export type FeedOutage = z.infer<typeof feedOutageSchema>;

const table = () => resourcesConfig().DIRECTORY_TABLE;
const PK = feedOutagePartition;

export async function loadFeedOutages(): Promise<FeedOutage[]> {
  const { Items } = await documentClient().send(
    new QueryCommand({ TableName: table(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': PK }, ConsistentRead: true }),
  );
  return (Items ?? []).map((item) => parseRecord(feedOutageSchema, item, 'feed outage'));
}

/** Records a new outage; false when another sweep already did (it raised the alarm). */
export async function beginFeedOutage(outage: FeedOutage): Promise<boolean> {
  try {
    await documentClient().send(
      new PutCommand({ TableName: table(), Item: { pk: PK, sk: outage.scope, ...outage }, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}

/** The outage is still seen at `now` (never moved back by a late sweep). */
export async function markFeedOutageSeen(scope: string, now: number): Promise<void> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk: PK, sk: scope },
        UpdateExpression: 'SET seenAt = :now',
        ConditionExpression: 'attribute_exists(pk) AND seenAt < :now',
        ExpressionAttributeValues: { ':now': now },
      }),
    );
  } catch (error) {
    if (!conditionFailed(error)) throw error;
  }
}

/** Ends the outage as read (a sweep that saw it again meanwhile keeps it). */
export async function endFeedOutage(outage: FeedOutage): Promise<void> {
  try {
    await documentClient().send(
      new DeleteCommand({
        TableName: table(),
        Key: { pk: PK, sk: outage.scope },
        ConditionExpression: 'seenAt = :seen',
        ExpressionAttributeValues: { ':seen': outage.seenAt },
      }),
    );
  } catch (error) {
    if (!conditionFailed(error)) throw error;
  }
}
