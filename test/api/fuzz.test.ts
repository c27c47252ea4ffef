import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type * as z from 'zod';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { apiRoutes } from '../../shared/api/routes';
import { apiClient, login, ruleBody, seedTenants, squareZone, type Api, type ApiRequest } from './support';

/** Every endpoint, with a path parameter turned into `{}` for the fuzzer to fill. */
const routeKeys = apiRoutes.map((route) => `${route.method} ${route.path}`);

/**
 * Random and half-valid requests on every endpoint: bodies, path parameters and raw text. Whatever arrives,
 * the answer is a deliberate 2xx/4xx (JSON, or a page for the e-mail links), never a 500.
 */
describe('request fuzzing', () => {
  let emulators: Emulators;
  let api: Api;
  let token: string;
  let valid: Record<string, Record<string, unknown>>;

  let pathValues: Record<string, string>;

  beforeAll(async () => {
    // the fuzzer sends far more than a client's per-minute allowance; that limit has its own test
    process.env.LIMIT_API_REQUESTS_PER_CLIENT_PER_MINUTE = '1000000';
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
      'POST /api/v3/notifications/preview': {
        rule: ruleBody(tenants.root.agentId),
        messages: [{ vehicleId: 101, deviceTime: '2026-01-01T00:00:00Z', latitude: 55.7, longitude: 37.6, speed: 120 }],
      },
      'POST /api/v3/notifications/history': { from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z', limit: 10 },
      'POST /api/v3/gis/find': { parentId: tenants.root.agentId },
      'POST /api/v3/gis': squareZone(tenants.root.agentId),
      'PUT /api/v3/gis': { ...squareZone(tenants.root.agentId), id: zone.id },
      'POST /api/v3/push/devices': { platform: 'fcm', token: 'device-token' },
      'POST /api/v3/webhooks': { url: 'https://hooks.fuzz.example.com/alerts', description: 'fuzz' },
      'POST /api/v3/webhooks/find': { parentId: tenants.root.agentId },
      'POST /api/v3/gis/intersections/vehicles': { startDate: '2026-01-01T00:00:00Z', endDate: '2026-01-02T00:00:00Z', ids: [101], byTime: 60 },
      'POST /api/v3/agents/find': { parentId: null },
      'POST /api/v3/users/find': { login: tenants.child.login },
      'POST /api/v3/users': { login: 'fuzz-new-user', password: 'long enough password', email: 'new@fuzz.example.com' },
      'PUT /api/v3/users': { id: tenants.child.userId, parentId: tenants.child.agentId, firstName: 'Fuzzed' },
      'POST /api/v3/vehicles/find': { name: 'truck' },
      'POST /api/v3/vehicles': { vehicleId: 101, name: 'Truck 101' },
      'PUT /api/v3/vehicles': { vehicleId: 101, name: 'Truck 101', parentId: tenants.root.agentId },
      'POST /api/v3/gis/intersections/geozones': {
        startDate: '2026-01-01T00:00:00Z',
        endDate: '2026-01-02T00:00:00Z',
        ids: [zone.id],
        filterByHalfPerimeter: true,
      },
    };
    pathValues = { id: String(rule.id), token: `1.${Buffer.from('a@b.test').toString('base64url')}.secretpart` };
  });
  afterAll(async () => {
    delete process.env.LIMIT_API_REQUESTS_PER_CLIENT_PER_MINUTE;
    await emulators.stop();
  });

  it('covers every route of the API', () => {
    const withBody = apiRoutes.filter((route) => route.body).map((route) => `${route.method} ${route.path}`);
    expect(Object.keys(valid).sort()).toEqual(withBody.sort());
    expect(routeKeys.length).toBeGreaterThan(withBody.length);
  });

  it('never answers 500 to any route with random path parameters and bodies, with or without a session', async () => {
    const fill = (path: string, value: string) => path.replace(/\{[a-z]+\}/g, value);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routeKeys),
        fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.constantFrom(...Object.values(pathValues)), fc.integer().map(String)),
        fc.oneof(fc.constant(undefined), fc.jsonValue(), fc.string({ maxLength: 100 })),
        fc.boolean(),
        async (key, value, body, withSession) => {
          const [method, path] = key.split(' ') as [ApiRequest['method'], string];
          const response = await api({ method, path: fill(path, encodeURIComponent(value)), body, token: withSession ? token : undefined });
          expect(response.status, JSON.stringify({ key, value, body, response: response.body })).toBeLessThan(500);
        },
      ),
      { numRuns: 300 },
    );
  });

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

  it('refuses any field added to a valid body that the body does not define, naming it', async () => {
    const knownFields = (key: string) => {
      const route = apiRoutes.find((candidate) => `${candidate.method} ${candidate.path}` === key)!;
      return new Set(Object.keys((route.body as z.ZodObject).shape));
    };
    await fc.assert(
      fc.asyncProperty(
        endpoint(),
        // the JSON body parser refuses __proto__ and friends itself, at any depth (400, tested apart)
        fc.string({ minLength: 1, maxLength: 12 }).filter((name) => !['__proto__', 'constructor', 'prototype'].includes(name)),
        fc.jsonValue().filter((value) => !/"(__proto__|constructor|prototype)":/.test(JSON.stringify(value))),
        async (key, extraKey, value) => {
          fc.pre(!knownFields(key).has(extraKey));
          const response = await api(toRequest(key, { ...valid[key]!, [extraKey]: value }));
          expect(response.status, JSON.stringify({ key, extraKey, response: response.body })).toBe(400);
          expect(response.body.issues, key).toContainEqual({ path: extraKey, message: expect.stringMatching(/^unknown field/) });
        },
      ),
      { numRuns: 80 },
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
