import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { snsClient } from '../../shared/aws/clients';
import { getUser } from '../../shared/store/directory-store';
import { redeemLinkCode } from '../../shared/store/telegram-links';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { TestClock, apiClient, login, seedTenants, type Api } from './support';

describe('alert channels of the logged-in user', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  const clock = new TestClock();
  let api: Api;
  let token: string;

  beforeAll(async () => {
    emulators = await startTestEmulators('api-channels');
    tenants = await seedTenants('channels');
    api = apiClient({ now: clock.now });
    token = await login(api, tenants.readOnly);
  });
  afterAll(async () => emulators.stop());
  afterEach(() => {
    vi.restoreAllMocks();
    delete process.env.TELEGRAM_BOT_USERNAME;
    delete process.env.PUSH_FCM_APPLICATION_ARN;
  });

  it('issues a Telegram link code that the bot can redeem for this user (read-only users too)', async () => {
    process.env.TELEGRAM_BOT_USERNAME = 'fleetwatch_test_bot';
    const response = await api({ method: 'POST', path: '/api/v3/telegram/link', token });
    expect(response.status).toBe(200);
    expect(response.body.link).toBe(`https://t.me/fleetwatch_test_bot?start=${response.body.code}`);
    expect(response.body.expiresAt).toBe(new Date(clock.value + 15 * 60_000).toISOString());
    const linked = await redeemLinkCode(response.body.code, { chatId: '4242', username: 'ops' }, clock.value + 60_000);
    expect(linked?.userId).toBe(tenants.readOnly.userId);
    expect(Object.values((await getUser(tenants.readOnly.userId))?.telegramChats ?? {}).map((chat) => chat.chatId)).toEqual(['4242']);
  });

  it('says plainly that Telegram is not configured when there is no bot', async () => {
    const response = await api({ method: 'POST', path: '/api/v3/telegram/link', token });
    expect(response.status).toBe(400);
    expect(response.body.issues[0].message).toMatch(/Telegram is not configured/);
  });

  it('needs a session', async () => {
    expect((await api({ method: 'POST', path: '/api/v3/telegram/link' })).status).toBe(401);
    expect((await api({ method: 'POST', path: '/api/v3/push/devices', body: { platform: 'fcm', token: 'abc' } })).status).toBe(401);
  });

  it('registers a push device on the user', async () => {
    process.env.PUSH_FCM_APPLICATION_ARN = 'arn:aws:sns:us-east-1:000000000000:app/GCM/fleetwatch';
    // SNS has no local emulator: its CreatePlatformEndpoint answer is stubbed, everything else is real
    const endpointArn = 'arn:aws:sns:us-east-1:000000000000:endpoint/GCM/fleetwatch/1234';
    const send = vi.spyOn(snsClient(), 'send').mockImplementation(async () => ({ EndpointArn: endpointArn }));
    const response = await api({ method: 'POST', path: '/api/v3/push/devices', token, body: { platform: 'fcm', token: 'device-token-1' } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ platform: 'fcm', endpointArn });
    expect(send).toHaveBeenCalledTimes(1);
    expect(Object.values((await getUser(tenants.readOnly.userId))?.pushDevices ?? {}).map((device) => device.endpointArn)).toEqual([endpointArn]);
  });

  it('answers 400 for a platform this deployment has not configured, or a bad body', async () => {
    const unconfigured = await api({ method: 'POST', path: '/api/v3/push/devices', token, body: { platform: 'apns', token: 'device-token-2' } });
    expect(unconfigured.status).toBe(400);
    expect(unconfigured.body.issues[0].path).toBe('platform');
    const bad = await api({ method: 'POST', path: '/api/v3/push/devices', token, body: { platform: 'wap', token: '' } });
    expect(bad.status).toBe(400);
    expect(bad.body.issues.map((issue: { path: string }) => issue.path).sort()).toEqual(['platform', 'token']);
  });
});
