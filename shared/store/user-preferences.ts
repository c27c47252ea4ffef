import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { type StoredUser } from '../schemas/directory';
import { DEFAULT_PREFERENCES, type UserPreferences } from '../schemas/preferences';
import { conditionFailed } from './dynamo';
import { directoryKeys } from './keys';

/** A user's preferences, the defaults when it never set any. */
export function preferencesOf(user: Pick<StoredUser, 'preferences'>): UserPreferences {
  return user.preferences ?? DEFAULT_PREFERENCES;
}

/**
 * Replaces a user's preferences on its record, in one UpdateItem that touches nothing else of it (linked chats,
 * devices and profile change apart). False when the user no longer exists.
 */
export async function replaceUserPreferences(userId: string, preferences: UserPreferences): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: resourcesConfig().DIRECTORY_TABLE,
        Key: directoryKeys.user(userId),
        UpdateExpression: 'SET preferences = :preferences',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':preferences': preferences },
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}
