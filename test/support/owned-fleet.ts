import { BatchWriteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { markSideEmailConfirmed } from '../../shared/store/email-consent/confirmation';
import { directoryKeys } from '../../shared/store/keys';

/**
 * What delivery checks before anything goes out, set up for tests that store rules directly: the client
 * exists, its vehicles are registered to it, the side addresses of its rules confirmed their link, and the
 * chats its rules name were linked by one of its users.
 */
const table = () => resourcesConfig().DIRECTORY_TABLE;

export async function registerFleet(parentId: string, vehicleIds: readonly number[]): Promise<void> {
  await documentClient().send(
    new PutCommand({
      TableName: table(),
      Item: { ...directoryKeys.agent(parentId), agentId: parentId, parentId: null, name: 'Test fleet', fullName: '', agentInfoType: 0, status: 1 },
    }),
  );
  for (let start = 0; start < vehicleIds.length; start += 25) {
    const chunk = vehicleIds.slice(start, start + 25);
    await documentClient().send(
      new BatchWriteCommand({
        RequestItems: {
          [table()]: chunk.map((vehicleId) => ({
            PutRequest: { Item: { ...directoryKeys.vehicle(vehicleId), vehicleId, name: `Vehicle ${vehicleId}`, parentId } },
          })),
        },
      }),
    );
  }
}

export async function confirmSideEmails(parentId: string, addresses: readonly string[]): Promise<void> {
  for (const address of addresses) await markSideEmailConfirmed(parentId, address, Date.now());
}

/** Links chats to a user of the client (the user record must exist), as `/start <code>` would. */
export async function linkChats(userId: string, chatIds: readonly string[]): Promise<void> {
  for (const chatId of chatIds) {
    await documentClient().send(new PutCommand({ TableName: table(), Item: { pk: `TGCHAT#${chatId}`, sk: 'TGCHAT', userId } }));
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: directoryKeys.user(userId),
        UpdateExpression: 'SET telegramChats.#chat = :chat',
        ExpressionAttributeNames: { '#chat': chatId },
        ExpressionAttributeValues: { ':chat': { chatId, username: '', active: true, linkedAt: new Date().toISOString() } },
      }),
    );
  }
}
