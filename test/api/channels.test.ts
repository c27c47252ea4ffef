import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { snsClient } from '../../shared/aws/clients';
import { getUser } from '../../shared/store/directory-store';
import { issueLinkCode, linkedChatOwners, redeemLinkCode } from '../../shared/store/telegram-links';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { SnsStub } from '../delivery/support/sns-stub';
import { TestClock, apiClient, login, seedTenants, type Api } from './support';

describe('alert channels of the logged-in user', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  const clock = new TestClock();
  let api: Api;
  let token: string;
  // SNS has no local emulator: the stub keeps each endpoint's attributes and refuses, as SNS does, a second
  // endpoint for one token with another user's CustomUserData; the API, its store and DynamoDB are real
  const sns = new SnsStub();

  beforeAll(async () => {
    emulators = await startTestEmulators('api-channels');
    tenants = await seedTenants('channels');
    api = apiClient({ now: clock.now });
    token = await login(api, tenants.readOnly);
    sns.install(snsClient());
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

  it('lists the chats linked to the caller and unlinks only its own; any other chat is 404', async () => {
    const link = async (userId: string, chatId: string, username: string) =>
      redeemLinkCode((await issueLinkCode(userId, clock.value)).code, { chatId, username }, clock.value);
    const viewer = tenants.readOnly.userId;
    const before = (await getUser(viewer))?.telegramChats ?? {};
    clock.advance(120_000);
    await link(viewer, '7001', 'night_shift');
    clock.advance(60_000);
    await link(viewer, '-1007002', '');
    await link(tenants.sibling.userId, '7003', 'sibling_ops');
    const other = await login(api, tenants.sibling);

    const listed = await api({ method: 'GET', path: '/api/v3/telegram/chats', token });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      ...Object.values(before),
      { chatId: '7001', username: 'night_shift', active: true, linkedAt: new Date(clock.value - 60_000).toISOString() },
      { chatId: '-1007002', username: '', active: true, linkedAt: new Date(clock.value).toISOString() },
    ]);
    expect((await api({ method: 'GET', path: '/api/v3/telegram/chats', token: other })).body.map((chat: { chatId: string }) => chat.chatId)).toEqual([
      '7003',
    ]);

    // another user's chat, in another client: 404, and it stays linked
    const foreign = await api({ method: 'DELETE', path: '/api/v3/telegram/chats/7003', token });
    expect(foreign.status).toBe(404);
    expect((await linkedChatOwners(['7003'])).get('7003')).toBe(tenants.sibling.userId);
    expect(Object.keys((await getUser(tenants.sibling.userId))?.telegramChats ?? {})).toEqual(['7003']);
    expect((await api({ method: 'DELETE', path: '/api/v3/telegram/chats/999999', token })).status).toBe(404);

    // its own chat (read-only users too): gone from the user and from the chat owners that rules are checked against
    const revoked = await api({ method: 'DELETE', path: '/api/v3/telegram/chats/-1007002', token });
    expect(revoked).toMatchObject({ status: 200, body: 'Success' });
    expect(Object.keys((await getUser(viewer))?.telegramChats ?? {})).not.toContain('-1007002');
    expect((await linkedChatOwners(['-1007002'])).has('-1007002')).toBe(false);
    expect((await api({ method: 'DELETE', path: '/api/v3/telegram/chats/-1007002', token })).status).toBe(404);

    const bad = await api({ method: 'DELETE', path: '/api/v3/telegram/chats/not-a-chat', token });
    expect(bad.status).toBe(400);
    expect(bad.body.issues[0].path).toBe('id');
    expect((await api({ method: 'GET', path: '/api/v3/telegram/chats' })).status).toBe(401);
    expect((await api({ method: 'DELETE', path: '/api/v3/telegram/chats/7001' })).status).toBe(401);
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

  it('moves a device token another user registered (a shared phone) to the caller, and answers 200', async () => {
    process.env.PUSH_FCM_APPLICATION_ARN = 'arn:aws:sns:us-east-1:000000000000:app/GCM/fleetwatch';
    const other = await login(api, tenants.sibling);
    const devicesOf = async (userId: string) => Object.keys((await getUser(userId))?.pushDevices ?? {});
    const register = (session: string) =>
      api({ method: 'POST', path: '/api/v3/push/devices', token: session, body: { platform: 'fcm', token: 'shared-phone-token' } });

    const first = await register(other);
    expect(first.status).toBe(200);
    const endpointArn: string = first.body.endpointArn;
    expect(await devicesOf(tenants.sibling.userId)).toEqual([endpointArn]);

    const second = await register(token);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ platform: 'fcm', endpointArn });
    expect(sns.endpoints.get(endpointArn)).toMatchObject({ CustomUserData: tenants.readOnly.userId, Enabled: 'true' });
    expect(await devicesOf(tenants.readOnly.userId)).toContain(endpointArn);
    // the previous user's alerts no longer reach the phone
    expect(await devicesOf(tenants.sibling.userId)).toEqual([]);

    // and back again: the phone follows whoever registers it last
    expect((await register(other)).status).toBe(200);
    expect(await devicesOf(tenants.readOnly.userId)).not.toContain(endpointArn);
    expect(await devicesOf(tenants.sibling.userId)).toEqual([endpointArn]);
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
