import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { login, ruleBody, seedTenants, session, typedApiClient, type JsonBody, type TypedApi } from '../api/support';

/**
 * Attack replayed: a tenant creates a rule over vehicle ids it does not own (`vehicleIds: [1..n]`, `stored: true`)
 * hoping to read the positions of vehicles not yet registered, or of another client's vehicles, through the
 * alert history. The API must refuse unknown and foreign ids alike, with one message, so that the answer does
 * not even tell which ids exist.
 */
describe('security: vehicle references in rules', () => {
  let emulators: Emulators;
  let api: TypedApi;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let token: string;

  beforeAll(async () => {
    emulators = await startTestEmulators('sec-vehicles');
    tenants = await seedTenants('secveh');
    api = typedApiClient();
    token = await login(api, tenants.root);
  });
  afterAll(async () => emulators.stop());

  // the bodies name vehicles the API must refuse: the API checks them, not the compiler
  const create = (body: object) => api.POST('/api/v3/notifications', { headers: session(token), body: body as JsonBody<'createNotificationRule'> });

  it('refuses vehicle ids the directory does not know, on create and on replace', async () => {
    const created = await create(ruleBody(tenants.root.agentId, { vehicleIds: [101, 31337] }));
    expect(created.response.status).toBe(400);
    expect(created.error?.issues).toEqual([{ path: 'vehicleIds.1', message: 'no vehicle 31337 in your scope' }]);

    const rule = (await create(ruleBody(tenants.root.agentId, { vehicleIds: [101] }))).data!;
    const replaced = await api.PUT('/api/v3/notifications', { headers: session(token), body: { ...rule, vehicleIds: [101, 31337] } });
    expect(replaced.response.status).toBe(400);
    expect(replaced.error?.issues).toEqual([{ path: 'vehicleIds.1', message: 'no vehicle 31337 in your scope' }]);
  });

  it('answers a foreign vehicle exactly like an unknown one', async () => {
    const foreign = await create(ruleBody(tenants.root.agentId, { vehicleIds: [202] }));
    const unknown = await create(ruleBody(tenants.root.agentId, { vehicleIds: [31337] }));
    expect(foreign.response.status).toBe(400);
    expect(unknown.response.status).toBe(400);
    expect(foreign.error?.issues?.[0]?.message.replace('202', 'N')).toBe(unknown.error?.issues?.[0]?.message.replace('31337', 'N'));
  });

  it('refuses a sweep over a range of ids, naming each bad one', async () => {
    const range = Array.from({ length: 300 }, (_, index) => index + 1);
    const { error, response } = await create(ruleBody(tenants.root.agentId, { vehicleIds: range }));
    expect(response.status).toBe(400);
    expect(error?.issues?.map((issue) => issue.path)).toContain('vehicleIds.0');
    expect(error?.issues?.map((issue) => issue.path)).not.toContain('vehicleIds.100');
  });
});
