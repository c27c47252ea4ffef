import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { apiClient, login, ruleBody, seedTenants, type Api } from '../api/support';

/**
 * Attack replayed: a tenant creates a rule over vehicle ids it does not own (`vehicleIds: [1..n]`, `stored: true`)
 * hoping to read the positions of vehicles not yet registered, or of another client's vehicles, through the
 * alert history. The API must refuse unknown and foreign ids alike, with one message, so that the answer does
 * not even tell which ids exist.
 */
describe('security: vehicle references in rules', () => {
  let emulators: Emulators;
  let api: Api;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let token: string;

  beforeAll(async () => {
    emulators = await startTestEmulators('sec-vehicles');
    tenants = await seedTenants('secveh');
    api = apiClient();
    token = await login(api, tenants.root);
  });
  afterAll(async () => emulators.stop());

  const create = (body: unknown) => api({ method: 'POST', path: '/api/v3/notifications', token, body });

  it('refuses vehicle ids the directory does not know, on create and on replace', async () => {
    const response = await create(ruleBody(tenants.root.agentId, { vehicleIds: [101, 31337] }));
    expect(response.status).toBe(400);
    expect(response.body.issues).toEqual([{ path: 'vehicleIds.1', message: 'no vehicle 31337 in your scope' }]);

    const rule = (await create(ruleBody(tenants.root.agentId, { vehicleIds: [101] }))).body;
    const replaced = await api({ method: 'PUT', path: '/api/v3/notifications', token, body: { ...rule, vehicleIds: [101, 31337] } });
    expect(replaced.status).toBe(400);
    expect(replaced.body.issues).toEqual([{ path: 'vehicleIds.1', message: 'no vehicle 31337 in your scope' }]);
  });

  it('answers a foreign vehicle exactly like an unknown one', async () => {
    const foreign = await create(ruleBody(tenants.root.agentId, { vehicleIds: [202] }));
    const unknown = await create(ruleBody(tenants.root.agentId, { vehicleIds: [31337] }));
    expect(foreign.status).toBe(400);
    expect(unknown.status).toBe(400);
    expect(foreign.body.issues[0].message.replace('202', 'N')).toBe(unknown.body.issues[0].message.replace('31337', 'N'));
  });

  it('refuses a sweep over a range of ids, naming each bad one', async () => {
    const range = Array.from({ length: 300 }, (_, index) => index + 1);
    const response = await create(ruleBody(tenants.root.agentId, { vehicleIds: range }));
    expect(response.status).toBe(400);
    expect(response.body.issues.map((issue: { path: string }) => issue.path)).toContain('vehicleIds.0');
    expect(response.body.issues.map((issue: { path: string }) => issue.path)).not.toContain('vehicleIds.100');
  });
});
