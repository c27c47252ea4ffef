import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { login, seedTenants, session, TestClock, typedApiClient, type JsonBody, type TypedApi } from './support';

/**
 * The on-call rotas resource over the typed client: create, find, get, replace, delete, overrides and who is on
 * call (across both 2027 daylight-saving changes in Europe/Berlin); the 400s that name their field; another
 * tenant's rota as 404; read-only users refused.
 */
// Wednesday 2027-03-24 12:00 UTC: the spring change comes on Sunday 2027-03-28
const clock = new TestClock(Date.parse('2027-03-24T12:00:00.000Z'));

describe('/api/v3/rotas', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let api: TypedApi;
  const tokens = { root: '', child: '', sibling: '', readOnly: '' };

  type CreateBody = JsonBody<'createRota'>;
  // some bodies are ones the API must refuse: the API checks them, not the compiler
  const create = (body: Partial<CreateBody> | Record<string, unknown>, token = tokens.root) =>
    api.POST('/api/v3/rotas', {
      headers: session(token),
      body: {
        parentId: tenants.root.agentId,
        name: 'Night dispatch',
        timezone: 'Europe/Berlin',
        participants: [tenants.root.userId, tenants.readOnly.userId],
        handoff: { every: 'day', at: '08:00' },
        ...body,
      } as CreateBody,
    });
  const onCall = (id: string, at?: string, token = tokens.root) =>
    api.GET('/api/v3/rotas/{id}/oncall', { headers: session(token), params: { path: { id }, query: at === undefined ? {} : { at } } });
  const paths = (result: { error?: { issues?: { path: string }[] } }) => (result.error?.issues ?? []).map((issue) => issue.path).sort();

  beforeAll(async () => {
    emulators = await startTestEmulators('api-rotas');
    tenants = await seedTenants('rotas');
    api = typedApiClient({ now: clock.now });
    for (const name of ['root', 'child', 'sibling', 'readOnly'] as const) tokens[name] = await login(api, tenants[name]);
  });
  afterAll(async () => emulators.stop());

  it('answers who is on call, handing over at 08:00 Berlin time across both 2027 daylight-saving changes', async () => {
    const created = await create({});
    expect(created.response.status).toBe(200);
    const id = created.data!.id;
    const [first, second] = [tenants.root.userId, tenants.readOnly.userId];

    // the first participant from the last handoff before the rota was made: Wednesday 08:00 CET
    const now = await onCall(id);
    expect(now.data).toEqual({
      userId: first,
      login: tenants.root.login,
      from: '2027-03-24T07:00:00.000Z',
      until: '2027-03-25T07:00:00.000Z',
      at: '2027-03-24T12:00:00.000Z',
    });
    // Saturday's shift ends at 08:00 CEST on Sunday, 06:00 UTC: 23 hours
    expect((await onCall(id, '2027-03-27T12:00:00Z')).data).toMatchObject({
      userId: second,
      from: '2027-03-27T07:00:00.000Z',
      until: '2027-03-28T06:00:00.000Z',
    });
    expect((await onCall(id, '2027-03-28T06:00:00Z')).data).toMatchObject({ userId: first, until: '2027-03-29T06:00:00.000Z' });
    // Saturday 2027-10-30's shift ends at 08:00 CET on Sunday, 07:00 UTC: 25 hours (220 days after the rota began: the first's turn again)
    expect((await onCall(id, '2027-10-30T12:00:00+02:00')).data).toMatchObject({
      userId: first,
      from: '2027-10-30T06:00:00.000Z',
      until: '2027-10-31T07:00:00.000Z',
    });
    expect((await onCall(id, '2027-10-31T07:00:00Z')).data).toMatchObject({ userId: second, from: '2027-10-31T07:00:00.000Z' });
  });

  it('lets an override win, and the rotation take over again once it is deleted', async () => {
    const id = (await create({ name: 'Override' })).data!.id;
    const covering = await api.POST('/api/v3/rotas/{id}/overrides', {
      headers: session(tokens.root),
      params: { path: { id } },
      body: { userId: tenants.child.userId, from: '2027-03-24T10:00:00Z', to: '2027-03-24T20:00:00Z' },
    });
    // a user of a client below the rota's cannot cover it: only users of its client or above
    expect(covering.response.status).toBe(400);
    expect(paths(covering)).toEqual(['userId']);

    const added = await api.POST('/api/v3/rotas/{id}/overrides', {
      headers: session(tokens.root),
      params: { path: { id } },
      body: { userId: tenants.readOnly.userId, from: '2027-03-24T10:00:00Z', to: '2027-03-24T20:00:00Z' },
    });
    expect(added.response.status).toBe(200);
    const overrideId = added.data!.id;
    expect((await onCall(id)).data).toEqual({
      userId: tenants.readOnly.userId,
      login: tenants.readOnly.login,
      from: '2027-03-24T10:00:00.000Z',
      until: '2027-03-24T20:00:00.000Z',
      overrideId,
      at: '2027-03-24T12:00:00.000Z',
    });
    expect((await onCall(id, '2027-03-24T21:00:00Z')).data).toMatchObject({ userId: tenants.root.userId, from: '2027-03-24T20:00:00.000Z' });
    const read = await api.GET('/api/v3/rotas/{id}', { headers: session(tokens.root), params: { path: { id } } });
    expect(read.data!.overrides.map((override) => override.id)).toEqual([overrideId]);

    const removed = await api.DELETE('/api/v3/rotas/{id}/overrides/{overrideId}', {
      headers: session(tokens.root),
      params: { path: { id, overrideId } },
    });
    expect(removed.response.status).toBe(200);
    expect((await onCall(id)).data).toMatchObject({ userId: tenants.root.userId, until: '2027-03-25T07:00:00.000Z' });
    const again = await api.DELETE('/api/v3/rotas/{id}/overrides/{overrideId}', {
      headers: session(tokens.root),
      params: { path: { id, overrideId } },
    });
    expect(again.response.status).toBe(404);
  });

  it('finds, replaces (starting the rotation again when it changes) and deletes', async () => {
    const id = (await create({ name: 'Weekly', handoff: { every: 'week', at: '09:00', weekday: 'Mon' } })).data!.id;
    const found = await api.POST('/api/v3/rotas/find', { headers: session(tokens.root), body: { parentId: tenants.root.agentId } });
    expect(found.data!.map((rota) => rota.name)).toContain('Weekly');
    expect(found.data!.find((rota) => rota.id === id)).toMatchObject({ handoff: { every: 'week', at: '09:00', weekday: 'Mon' }, version: 1 });

    const replace = (body: Record<string, unknown>) =>
      api.PUT('/api/v3/rotas/{id}', { headers: session(tokens.root), params: { path: { id } }, body: body as JsonBody<'replaceRota'> });
    const renamed = await replace({
      name: 'Weekly, renamed',
      timezone: 'Europe/Berlin',
      participants: [tenants.root.userId, tenants.readOnly.userId],
      handoff: { every: 'week', at: '09:00', weekday: 'Mon' },
    });
    expect(renamed.response.status).toBe(200);
    expect(renamed.data).toMatchObject({ name: 'Weekly, renamed', version: 2 });
    const swapped = await replace({
      name: 'Weekly, renamed',
      timezone: 'Europe/Berlin',
      participants: [tenants.readOnly.userId, tenants.root.userId],
      handoff: { every: 'week', at: '09:00', weekday: 'Mon' },
    });
    expect(swapped.data!.version).toBe(3);
    // the new first participant from the last handoff: Monday 2027-03-22 09:00 CET
    expect((await onCall(id)).data).toMatchObject({ userId: tenants.readOnly.userId, from: '2027-03-22T08:00:00.000Z' });

    const deleted = await api.DELETE('/api/v3/rotas/{id}', { headers: session(tokens.root), params: { path: { id } } });
    expect(deleted.response.status).toBe(200);
    expect((await api.GET('/api/v3/rotas/{id}', { headers: session(tokens.root), params: { path: { id } } })).response.status).toBe(404);
  });

  it("answers 404 for another tenant's rota, and 403 to a read-only user", async () => {
    const id = (await create({ name: 'Private' })).data!.id;
    expect((await api.GET('/api/v3/rotas/{id}', { headers: session(tokens.sibling), params: { path: { id } } })).response.status).toBe(404);
    expect((await onCall(id, undefined, tokens.sibling)).response.status).toBe(404);
    const foreignPut = await api.PUT('/api/v3/rotas/{id}', {
      headers: session(tokens.sibling),
      params: { path: { id } },
      body: { name: 'Mine', timezone: 'UTC', participants: [tenants.sibling.userId], handoff: { every: 'day', at: '08:00' } },
    });
    expect(foreignPut.response.status).toBe(404);
    expect((await api.DELETE('/api/v3/rotas/{id}', { headers: session(tokens.sibling), params: { path: { id } } })).response.status).toBe(404);
    const foreignOverride = await api.POST('/api/v3/rotas/{id}/overrides', {
      headers: session(tokens.sibling),
      params: { path: { id } },
      body: { userId: tenants.sibling.userId, from: '2027-03-24T10:00:00Z', to: '2027-03-24T20:00:00Z' },
    });
    expect(foreignOverride.response.status).toBe(404);
    expect((await create({ parentId: tenants.sibling.agentId })).response.status).toBe(404);
    const found = await api.POST('/api/v3/rotas/find', { headers: session(tokens.sibling), body: { parentId: tenants.root.agentId } });
    expect(found.response.status).toBe(404);
    expect((await create({}, tokens.readOnly)).response.status).toBe(403);
  });

  it('answers 400 naming each bad field, unknown ones too', async () => {
    const bad = await create({
      timezone: 'Mars/Olympus',
      participants: [tenants.sibling.userId, tenants.root.userId],
      handoff: { every: 'day', at: '25:00' },
      colour: 'red',
    });
    expect(bad.response.status).toBe(400);
    expect(paths(bad)).toEqual(['colour', 'handoff.at', 'timezone']);
    const foreignParticipant = await create({ participants: [tenants.root.userId, tenants.sibling.userId] });
    expect(paths(foreignParticipant)).toEqual(['participants.1']);
    const day = await create({ handoff: { every: 'day', at: '08:00', weekday: 'Mon' } });
    expect(paths(day)).toEqual(['handoff.weekday']);
    const id = (await create({ name: 'Bad queries' })).data!.id;
    const query = await api.GET('/api/v3/rotas/{id}/oncall', {
      headers: session(tokens.root),
      params: { path: { id }, query: { at: 'tomorrow', when: 'now' } as { at: string } },
    });
    expect(query.response.status).toBe(400);
    expect(paths(query).length).toBeGreaterThanOrEqual(2);
    const override = await api.POST('/api/v3/rotas/{id}/overrides', {
      headers: session(tokens.root),
      params: { path: { id } },
      body: { userId: tenants.root.userId, from: '2027-03-24T20:00:00Z', to: '2027-03-24T10:00:00Z' },
    });
    expect(paths(override)).toEqual(['to']);
  });
});
