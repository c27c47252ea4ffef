import { loadPushDevices, updateUserMapEntry } from '../../store/user-maps';
import { loadSnsSdk, snsClient } from '../../aws/sns';
import { pushSchema, readConfig } from '../../config';
import { pushDeviceSchema, type PushDevice } from '../../schemas/directory';

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
  const push = readConfig(pushSchema());
  const arn = platform === 'fcm' ? push.PUSH_FCM_APPLICATION_ARN : push.PUSH_APNS_APPLICATION_ARN;
  if (!arn) throw new PushNotConfiguredError(platform);
  return arn;
}

/**
 * SNS's refusal to create a second endpoint for a token whose endpoint has other attributes: here, another
 * user's `CustomUserData`. The message is the only place SNS names the existing endpoint.
 */
const TOKEN_TAKEN = /Endpoint (arn:aws[a-z-]*:sns:\S+) already exists with the same [Tt]oken/;

async function takenEndpointArn(error: unknown): Promise<string | null> {
  const { InvalidParameterException } = await loadSnsSdk();
  return error instanceof InvalidParameterException ? (TOKEN_TAKEN.exec(error.message)?.[1] ?? null) : null;
}

/**
 * Moves an existing endpoint to `userId`: whoever holds the device token holds the phone (a shared or handed-on
 * phone), so the previous user stops getting alerts on it. It leaves the previous user's devices first, then
 * SNS records the new owner; a registration retried after a failure between the two finishes the move.
 */
async function takeOverEndpoint(endpointArn: string, userId: string, token: string): Promise<void> {
  const { GetEndpointAttributesCommand, SetEndpointAttributesCommand } = await loadSnsSdk();
  const sns = await snsClient();
  const { Attributes } = await sns.send(new GetEndpointAttributesCommand({ EndpointArn: endpointArn }));
  const previousUserId = Attributes?.CustomUserData;
  if (previousUserId && previousUserId !== userId) await removePushDevice(previousUserId, endpointArn);
  await sns.send(
    new SetEndpointAttributesCommand({ EndpointArn: endpointArn, Attributes: { CustomUserData: userId, Token: token, Enabled: 'true' } }),
  );
}

/** The device token's SNS endpoint, owned by `userId`. */
async function endpointFor(userId: string, platform: PushPlatform, token: string): Promise<string> {
  const { CreatePlatformEndpointCommand } = await loadSnsSdk();
  try {
    const { EndpointArn } = await (
      await snsClient()
    ).send(new CreatePlatformEndpointCommand({ PlatformApplicationArn: applicationArn(platform), Token: token, CustomUserData: userId }));
    if (!EndpointArn) throw new Error('SNS returned no endpoint ARN');
    return EndpointArn;
  } catch (error) {
    const endpointArn = await takenEndpointArn(error);
    if (!endpointArn) throw error;
    await takeOverEndpoint(endpointArn, userId, token);
    return endpointArn;
  }
}

/**
 * Registers a device token with SNS (CreatePlatformEndpoint is idempotent for the same token and user, so
 * registering a device again returns the same endpoint; a token another user registered moves to this one)
 * and keeps the endpoint on the user, once.
 */
export async function registerPushDevice(userId: string, platform: PushPlatform, token: string): Promise<PushDevice> {
  const devices = await loadPushDevices(userId);
  if (!devices) throw new PushUserNotFoundError();
  const endpointArn = await endpointFor(userId, platform, token);
  const existing = devices[endpointArn];
  if (existing) return existing;
  const device = pushDeviceSchema.parse({ platform, endpointArn, registeredAt: new Date().toISOString() });
  const stored = await updateUserMapEntry(userId, 'pushDevices', endpointArn, {
    UpdateExpression: 'SET #map.#id = if_not_exists(#map.#id, :device)',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeValues: { ':device': device },
  });
  if (!stored) throw new PushUserNotFoundError();
  return device;
}

/** Forgets a device: removes it from the user and, when asked, deletes the SNS endpoint. Returns whether the user had it. */
export async function removePushDevice(userId: string, endpointArn: string, options: { deleteEndpoint?: boolean } = {}): Promise<boolean> {
  const removed = await updateUserMapEntry(userId, 'pushDevices', endpointArn, {
    UpdateExpression: 'REMOVE #map.#id',
    ConditionExpression: 'attribute_exists(#map.#id)',
  });
  if (options.deleteEndpoint) {
    const { DeleteEndpointCommand } = await loadSnsSdk();
    await (await snsClient()).send(new DeleteEndpointCommand({ EndpointArn: endpointArn }));
  }
  return removed;
}
