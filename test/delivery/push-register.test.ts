import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { snsClient } from '../../shared/aws/clients';
import { PushNotConfiguredError, PushUserNotFoundError, registerPushDevice, removePushDevice } from '../../shared/channels/push/register';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { SnsStub } from './support/sns-stub';
import { getUser, putUser } from './support/fixtures';

const FCM_APP = 'arn:aws:sns:us-east-1:000000000000:app/GCM/fleetwatch-fcm';
const APNS_APP = 'arn:aws:sns:us-east-1:000000000000:app/APNS/fleetwatch-apns';

describe('push device registration', () => {
  let emulators: Emulators;
  // SNS has no local emulator: CreatePlatformEndpoint is answered by a stub in the real client's middleware
  const sns = new SnsStub();

  beforeAll(async () => {
    emulators = await startTestEmulators('push-register');
    sns.install(await snsClient());
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await emulators.stop();
  });
  beforeEach(() => {
    vi.stubEnv('PUSH_FCM_APPLICATION_ARN', FCM_APP);
    vi.stubEnv('PUSH_APNS_APPLICATION_ARN', APNS_APP);
    sns.calls.length = 0;
  });

  it('creates an SNS endpoint on the platform application and keeps it on the user once', async () => {
    const user = await putUser({ login: 'phone', email: 'phone@example.com' });
    const device = await registerPushDevice(user.id, 'fcm', 'token-1');
    expect(sns.calls[0]).toMatchObject({ command: 'CreatePlatformEndpoint', input: { PlatformApplicationArn: FCM_APP, Token: 'token-1' } });
    expect(device).toMatchObject({ platform: 'fcm', endpointArn: expect.stringContaining('token-1') });

    await registerPushDevice(user.id, 'fcm', 'token-1');
    const apns = await registerPushDevice(user.id, 'apns', 'token-2');
    expect(sns.calls.at(-1)?.input.PlatformApplicationArn).toBe(APNS_APP);
    expect(
      Object.values((await getUser(user.id)).pushDevices ?? {})
        .map((stored) => stored.endpointArn)
        .sort(),
    ).toEqual([device.endpointArn, apns.endpointArn].sort());

    expect(await removePushDevice(user.id, device.endpointArn)).toBe(true);
    expect(Object.values((await getUser(user.id)).pushDevices ?? {}).map((stored) => stored.endpointArn)).toEqual([apns.endpointArn]);
    expect(await removePushDevice(user.id, device.endpointArn)).toBe(false);
  });

  it('refuses an unconfigured platform and an unknown user', async () => {
    const user = await putUser({ login: 'no-apns', email: 'no-apns@example.com' });
    vi.stubEnv('PUSH_APNS_APPLICATION_ARN', undefined);
    await expect(registerPushDevice(user.id, 'apns', 't')).rejects.toBeInstanceOf(PushNotConfiguredError);
    await expect(registerPushDevice('0b8f5a43-3f2c-4f7e-9f53-6a1d3c9e0001', 'fcm', 't')).rejects.toBeInstanceOf(PushUserNotFoundError);
    expect(sns.calls).toEqual([]);
    expect(Object.values((await getUser(user.id)).pushDevices ?? {})).toEqual([]);
  });
});
