import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { silenceSchema } from '../../shared/api/silence-schemas';
import { startTestEmulators } from '../support/emulators';
import {
  apiClient,
  login,
  ruleBody,
  seedTenants,
  session,
  depotZoneBody,
  TestClock,
  typedApiClient,
  type Api,
  type JsonBody,
  type TypedApi,
} from './support';

/**
 * The maintenance silences resource over the typed client: create, find, get, end and delete; the 400s that name
 * their field; another tenant's silence as 404; read-only users refused; the per-client limit.
 */
const clock = new TestClock();
const HOUR = 3_600_000;
const at = (ms: number) => new Date(clock.value + ms).toISOString();

describe('/api/v3/silences', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let api: TypedApi;
  let raw: Api;
  const tokens = { root: '', child: '', sibling: '', readOnly: '' };
  let rootRule = 0;
  let siblingRule = 0;
  let zone = 0;

  type CreateBody = JsonBody<'createSilence'>;
  // some bodies are ones the API must refuse: the API checks them, not the compiler
  const create = (body: Partial<CreateBody> | Record<string, unknown>, token = tokens.root) =>
    api.POST('/api/v3/silences', {
      headers: session(token),
      body: { parentId: tenants.root.agentId, from: at(0), to: at(2 * HOUR), reason: 'workshop', ...body } as CreateBody,
    });
  const paths = (result: { error?: { issues?: { path: string }[] } }) => (result.error?.issues ?? []).map((issue) => issue.path).sort();

  beforeAll(async () => {
    emulators = await startTestEmulators('api-silences');
    tenants = await seedTenants('silences');
    api = typedApiClient({ now: clock.now });
    raw = apiClient({ now: clock.now });
    for (const name of ['root', 'child', 'sibling', 'readOnly'] as const) tokens[name] = await login(api, tenants[name]);
    const rule = async (token: string, body: object) => {
      const { data, response } = await api.POST('/api/v3/notifications', {
        headers: session(token),
        body: body as JsonBody<'createNotificationRule'>,
      });
      expect(response.status).toBe(200);
      return data!.id;
    };
    rootRule = await rule(tokens.root, ruleBody(tenants.root.agentId));
    siblingRule = await rule(tokens.sibling, ruleBody(tenants.sibling.agentId, { vehicleIds: [202] }));
    const created = await api.POST('/api/v3/gis', {
      headers: session(tokens.root),
      body: depotZoneBody(tenants.root.agentId) as JsonBody<'createGeozone'>,
    });
    zone = created.data!.id;
  });
  afterAll(async () => emulators.stop());

  it('creates, finds, reads, ends and deletes a silence', async () => {
    const created = await create({
      vehicleIds: [101],
      ruleIds: [rootRule],
      geozoneIds: [zone],
      schedule: 'sun 8:00-18:00',
      timezone: 'Europe/Berlin',
    });
    expect(created.response.status, JSON.stringify(created.error)).toBe(200);
    const { id } = created.data!;
    expect(id.startsWith(`${tenants.root.agentId}.`)).toBe(true);

    const read = await api.GET('/api/v3/silences/{id}', { headers: session(tokens.root), params: { path: { id } } });
    expect(read.response.status).toBe(200);
    expect(silenceSchema.parse(read.data)).toMatchObject({
      id,
      parentId: tenants.root.agentId,
      vehicleIds: [101],
      ruleIds: [rootRule],
      geozoneIds: [zone],
      schedule: 'Sun 08:00-18:00',
      timezone: 'Europe/Berlin',
      createdBy: tenants.root.login,
      via: 'api',
      endedAt: null,
    });
    // the clock is Sunday 08:00 UTC, 09:00 in Berlin: inside the window
    expect(read.data!.active).toBe(true);

    const found = await api.POST('/api/v3/silences/find', { headers: session(tokens.root), body: { parentId: tenants.root.agentId } });
    expect(found.data!.map((silence) => silence.id)).toContain(id);
    const monday = await api.POST('/api/v3/silences/find', {
      headers: session(tokens.root),
      body: { parentId: tenants.root.agentId, activeAt: at(24 * HOUR) },
    });
    expect(monday.data!.map((silence) => silence.id)).not.toContain(id);
    // a child's silence is found from the root's client, never the other way round
    const child = await create({ parentId: tenants.child.agentId, vehicleIds: [303] }, tokens.child);
    expect(child.response.status).toBe(200);
    const fromRoot = await api.POST('/api/v3/silences/find', { headers: session(tokens.root), body: { parentId: tenants.root.agentId } });
    expect(fromRoot.data!.map((silence) => silence.id)).toContain(child.data!.id);
    const fromChild = await api.POST('/api/v3/silences/find', { headers: session(tokens.child), body: { parentId: tenants.child.agentId } });
    expect(fromChild.data!.map((silence) => silence.id)).toEqual([child.data!.id]);

    clock.advance(20 * 60_000);
    const ended = await api.POST('/api/v3/silences/{id}/end', { headers: session(tokens.root), params: { path: { id } } });
    expect(ended.response.status).toBe(200);
    expect(ended.data).toMatchObject({ endedAt: new Date(clock.value).toISOString(), endedBy: tenants.root.login, active: false });
    const again = await api.POST('/api/v3/silences/{id}/end', { headers: session(tokens.root), params: { path: { id } } });
    expect(again.data!.endedAt).toBe(ended.data!.endedAt);

    const deleted = await api.DELETE('/api/v3/silences/{id}', { headers: session(tokens.root), params: { path: { id } } });
    expect(deleted.response.status).toBe(200);
    const gone = await api.GET('/api/v3/silences/{id}', { headers: session(tokens.root), params: { path: { id } } });
    expect(gone.response.status).toBe(404);
    const twice = await api.DELETE('/api/v3/silences/{id}', { headers: session(tokens.root), params: { path: { id } } });
    expect(twice.response.status).toBe(404);
  });

  it('answers 400 naming each field', async () => {
    expect(paths(await create({}))).toEqual(['vehicleIds']);
    expect(paths(await create({ vehicleIds: [101], from: at(HOUR), to: at(HOUR) }))).toEqual(['to']);
    expect(paths(await create({ vehicleIds: [101], to: at(91 * 24 * HOUR) }))).toEqual(['to']);
    expect(paths(await create({ vehicleIds: [101], from: at(-3 * HOUR), to: at(-HOUR) }))).toEqual(['to']);
    expect(paths(await create({ vehicleIds: [101], schedule: 'Sundays' }))).toEqual(['schedule']);
    expect(paths(await create({ vehicleIds: [101], reason: '' }))).toEqual(['reason']);
    // matchers of the caller's own client only: another tenant's vehicle, rule and zone, and unknown ids alike
    expect(paths(await create({ vehicleIds: [101, 202, 999_999], ruleIds: [siblingRule, rootRule], geozoneIds: [zone, 424_242] }))).toEqual([
      'geozoneIds.1',
      'ruleIds.0',
      'vehicleIds.1',
      'vehicleIds.2',
    ]);
    // a child's silence may not name its parent's vehicle or rule: it would hold back nothing
    expect(paths(await create({ parentId: tenants.child.agentId, vehicleIds: [101], ruleIds: [rootRule] }, tokens.child))).toEqual([
      'ruleIds.0',
      'vehicleIds.0',
    ]);
    // unknown fields: sent raw, since the typed client cannot express them
    const unknown = await raw({
      method: 'POST',
      path: '/api/v3/silences',
      token: tokens.root,
      body: { parentId: tenants.root.agentId, vehicleIds: [101], from: at(0), to: at(HOUR), reason: 'x', vehicleIDs: [101] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.issues.map((issue: { path: string }) => issue.path)).toEqual(['vehicleIDs']);
    const badId = await raw({ method: 'GET', path: '/api/v3/silences/not-an-id', token: tokens.root });
    expect(badId.status).toBe(400);
  });

  it("answers 404 for another tenant's silence and client, and 403 to a read-only user", async () => {
    const sibling = await create({ parentId: tenants.sibling.agentId, vehicleIds: [202] }, tokens.sibling);
    expect(sibling.response.status).toBe(200);
    const id = sibling.data!.id;
    const options = { headers: session(tokens.root), params: { path: { id } } };
    expect((await api.GET('/api/v3/silences/{id}', options)).response.status).toBe(404);
    expect((await api.POST('/api/v3/silences/{id}/end', options)).response.status).toBe(404);
    expect((await api.DELETE('/api/v3/silences/{id}', options)).response.status).toBe(404);
    expect((await create({ parentId: tenants.sibling.agentId, vehicleIds: [202] })).response.status).toBe(404);
    expect(
      (await api.POST('/api/v3/silences/find', { headers: session(tokens.root), body: { parentId: tenants.sibling.agentId } })).response.status,
    ).toBe(404);
    // the sibling's silence is still there, untouched
    const own = await api.GET('/api/v3/silences/{id}', { headers: session(tokens.sibling), params: { path: { id } } });
    expect(own.data?.endedAt).toBeNull();

    expect((await create({ vehicleIds: [101] }, tokens.readOnly)).response.status).toBe(403);
    const mine = await create({ vehicleIds: [101] });
    const mineOptions = { headers: session(tokens.readOnly), params: { path: { id: mine.data!.id } } };
    expect((await api.GET('/api/v3/silences/{id}', mineOptions)).response.status).toBe(200);
    expect((await api.POST('/api/v3/silences/{id}/end', mineOptions)).response.status).toBe(403);
    expect((await api.DELETE('/api/v3/silences/{id}', mineOptions)).response.status).toBe(403);
  });

  it('holds a client to its limit of silences, and frees a place on delete', async () => {
    vi.stubEnv('LIMIT_SILENCES_PER_CLIENT', '3');
    try {
      const existing = await api.POST('/api/v3/silences/find', { headers: session(tokens.child), body: { parentId: tenants.child.agentId } });
      const room = 3 - existing.data!.length;
      const made = [];
      for (let index = 0; index < room; index++) made.push(await create({ parentId: tenants.child.agentId, vehicleIds: [303] }, tokens.child));
      expect(made.map((result) => result.response.status)).toEqual(made.map(() => 200));
      const over = await create({ parentId: tenants.child.agentId, vehicleIds: [303] }, tokens.child);
      expect(over.response.status).toBe(400);
      expect(paths(over)).toEqual(['parentId']);
      // the root client has its own count
      expect((await create({ vehicleIds: [101] })).response.status).toBe(200);
      const id = (existing.data![0] ?? made[0]!.data)!.id;
      expect((await api.DELETE('/api/v3/silences/{id}', { headers: session(tokens.child), params: { path: { id } } })).response.status).toBe(200);
      expect((await create({ parentId: tenants.child.agentId, vehicleIds: [303] }, tokens.child)).response.status).toBe(200);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
