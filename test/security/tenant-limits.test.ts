import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { TestClock, login, ruleBody, seedTenants, session, depotZoneBody, typedApiClient, type JsonBody, type TypedApi } from '../api/support';
import { registerVehicle } from '../../shared/store/vehicle-registry';

/** A closed ring of `count` positions on a small circle, with full double precision. */
function ring(count: number, centre: [number, number]): [number, number][] {
  const positions = Array.from({ length: count - 1 }, (_, index): [number, number] => {
    const angle = (2 * Math.PI * index) / (count - 1);
    return [centre[0] + 0.01 * Math.cos(angle) + 1e-13 * index, centre[1] + 0.01 * Math.sin(angle) + 1e-13 * index];
  });
  return [...positions, positions[0]!];
}

/**
 * Attacks replayed: one tenant degrading everyone by creating rules and geozones without end, listing
 * thousands of vehicle ids per rule, posting a geozone bigger than a DynamoDB item (which answered 500), or
 * flooding the API through many sessions of one client.
 */
describe('security: per-client limits', () => {
  let emulators: Emulators;
  let api: TypedApi;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  const tokens = { root: '', child: '', sibling: '', readOnly: '' };
  const clock = new TestClock();

  beforeAll(async () => {
    emulators = await startTestEmulators('sec-limits');
    vi.stubEnv('LIMIT_RULES_PER_CLIENT', '3');
    vi.stubEnv('LIMIT_VEHICLE_IDS_PER_RULE', '2');
    vi.stubEnv('LIMIT_GEOZONES_PER_CLIENT', '2');
    tenants = await seedTenants('seclimits');
    await registerVehicle({ vehicleId: 102, name: 'Truck 102', parentId: tenants.root.agentId }, { allowMove: true });
    await registerVehicle({ vehicleId: 103, name: 'Truck 103', parentId: tenants.root.agentId }, { allowMove: true });
    api = typedApiClient({ now: clock.now });
    for (const name of ['root', 'child', 'sibling', 'readOnly'] as const) tokens[name] = await login(api, tenants[name]);
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await emulators.stop();
  });

  // the bodies break the limits on purpose: the API checks them, not the compiler
  const createRule = (token: string, body: object) =>
    api.POST('/api/v3/notifications', { headers: session(token), body: body as JsonBody<'createNotificationRule'> });
  const createZone = (token: string, body: object) => api.POST('/api/v3/gis', { headers: session(token), body: body as JsonBody<'createGeozone'> });

  it('refuses more vehicle ids per rule than the limit with 400', async () => {
    const { error, response } = await createRule(tokens.root, ruleBody(tenants.root.agentId, { vehicleIds: [101, 102, 103] }));
    expect(response.status).toBe(400);
    expect(error?.issues).toEqual([{ path: 'vehicleIds', message: 'a rule may list at most 2 vehicles' }]);
  });

  it('refuses more rules per client than the limit with 400, counting each client on its own', async () => {
    for (let index = 0; index < 3; index++) expect((await createRule(tokens.root, ruleBody(tenants.root.agentId))).response.status).toBe(200);
    const fourth = await createRule(tokens.root, ruleBody(tenants.root.agentId));
    expect(fourth.response.status).toBe(400);
    expect(fourth.error?.issues).toEqual([{ path: 'parentId', message: 'client already has 3 notification rules, the most allowed' }]);
    // moving a rule into the full client is refused too
    const childRule = (await createRule(tokens.child, ruleBody(tenants.child.agentId, { vehicleIds: [303] }))).data!;
    expect(childRule.id).toBeGreaterThan(0);
    const moved = await api.PUT('/api/v3/notifications', {
      headers: session(tokens.root),
      body: { ...childRule, parentId: tenants.root.agentId, vehicleIds: [] },
    });
    expect(moved.response.status).toBe(400);
  });

  it('refuses more geozones per client than the limit with 400', async () => {
    for (let index = 0; index < 2; index++)
      expect((await createZone(tokens.sibling, depotZoneBody(tenants.sibling.agentId))).response.status).toBe(200);
    const third = await createZone(tokens.sibling, depotZoneBody(tenants.sibling.agentId));
    expect(third.response.status).toBe(400);
    expect(third.error?.issues).toEqual([{ path: 'parentId', message: 'client already has 2 geozones, the most allowed' }]);
  });

  it('answers a geozone too large to store with 400, never 500', async () => {
    const base = depotZoneBody(tenants.child.agentId);
    const tooManyVertices = await createZone(tokens.child, {
      ...base,
      geometry: { type: 'Polygon', coordinates: [ring(8_000, [37.6, 55.7]), ring(8_000, [37.6, 55.7]), ring(8_000, [37.6, 55.7])] },
    });
    expect(tooManyVertices.response.status).toBe(400);
    expect(tooManyVertices.error?.issues?.[0]).toEqual({ path: 'geometry', message: 'a geozone may have at most 20000 vertices' });
    const tooManyBytes = await createZone(tokens.child, {
      ...base,
      geometry: { type: 'MultiPolygon', coordinates: [[ring(9_000, [37.6, 55.7])], [ring(9_000, [37.7, 55.8])]] },
    });
    expect(tooManyBytes.response.status).toBe(400);
    expect(tooManyBytes.error?.issues?.[0]?.path).toBe('geometry');
    expect(tooManyBytes.error?.issues?.[0]?.message).toMatch(/at most 300000 bytes/);
  });

  it('limits API requests per client per minute, across sessions, without touching other clients', async () => {
    vi.stubEnv('LIMIT_API_REQUESTS_PER_CLIENT_PER_MINUTE', '5');
    try {
      clock.value = Math.ceil(clock.value / 60_000) * 60_000 + 60_000;
      const check = async (token: string) => (await api.GET('/api/v3/auth/check', { headers: session(token) })).response;
      const statuses = [];
      for (let index = 0; index < 3; index++) statuses.push((await check(tokens.root)).status, (await check(tokens.readOnly)).status);
      expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
      const refused = await check(tokens.root);
      expect(statuses[5]).toBe(429);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0);
      expect((await check(tokens.sibling)).status).toBe(200);
      clock.advance(60_000);
      expect((await check(tokens.root)).status).toBe(200);
    } finally {
      vi.stubEnv('LIMIT_API_REQUESTS_PER_CLIENT_PER_MINUTE', undefined);
    }
  });
});
