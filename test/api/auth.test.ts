import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { MAX_SESSIONS_PER_USER, startSession } from '../../shared/store/sessions';
import { createUser, getUser } from '../../shared/store/directory-store';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { TestClock, login, seedTenants, session, typedApiClient, type TypedApi } from './support';

describe('authentication', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  const clock = new TestClock();
  let api: TypedApi;

  beforeAll(async () => {
    emulators = await startTestEmulators('api-auth');
    tenants = await seedTenants('auth');
    api = typedApiClient({ now: clock.now });
  });
  afterAll(async () => emulators.stop());

  const checkSession = async (token: string | undefined) => (await api.GET('/api/v3/auth/check', { headers: session(token) })).response;

  it('logs in with login and password and answers the token and the login', async () => {
    const { data, response } = await api.POST('/api/v3/auth/login', { body: { login: tenants.root.login, password: tenants.root.password } });
    expect(response.status).toBe(200);
    expect(data?.User).toBe(tenants.root.login);
    expect(data?.AuthId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const check = await api.GET('/api/v3/auth/check', { headers: session(data?.AuthId) });
    expect(check.response.status).toBe(200);
  });

  it('accepts the login in any letter case', async () => {
    const { response } = await api.POST('/api/v3/auth/login', {
      body: { login: tenants.child.login.toUpperCase(), password: tenants.child.password },
    });
    expect(response.status).toBe(200);
  });

  it('refuses a wrong password and an unknown login alike', async () => {
    const wrong = await api.POST('/api/v3/auth/login', { body: { login: tenants.child.login, password: 'nope' } });
    const unknown = await api.POST('/api/v3/auth/login', { body: { login: 'nobody-at-all', password: 'nope' } });
    expect(wrong.response.status).toBe(401);
    expect(unknown.response.status).toBe(401);
    expect(wrong.error).toEqual(unknown.error);
  });

  it('answers 400 with each problem for a bad login body, and for malformed JSON', async () => {
    const bad = await api.POST('/api/v3/auth/login', {
      // @ts-expect-error the password breaks the schema on purpose
      body: { login: '', password: 5 },
    });
    expect(bad.response.status).toBe(400);
    expect(bad.error?.error).toBe('ValidationError');
    expect(bad.error?.issues?.map((issue) => issue.path).sort()).toEqual(['login', 'password']);
    const malformed = await api.POST('/api/v3/auth/login', { body: { login: '', password: '' }, bodySerializer: () => '{"login": ' });
    expect(malformed.response.status).toBe(400);
    expect(malformed.error?.issues).toEqual([{ path: '', message: 'the body must be valid JSON' }]);
    // @ts-expect-error the body is missing on purpose
    const empty = await api.POST('/api/v3/auth/login');
    expect(empty.response.status).toBe(400);
  });

  it('answers 401 without a token and with an unknown token', async () => {
    expect((await api.GET('/api/v3/auth/check')).response.status).toBe(401);
    expect((await api.GET('/api/v3/auth/check', { headers: session('not-a-session') })).response.status).toBe(401);
    expect((await api.POST('/api/v3/notifications/find', { body: { parentId: tenants.root.agentId } })).response.status).toBe(401);
  });

  it('slides the session: each request prolongs it by the session duration (30 minutes by default)', async () => {
    const token = await login(api, tenants.root);
    clock.advance(29 * 60_000);
    expect((await checkSession(token)).status).toBe(200);
    clock.advance(29 * 60_000);
    const check = await api.GET('/api/v3/auth/check', { headers: session(token) });
    expect(check.response.status).toBe(200);
    expect(Date.parse(check.data!.expiresAt)).toBe(clock.value + 30 * 60_000);
    clock.advance(30 * 60_000 + 1);
    expect((await checkSession(token)).status).toBe(401);
  });

  it("follows the user's own session duration", async () => {
    const brief = await createUser({
      parentId: tenants.root.agentId,
      login: 'auth-brief',
      password: 'brief-password',
      email: 'brief@example.com',
      sessionDuration: 5,
    });
    const token = await login(api, { agentId: tenants.root.agentId, login: brief.login, password: 'brief-password', userId: brief.id });
    clock.advance(4 * 60_000);
    expect((await checkSession(token)).status).toBe(200);
    clock.advance(5 * 60_000 + 1);
    expect((await checkSession(token)).status).toBe(401);
  });

  it(`keeps at most ${MAX_SESSIONS_PER_USER} sessions per user: a further login ends the oldest`, async () => {
    // the first 50 sessions are started directly: 50 password checks at scrypt's cost add nothing to what is tested
    const user = (await getUser(tenants.child.userId))!;
    const tokens: string[] = [];
    for (let index = 0; index < MAX_SESSIONS_PER_USER; index++) {
      tokens.push((await startSession(user, clock.value)).token);
      clock.advance(10);
    }
    tokens.push(await login(api, tenants.child));
    expect((await checkSession(tokens[0])).status).toBe(401);
    expect((await checkSession(tokens[1])).status).toBe(200);
    expect((await checkSession(tokens.at(-1))).status).toBe(200);
  });

  it('slows down repeated failed logins with 429 and Retry-After, then lets the right password in', async () => {
    const attempt = async (password: string) =>
      (await api.POST('/api/v3/auth/login', { body: { login: tenants.readOnly.login, password } })).response;
    for (let index = 0; index < 5; index++) expect((await attempt('guess')).status).toBe(401);
    const throttled = await attempt(tenants.readOnly.password);
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('Retry-After')).toBe('1');
    clock.advance(1_000);
    expect((await attempt('guess')).status).toBe(401);
    const longer = await attempt(tenants.readOnly.password);
    expect(longer.status).toBe(429);
    expect(longer.headers.get('Retry-After')).toBe('2');
    clock.advance(2_000);
    expect((await attempt(tenants.readOnly.password)).status).toBe(200);
    // a success clears the count
    expect((await attempt('guess')).status).toBe(401);
    expect((await attempt(tenants.readOnly.password)).status).toBe(200);
  });

  it('stores neither passwords nor tokens, only their hashes', async () => {
    const token = await login(api, tenants.sibling);
    const { Items = [] } = await documentClient().send(new ScanCommand({ TableName: resourcesConfig().DIRECTORY_TABLE }));
    const everything = JSON.stringify(Items);
    expect(everything).not.toContain(token);
    expect(everything).not.toContain(tenants.sibling.password);
    const user = Items.find((item) => item.id === tenants.sibling.userId);
    expect(user?.passwordHash).toBeUndefined();
    const credential = Items.find((item) => item.pk === `LOGIN#${tenants.sibling.login.toLowerCase()}`);
    // at the test suite's cost (.config/test-env.ts); auth-hardening.test.ts checks the deployed one
    expect(credential?.passwordHash).toMatch(
      new RegExp(`^scrypt\\$${process.env.PASSWORD_SCRYPT_N}\\$8\\$1\\$[A-Za-z0-9+/=]{24}\\$[A-Za-z0-9+/=]{44}$`),
    );
  });
});

describe('request rate per session', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  const clock = new TestClock();

  beforeAll(async () => {
    emulators = await startTestEmulators('api-rate');
    tenants = await seedTenants('rate');
  });
  afterAll(async () => emulators.stop());

  it('rejects a request less than the interval after the previous one with 429 and Retry-After', async () => {
    const api = typedApiClient({ now: clock.now, rateLimitIntervalMs: 1_000 });
    const token = await login(api, tenants.root);
    const checkSession = async (sessionToken: string) => (await api.GET('/api/v3/auth/check', { headers: session(sessionToken) })).response;
    expect((await checkSession(token)).status).toBe(200);
    clock.advance(400);
    const find = async () =>
      (await api.POST('/api/v3/notifications/find', { headers: session(token), body: { parentId: tenants.root.agentId } })).response;
    const tooSoon = await find();
    expect(tooSoon.status).toBe(429);
    expect(tooSoon.headers.get('Retry-After')).toBe('1');
    clock.advance(600);
    expect((await find()).status).toBe(200);
    // another session of the same user has its own pace
    const other = await login(api, tenants.root);
    expect((await checkSession(other)).status).toBe(200);
  });
});
