import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { conditionFailed } from './dynamo';

/**
 * An SMS cannot be taken back, so each SMS target of an alert is claimed on the alert item (`smsClaim:<key>`)
 * before its send, on top of the alert's delivery lease: a deliver that crashed after sending, before it
 * recorded the target, leaves the claim behind, and no later attempt sends that SMS again (at most once; the
 * delivery events then tell what became of it). A send refused for a passing problem gives its claim back.
 */
const table = () => resourcesConfig().ALERTS_TABLE;
const claimName = (key: string) => `smsClaim:${key}`;

export async function claimSmsSend(alertId: string, key: string, now: number): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: { alertId },
        UpdateExpression: 'SET #claim = :now',
        ConditionExpression: 'attribute_exists(alertId) AND attribute_not_exists(#claim)',
        ExpressionAttributeNames: { '#claim': claimName(key) },
        ExpressionAttributeValues: { ':now': now },
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}

export async function releaseSmsSend(alertId: string, key: string): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: { alertId },
      UpdateExpression: 'REMOVE #claim',
      ExpressionAttributeNames: { '#claim': claimName(key) },
    }),
  );
}
