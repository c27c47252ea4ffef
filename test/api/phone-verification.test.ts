import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetClients } from '../../shared/aws/client-cache';
import type { Emulators } from '../../infra/local/emulators';
import { FakeSms } from '../../infra/local/sms-fake';
import { takeSmsSpend } from '../../shared/store/sms-spend';
import { startTestEmulators } from '../support/emulators';
import { TestClock, login, seedTenants, session, typedApiClient, type TypedApi } from './support';

/**
 * Users' phone numbers and their double opt-in, on DynamoDB Local and the SMS fake. The fake is a loopback HTTP
 * server speaking the AWS JSON 1.0 protocol of pinpoint-sms-voice-v2, reached by the real client through its
 * endpoint: no emulator of AWS End User Messaging SMS exists.
 */
describe('phone numbers and their verification', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let api: TypedApi;
  let token: string;
  const sms = new FakeSms();
  const clock = new TestClock();
  const env = {
    SMS_COUNTRIES: 'AZ,GE',
    SMS_ORIGINATION_IDENTITY: 'arn:aws:sms-voice:eu-central-1:111122223333:pool/pool-fleetwatch',
    SMS_CONFIGURATION_SET: 'fleetwatch',
    SMS_CODES_PER_NUMBER_PER_DAY: '3',
    SMS_CODES_PER_CLIENT_PER_DAY: '4',
  };

  beforeAll(async () => {
    emulators = await startTestEmulators('api-phone');
    const endpoint = await sms.start();
    for (const [key, value] of Object.entries({ ...env, AWS_ENDPOINT_URL_PINPOINT_SMS_VOICE_V2: endpoint })) vi.stubEnv(key, value);
    resetClients();
    tenants = await seedTenants('phone');
    api = typedApiClient({ now: clock.now });
    token = await login(api, tenants.root);
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await sms.stop();
    await emulators.stop();
  });
  beforeEach(() => {
    sms.sent.length = 0;
  });

  const getUser = (id: string) => api.GET('/api/v3/users/{id}', { headers: session(token), params: { path: { id } } });
  async function setPhone(id: string, phoneNumber: string | null) {
    const { data: user } = await getUser(id);
    return api.PUT('/api/v3/users', {
      headers: session(token),
      body: { id, parentId: user!.parentId, firstName: user!.firstName, lastName: user!.lastName, language: user!.language, phoneNumber },
    });
  }
  const sendCode = (id: string) => api.POST('/api/v3/users/{id}/phone/verification', { headers: session(token), params: { path: { id } } });
  const confirm = (id: string, code: string) =>
    api.POST('/api/v3/users/{id}/phone/verification/confirm', { headers: session(token), params: { path: { id } }, body: { code } });
  const codeOf = (to: string) => /\d{6}/.exec(sms.sent.filter((message) => message.to === to).at(-1)!.body)![0];

  it('refuses a number that is not E.164 or not valid, naming phoneNumber', async () => {
    for (const phoneNumber of ['0501234567', '+99450123', '+1 202 555 0123']) {
      const { response, error } = await setPhone(tenants.root.userId, phoneNumber);
      expect(response.status, phoneNumber).toBe(400);
      expect(JSON.stringify(error)).toContain('phoneNumber');
    }
  });

  it('refuses at save a number of a country outside the allow-list', async () => {
    const { response, error } = await setPhone(tenants.root.userId, '+12025550123');
    expect(response.status).toBe(400);
    expect(error).toMatchObject({ issues: [{ path: 'phoneNumber', message: expect.stringContaining('AZ, GE') }] });
  });

  it('verifies a number with the code sent to it, after a wrong try', async () => {
    const number = '+994501234567';
    expect((await setPhone(tenants.root.userId, number)).data).toMatchObject({ phoneNumber: number, phoneVerified: false });
    const sent = await sendCode(tenants.root.userId);
    expect(sent.response.status).toBe(200);
    expect(sms.sent).toHaveLength(1);
    expect(sms.sent[0]).toMatchObject({ to: number, messageType: 'TRANSACTIONAL', configurationSet: 'fleetwatch', segments: 1 });
    const code = codeOf(number);
    const wrong = await confirm(tenants.root.userId, code === '000000' ? '000001' : '000000');
    expect(wrong.response.status).toBe(400);
    expect(wrong.error).toMatchObject({ issues: [{ path: 'code', message: expect.stringContaining('4 tries left') }] });
    const right = await confirm(tenants.root.userId, code);
    expect(right.data).toEqual({ phoneNumber: number, phoneVerified: true });
    expect((await getUser(tenants.root.userId)).data).toMatchObject({ phoneVerified: true });
    // a code works once
    expect((await confirm(tenants.root.userId, code)).response.status).toBe(400);
  });

  it('needs a new verification when the number changes', async () => {
    const { data } = await setPhone(tenants.root.userId, '+995555123456');
    expect(data).toMatchObject({ phoneNumber: '+995555123456', phoneVerified: false });
  });

  it('stops a code after its tries, and after it expires', async () => {
    const id = tenants.child.userId;
    await setPhone(id, '+994551112233');
    await sendCode(id);
    const code = codeOf('+994551112233');
    const other = code === '111111' ? '222222' : '111111';
    for (let i = 0; i < 5; i++) expect((await confirm(id, other)).response.status).toBe(400);
    expect((await confirm(id, code)).error).toMatchObject({ issues: [{ path: 'code', message: expect.stringContaining('ask for a new one') }] });

    await sendCode(id);
    clock.advance(11 * 60_000);
    expect((await confirm(id, codeOf('+994551112233'))).response.status).toBe(400);
    expect((await getUser(id)).data).toMatchObject({ phoneVerified: false });
  });

  it('limits codes per number and per client per day', async () => {
    const id = tenants.sibling.userId;
    const siblingToken = await login(api, tenants.sibling);
    const { data: user } = await api.GET('/api/v3/users/{id}', { headers: session(siblingToken), params: { path: { id } } });
    await api.PUT('/api/v3/users', { headers: session(siblingToken), body: { id, parentId: user!.parentId, phoneNumber: '+994701234567' } });
    const send = () => api.POST('/api/v3/users/{id}/phone/verification', { headers: session(siblingToken), params: { path: { id } } });
    for (let i = 0; i < 3; i++) expect((await send()).response.status).toBe(200);
    const refused = await send();
    expect(refused.response.status).toBe(429);
    expect(refused.response.headers.get('Retry-After')).toBeTruthy();
    expect(sms.sent).toHaveLength(3);
  });

  it('answers 400 when the number opted out, and sends nothing', async () => {
    const id = tenants.readOnly.userId;
    await setPhone(id, '+994771234567');
    await sms.reply('+994771234567', 'STOP');
    const refused = await sendCode(id);
    expect(refused.error).toMatchObject({ issues: [{ path: 'phoneNumber', message: expect.stringContaining('opted out') }] });
    expect(sms.sent).toHaveLength(0);
  });

  it("answers the client's SMS spend of the month and its cap, and 404 for a client outside the scope", async () => {
    const own = await api.GET('/api/v3/agents/{id}/sms/spend', { headers: session(token), params: { path: { id: tenants.root.agentId } } });
    expect(own.data).toEqual({ parentId: tenants.root.agentId, month: '2026-03', spentUsd: 0, capUsd: 50, capReached: false });
    const foreign = await api.GET('/api/v3/agents/{id}/sms/spend', { headers: session(token), params: { path: { id: tenants.sibling.agentId } } });
    expect(foreign.response.status).toBe(404);
  });

  it('answers the month the query names, 400 naming month for another shape, and refuses an unknown query parameter', async () => {
    const id = tenants.root.agentId;
    const spend = (query: Record<string, string>) =>
      api.GET('/api/v3/agents/{id}/sms/spend', { headers: session(token), params: { path: { id }, query: query as { month?: string } } });
    // 1.5 dollars spent in February, through the store the deliver function counts with
    expect(await takeSmsSpend(id, 1_500_000, 50_000_000, Date.parse('2026-02-14T12:00:00.000Z'))).toBe(true);
    expect((await spend({ month: '2026-02' })).data).toEqual({ parentId: id, month: '2026-02', spentUsd: 1.5, capUsd: 50, capReached: false });
    expect((await spend({ month: '2025-12' })).data).toMatchObject({ month: '2025-12', spentUsd: 0 });
    expect((await spend({})).data).toMatchObject({ month: '2026-03', spentUsd: 0 });
    for (const month of ['2026-13', '2026-2', 'february', '2026-02-01']) {
      const bad = await spend({ month });
      expect(bad.response.status, month).toBe(400);
      expect(bad.error, month).toMatchObject({ issues: [{ path: 'month' }] });
    }
    expect((await spend({ year: '2026' })).response.status).toBe(400);
  });
});
