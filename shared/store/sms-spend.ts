import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { conditionFailed } from './dynamo';
import { smsKeys } from './keys';

/**
 * Each client's estimated SMS spend of one calendar month (UTC), in the directory table:
 * `SMSSPEND#<clientId>` / `<YYYY-MM>` with `spent` (micro-dollars) and `noticeSentAt` (the cap notice went out).
 * One conditional ADD per SMS: the ADD happens only while the month's spend is still under the cap, and DynamoDB
 * applies the updates of one item one at a time, so however many deliveries race, the spend passes the cap by
 * less than one message's price.
 */
const table = () => resourcesConfig().DIRECTORY_TABLE;
export const monthOf = (now: number) => new Date(now).toISOString().slice(0, 7);
const key = smsKeys.spend;

/** Takes `costMicroUsd` from the client's month; false when the cap was reached already. */
export async function takeSmsSpend(clientId: string, costMicroUsd: number, capMicroUsd: number, now: number): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: key(clientId, monthOf(now)),
        UpdateExpression: 'ADD spent :cost',
        ConditionExpression: 'attribute_not_exists(spent) OR spent < :cap',
        ExpressionAttributeValues: { ':cost': costMicroUsd, ':cap': capMicroUsd },
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}

/** Gives back what an SMS that did not go out had taken. */
export async function refundSmsSpend(clientId: string, costMicroUsd: number, now: number): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: key(clientId, monthOf(now)),
      UpdateExpression: 'ADD spent :refund',
      ExpressionAttributeValues: { ':refund': -costMicroUsd },
    }),
  );
}

/** Marks that the client was told its cap was reached this month; true only for the first caller. */
export async function claimCapNotice(clientId: string, now: number): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: key(clientId, monthOf(now)),
        UpdateExpression: 'SET noticeSentAt = :at',
        ConditionExpression: 'attribute_not_exists(noticeSentAt)',
        ExpressionAttributeValues: { ':at': new Date(now).toISOString() },
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}

export async function smsSpendOf(clientId: string, month: string): Promise<{ spentMicroUsd: number; noticeSentAt: string | null }> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: key(clientId, month), ConsistentRead: true }));
  return { spentMicroUsd: Number(Item?.spent ?? 0), noticeSentAt: typeof Item?.noticeSentAt === 'string' ? Item.noticeSentAt : null };
}
