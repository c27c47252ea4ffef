import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { apiClient, login, ruleBody, seedTenants, squareZone, type Api, type ApiRequest } from './support';

/**
 * Random and half-valid request bodies on every endpoint that takes one: whatever arrives, the answer is a
 * deliberate 2xx/4xx with a JSON body, never a 500.
 */
describe('request fuzzing', () => {
  let emulators: Emulators;
  let api: Api;
  let token: string;
  let valid: Record<string, Record<string, unknown>>;

  beforeAll(async () => {
    emulators = await startTestEmulators('api-fuzz');
    const tenants = await seedTenants('fuzz');
    api = apiClient();
    token = await login(api, tenants.root);
    const rule = (await api({ method: 'POST', path: '/api/v3/notifications', token, body: ruleBody(tenants.root.agentId) })).body;
    const zone = (await api({ method: 'POST', path: '/api/v3/gis', token, body: squareZone(tenants.root.agentId) })).body;
    valid = {
      'POST /api/v3/auth/login': { login: tenants.child.login, password: 'wrong' },
      'POST /api/v3/notifications/find': { parentId: tenants.root.agentId },
      'POST /api/v3/notifications': ruleBody(tenants.root.agentId),
      'PUT /api/v3/notifications': rule,
      'PUT /api/v3/notifications/prolongation': { ids: [rule.id], days: 3 },
      'POST /api/v3/notifications/history': { from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z', limit: 10 },
      'POST /api/v3/gis/find': { parentId: tenants.root.agentId },
      'POST /api/v3/gis': squareZone(tenants.root.agentId),
      'PUT /api/v3/gis': { ...squareZone(tenants.root.agentId), id: zone.id },
      'POST /api/v3/push/devices': { platform: 'fcm', token: 'device-token' },
    };
  });
  afterAll(async () => emulators.stop());

  const endpoint = () => fc.constantFrom(...Object.keys(valid));
  const toRequest = (key: string, body: unknown): ApiRequest => {
    const [method, path] = key.split(' ') as [ApiRequest['method'], string];
    return { method, path, token, body };
  };
  const expectHandled = async (request: ApiRequest) => {
    const response = await api(request);
    expect(response.status, JSON.stringify({ request: request.body, response: response.body })).toBeLessThan(500);
    expect(response.headers['Content-Type']).toBe('application/json');
  };

  it('never answers 500 to arbitrary JSON', async () => {
    await fc.assert(
      fc.asyncProperty(endpoint(), fc.jsonValue(), async (key, body) => expectHandled(toRequest(key, body))),
      { numRuns: 150 },
    );
  });

  it('never answers 500 to a valid body with one field replaced or added', async () => {
    await fc.assert(
      fc.asyncProperty(
        endpoint(),
        fc.string({ maxLength: 12 }),
        fc.oneof(fc.jsonValue(), fc.string(), fc.integer(), fc.double(), fc.constant(null), fc.array(fc.integer({ min: -5, max: 1e6 }))),
        fc.boolean(),
        async (key, extraKey, value, replaceExisting) => {
          const body = { ...valid[key]! };
          const keys = Object.keys(body);
          const field = replaceExisting && keys.length > 0 ? keys[Math.abs(extraKey.length * 7) % keys.length]! : extraKey;
          body[field] = value;
          await expectHandled(toRequest(key, body));
        },
      ),
      { numRuns: 250 },
    );
  });

  it('never answers 500 to raw text or odd paths', async () => {
    await fc.assert(
      fc.asyncProperty(endpoint(), fc.string({ maxLength: 200 }), async (key, text) => expectHandled(toRequest(key, text))),
      { numRuns: 60 },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('notifications', 'gis'), fc.string({ minLength: 1, maxLength: 20 }), async (resource, id) =>
        expectHandled({ method: 'GET', path: `/api/v3/${resource}/${encodeURIComponent(id)}`, token }),
      ),
      { numRuns: 60 },
    );
  });
});
