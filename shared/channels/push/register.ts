import { CreatePlatformEndpointCommand, DeleteEndpointCommand } from '@aws-sdk/client-sns';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../aws/dynamodb';
import { snsClient } from '../../aws/sns';
import { resourcesConfig } from '../../config';
import { directoryKeys, pushDeviceSchema, storedUserSchema, type PushDevice } from '../../schemas/directory';

export type PushPlatform = PushDevice['platform'];

/** The platform's SNS application is not configured in this deployment. */
export class PushNotConfiguredError extends Error {
  constructor(readonly platform: PushPlatform) {
    super(`push notifications for ${platform} are not configured`);
    this.name = 'PushNotConfiguredError';
  }
}

export class PushUserNotFoundError extends Error {
  constructor() {
    super('user not found');
    this.name = 'PushUserNotFoundError';
  }
}

function applicationArn(platform: PushPlatform): string {
  const arn = platform === 'fcm' ? process.env.PUSH_FCM_APPLICATION_ARN : process.env.PUSH_APNS_APPLICATION_ARN;
  if (!arn) throw new PushNotConfiguredError(platform);
  return arn;
}

function table(): string {
  return resourcesConfig().DIRECTORY_TABLE;
}

async function loadDevices(userId: string): Promise<PushDevice[] | null> {
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: table(), Key: directoryKeys.user(userId), ConsistentRead: true }),
  );
  if (!Item) return null;
  return storedUserSchema.shape.pushDevices.parse(Item.pushDevices);
}

/**
 * Registers a device token with SNS (CreatePlatformEndpoint is idempotent for the same token, so registering
 * a device again returns the same endpoint) and keeps the endpoint on the user, once.
 */
export async function registerPushDevice(userId: string, platform: PushPlatform, token: string): Promise<PushDevice> {
  const devices = await loadDevices(userId);
  if (!devices) throw new PushUserNotFoundError();
  const { EndpointArn } = await snsClient().send(
    new CreatePlatformEndpointCommand({
      PlatformApplicationArn: applicationArn(platform),
      Token: token,
      CustomUserData: userId,
    }),
  );
  if (!EndpointArn) throw new Error('SNS returned no endpoint ARN');
  const existing = devices.find((device) => device.endpointArn === EndpointArn);
  if (existing) return existing;
  const device = pushDeviceSchema.parse({ platform, endpointArn: EndpointArn, registeredAt: new Date().toISOString() });
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: directoryKeys.user(userId),
      UpdateExpression: 'SET pushDevices = list_append(if_not_exists(pushDevices, :empty), :devices)',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':empty': [], ':devices': [device] },
    }),
  );
  return device;
}

/**
 * Forgets a device: removes it from the user (the condition on the list element keeps a concurrent change
 * from being lost) and, when asked, deletes the SNS endpoint. Returns whether the user had it.
 */
export async function removePushDevice(
  userId: string,
  endpointArn: string,
  options: { deleteEndpoint?: boolean } = {},
): Promise<boolean> {
  let removed = false;
  for (let attempt = 0; attempt < 3 && !removed; attempt++) {
    const devices = await loadDevices(userId);
    const index = devices?.findIndex((device) => device.endpointArn === endpointArn) ?? -1;
    if (index < 0) break;
    try {
      await documentClient().send(
        new UpdateCommand({
          TableName: table(),
          Key: directoryKeys.user(userId),
          UpdateExpression: `REMOVE pushDevices[${index}]`,
          ConditionExpression: `pushDevices[${index}].endpointArn = :arn`,
          ExpressionAttributeValues: { ':arn': endpointArn },
        }),
      );
      removed = true;
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    }
  }
  if (options.deleteEndpoint) await snsClient().send(new DeleteEndpointCommand({ EndpointArn: endpointArn }));
  return removed;
}
