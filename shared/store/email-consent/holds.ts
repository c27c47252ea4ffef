import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../aws/dynamodb';
import { queryAll } from '../dynamo';
import { emailConsentKeys } from '../keys';
import { mailboxOf, table } from './address';

/** The alerts held for a side mailbox until it confirms, each an item under the mailbox's own key (`HOLD#…`). */
const holdKey = (clientId: string, address: string, alertId: string) => emailConsentKeys.hold(clientId, mailboxOf(address), alertId);

/**
 * Notes that an alert waits for a side address to confirm, under the address's own key, so that confirming
 * finds exactly its held alerts. Kept (the directory's `ttl`) a day past the end of the hold.
 */
export async function recordHold(clientId: string, address: string, alertId: string, holdEnds: number): Promise<void> {
  await documentClient().send(
    new PutCommand({
      TableName: table(),
      Item: { ...holdKey(clientId, address, alertId), alertId, ttl: Math.floor(holdEnds / 1000) + 86_400 },
    }),
  );
}

/** The alerts held for a side address (a query of the address's own key). */
export async function heldAlertIds(clientId: string, address: string): Promise<string[]> {
  const holds = await queryAll({
    TableName: table(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :hold)',
    ExpressionAttributeValues: { ':pk': emailConsentKeys.side(clientId, mailboxOf(address)).pk, ':hold': emailConsentKeys.holdPrefix },
  });
  return holds.map((item) => String(item.alertId));
}

/** The held alert was handed back to delivery: its note goes. */
export async function forgetHold(clientId: string, address: string, alertId: string): Promise<void> {
  await documentClient().send(new DeleteCommand({ TableName: table(), Key: holdKey(clientId, address, alertId) }));
}
