import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { testSendResultSchema, type TestSendResult } from '../schemas/test-send';
import { conditionFailed } from './dynamo';
import { testResultKey, throttleKeys } from './keys';

/**
 * Test alerts of rules: their results (`NOTIFTEST#<testId>`, written by the deliver function, read by the API)
 * and the per-client counter that limits them (`TESTRATE#<clientId>#<hour>`). Neither touches the alerts
 * table, so a test never shows in the history. Both expire on their own.
 */
const RESULT_TTL_SECONDS = 24 * 3_600;
const HOUR_MS = 3_600_000;

const table = () => resourcesConfig().DIRECTORY_TABLE;
const resultKey = testResultKey;

export async function putTestResult(result: TestSendResult, now: number): Promise<void> {
  await documentClient().send(
    new PutCommand({ TableName: table(), Item: { ...resultKey(result.testId), ...result, ttl: Math.ceil(now / 1000) + RESULT_TTL_SECONDS } }),
  );
}

/** The result of a test, or null while the deliver function has not finished it (or it expired). */
export async function getTestResult(testId: string): Promise<TestSendResult | null> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: resultKey(testId), ConsistentRead: true }));
  const parsed = testSendResultSchema.safeParse(Item);
  return parsed.success ? parsed.data : null;
}

/**
 * Takes one test of a client within the current hour, by one conditional ADD. Returns 0 when the test may go
 * ahead, else the milliseconds until the next hour starts.
 */
export async function takeClientTest(clientId: string, now: number, perHour: number): Promise<number> {
  const hour = Math.floor(now / HOUR_MS);
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: throttleKeys.testRate(clientId, hour),
        UpdateExpression: 'ADD tests :one SET #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(tests) OR tests < :limit',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':limit': perHour, ':ttl': ((hour + 2) * HOUR_MS) / 1000 },
      }),
    );
    return 0;
  } catch (error) {
    if (conditionFailed(error)) return (hour + 1) * HOUR_MS - now;
    throw error;
  }
}
