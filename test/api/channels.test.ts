import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { snsClient } from '../../shared/aws/clients';
import { getUser } from '../../shared/store/directory-store';
import { issueLinkCode, linkedChatOwners, redeemLinkCode } from '../../shared/store/telegram-links';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { SnsStub } from '../delivery/support/sns-stub';
import { TestClock, apiClient, login, seedTenants, session, typedApiClient, type Api, type TypedApi } from './support';

describe('alert channels of the logged-in user', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  const clock = new TestClock();
  let api: TypedApi;
  /** For the one request the typed client cannot express: a body the document forbids. */
  let rawApi: Api;
  let token: string;
  // SNS has no local emulator: the stub keeps each endpoint's attributes and refuses, as SNS does, a second
  // endpoint for one token with another user's CustomUserData; the API, its store and DynamoDB are real
  const sns = new SnsStub();

  beforeAll(async () => {
    emulators = await startTestEmulators('api-channels');
    tenants = await seedTenants('channels');
    api = typedApiClient({ now: clock.now });
    rawApi = apiClient({ now: clock.now });
    token = await login(api, tenants.readOnly);
    sns.install(await snsClient());
  });
  afterAll(async () => emulators.stop());
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  it('issues a Telegram link code that the bot can redeem for this user (read-only users too)', async () => {
    vi.stubEnv('TELEGRAM_BOT_USERNAME', 'fleetwatch_test_bot');
    const { data, response } = await api.POST('/api/v3/telegram/link', { headers: session(token) });
    expect(response.status).toBe(200);
    expect(data?.link).toBe(`https://t.me/fleetwatch_test_bot?start=${data?.code}`);
    expect(data?.expiresAt).toBe(new Date(clock.value + 15 * 60_000).toISOString());
    const linked = await redeemLinkCode(data!.code, { chatId: '4242', username: 'ops' }, clock.value + 60_000);
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

    const listed = await api.GET('/api/v3/telegram/chats', { headers: session(token) });
    expect(listed.response.status).toBe(200);
    expect(listed.data).toEqual([
      ...Object.values(before),
      { chatId: '7001', username: 'night_shift', active: true, linkedAt: new Date(clock.value - 60_000).toISOString() },
      { chatId: '-1007002', username: '', active: true, linkedAt: new Date(clock.value).toISOString() },
    ]);
    expect((await api.GET('/api/v3/telegram/chats', { headers: session(other) })).data?.map((chat) => chat.chatId)).toEqual(['7003']);

    // another user's chat, in another client: 404, and it stays linked
    const unlink = (id: string, sessionToken?: string) =>
      api.DELETE('/api/v3/telegram/chats/{id}', { headers: session(sessionToken), params: { path: { id } } });
    const foreign = await unlink('7003', token);
    expect(foreign.response.status).toBe(404);
    expect((await linkedChatOwners(['7003'])).get('7003')).toBe(tenants.sibling.userId);
    expect(Object.keys((await getUser(tenants.sibling.userId))?.telegramChats ?? {})).toEqual(['7003']);
    expect((await unlink('999999', token)).response.status).toBe(404);

    // its own chat (read-only users too): gone from the user and from the chat owners that rules are checked against
    const revoked = await unlink('-1007002', token);
    expect(revoked.response.status).toBe(200);
    expect(revoked.data).toBe('Success');
    expect(Object.keys((await getUser(viewer))?.telegramChats ?? {})).not.toContain('-1007002');
    expect((await linkedChatOwners(['-1007002'])).has('-1007002')).toBe(false);
    expect((await unlink('-1007002', token)).response.status).toBe(404);

    const bad = await unlink('not-a-chat', token);
    expect(bad.response.status).toBe(400);
    expect(bad.error?.issues?.[0]?.path).toBe('id');
    expect((await api.GET('/api/v3/telegram/chats')).response.status).toBe(401);
    expect((await unlink('7001')).response.status).toBe(401);
  });

  it('says plainly that Telegram is not configured when there is no bot', async () => {
    const { error, response } = await api.POST('/api/v3/telegram/link', { headers: session(token) });
    expect(response.status).toBe(400);
    expect(error?.issues?.[0]?.message).toMatch(/Telegram is not configured/);
  });

  it('needs a session', async () => {
    expect((await api.POST('/api/v3/telegram/link')).response.status).toBe(401);
    expect((await api.POST('/api/v3/push/devices', { body: { platform: 'fcm', token: 'abc' } })).response.status).toBe(401);
  });

  it('registers a push device on the user', async () => {
    vi.stubEnv('PUSH_FCM_APPLICATION_ARN', 'arn:aws:sns:us-east-1:000000000000:app/GCM/fleetwatch');
    // SNS has no local emulator: its CreatePlatformEndpoint answer is stubbed, everything else is real
    const endpointArn = 'arn:aws:sns:us-east-1:000000000000:endpoint/GCM/fleetwatch/1234';
    const send = vi.spyOn(await snsClient(), 'send').mockImplementation(async () => ({ EndpointArn: endpointArn }));
    const { data, response } = await api.POST('/api/v3/push/devices', {
      headers: session(token),
      body: { platform: 'fcm', token: 'device-token-1' },
    });
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ platform: 'fcm', endpointArn });
    expect(send).toHaveBeenCalledTimes(1);
    expect(Object.values((await getUser(tenants.readOnly.userId))?.pushDevices ?? {}).map((device) => device.endpointArn)).toEqual([endpointArn]);
  });

  it('moves a device token another user registered (a shared phone) to the caller, and answers 200', async () => {
    vi.stubEnv('PUSH_FCM_APPLICATION_ARN', 'arn:aws:sns:us-east-1:000000000000:app/GCM/fleetwatch');
    const other = await login(api, tenants.sibling);
    const devicesOf = async (userId: string) => Object.keys((await getUser(userId))?.pushDevices ?? {});
    const register = (sessionToken: string) =>
      api.POST('/api/v3/push/devices', { headers: session(sessionToken), body: { platform: 'fcm', token: 'shared-phone-token' } });

    const first = await register(other);
    expect(first.response.status).toBe(200);
    const endpointArn = first.data!.endpointArn;
    expect(await devicesOf(tenants.sibling.userId)).toEqual([endpointArn]);

    const second = await register(token);
    expect(second.response.status).toBe(200);
    expect(second.data).toMatchObject({ platform: 'fcm', endpointArn });
    expect(sns.endpoints.get(endpointArn)).toMatchObject({ CustomUserData: tenants.readOnly.userId, Enabled: 'true' });
    expect(await devicesOf(tenants.readOnly.userId)).toContain(endpointArn);
    // the previous user's alerts no longer reach the phone
    expect(await devicesOf(tenants.sibling.userId)).toEqual([]);

    // and back again: the phone follows whoever registers it last
    expect((await register(other)).response.status).toBe(200);
    expect(await devicesOf(tenants.readOnly.userId)).not.toContain(endpointArn);
    expect(await devicesOf(tenants.sibling.userId)).toEqual([endpointArn]);
  });

  it('answers 400 for a platform this deployment has not configured, or a bad body', async () => {
    const unconfigured = await api.POST('/api/v3/push/devices', { headers: session(token), body: { platform: 'apns', token: 'device-token-2' } });
    expect(unconfigured.response.status).toBe(400);
    expect(unconfigured.error?.issues?.[0]?.path).toBe('platform');
    // raw: the typed client cannot send a platform outside the document's enum
    const bad = await rawApi({ method: 'POST', path: '/api/v3/push/devices', token, body: { platform: 'wap', token: '' } });
    expect(bad.status).toBe(400);
    expect(bad.body.issues.map((issue: { path: string }) => issue.path).sort()).toEqual(['platform', 'token']);
  });
});
