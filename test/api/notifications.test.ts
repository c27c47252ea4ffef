import { issueLinkCode, redeemLinkCode } from '../../shared/store/telegram-links';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../shared/rules/lifecycle';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { TestClock, login, ruleBody, seedTenants, session, depotZoneBody, typedApiClient, type JsonBody, type TypedApi } from './support';

describe('notification rules', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  const clock = new TestClock();
  let api: TypedApi;
  const tokens = { root: '', child: '', sibling: '', readOnly: '' };

  // the rule bodies come from ruleBody, whose overrides include bodies the API must refuse: the API checks them, not the compiler
  const create = (token: string, body: object) =>
    api.POST('/api/v3/notifications', { headers: session(token), body: body as JsonBody<'createNotificationRule'> });
  const replace = (token: string, body: object, headers: Record<string, string> = {}) =>
    api.PUT('/api/v3/notifications', { headers: { ...session(token), ...headers }, body: body as JsonBody<'replaceNotificationRule'> });
  const get = (token: string, id: number) => api.GET('/api/v3/notifications/{id}', { headers: session(token), params: { path: { id } } });
  const remove = (token: string, id: number, headers: Record<string, string> = {}) =>
    api.DELETE('/api/v3/notifications/{id}', { headers: { ...session(token), ...headers }, params: { path: { id } } });
  const prolong = (token: string, body: JsonBody<'prolongNotificationRules'>) =>
    api.PUT('/api/v3/notifications/prolongation', { headers: session(token), body });
  const find = (token: string, parentId: string) => api.POST('/api/v3/notifications/find', { headers: session(token), body: { parentId } });
  const zoneBody = (zone: object) => zone as JsonBody<'createGeozone'>;

  const loginAll = async () => {
    for (const name of ['root', 'child', 'sibling', 'readOnly'] as const) tokens[name] = await login(api, tenants[name]);
  };

  beforeAll(async () => {
    emulators = await startTestEmulators('api-notifications');
    tenants = await seedTenants('rules');
    api = typedApiClient({ now: clock.now });
    await loginAll();
  });
  afterAll(async () => emulators.stop());

  describe('create', () => {
    it('stores the rule under a new id, fills defaults, starts its validity', async () => {
      const { data, response } = await create(tokens.root, ruleBody(tenants.root.agentId));
      expect(response.status).toBe(200);
      expect(data).toMatchObject({
        id: expect.any(Number),
        type: 2,
        parentId: tenants.root.agentId,
        parentName: 'rules Root Logistics',
        userId: tenants.root.userId,
        name: 'Speeding on the highway',
        geoids: [],
        telegrams: [],
        toEmail: false,
        timezone: 3,
        activationMode: 0,
        version: 1,
        expiresAt: new Date(clock.value + 30 * DAY_MS).toISOString(),
      });
      expect(response.headers.get('ETag')).toBe('"1"');
      const second = await create(tokens.root, ruleBody(tenants.root.agentId, { name: 'second' }));
      expect(second.data?.id).toBe(data!.id + 1);
    });

    it('starts the validity of a deferred rule at its activation time', async () => {
      const activationTime = new Date(clock.value + 2 * DAY_MS).toISOString();
      const { data, response } = await create(tokens.root, ruleBody(tenants.root.agentId, { activationMode: 1, activationTime, validity: 10 }));
      expect(response.status).toBe(200);
      expect(data?.expiresAt).toBe(new Date(clock.value + 12 * DAY_MS).toISOString());
    });

    it('answers 400 listing each schema violation', async () => {
      const { error, response } = await create(tokens.root, {
        ...ruleBody(tenants.root.agentId),
        type: 3,
        name: '',
        validity: 91,
        sideEmails: ['not-an-address'],
      });
      expect(response.status).toBe(400);
      expect(error?.error).toBe('ValidationError');
      expect(error?.issues?.map((issue) => issue.path).sort()).toEqual(['name', 'sideEmails.0', 'type', 'validity']);
    });

    it('answers 400 for a deferred activation without a time, and for references outside the scope', async () => {
      const siblingZone = await api.POST('/api/v3/gis', { headers: session(tokens.sibling), body: zoneBody(depotZoneBody(tenants.sibling.agentId)) });
      expect(siblingZone.response.status).toBe(200);
      const { error, response } = await create(
        tokens.root,
        ruleBody(tenants.root.agentId, {
          activationMode: 1,
          vehicleIds: [101, 202, 999],
          geoids: [siblingZone.data!.id, 424242],
          recipientIds: [tenants.sibling.userId, tenants.child.userId],
        }),
      );
      expect(response.status).toBe(400);
      expect(error?.issues?.map((issue) => issue.path).sort()).toEqual([
        'activationTime',
        'geoids.0',
        'geoids.1',
        'recipientIds.0',
        'vehicleIds.1',
        'vehicleIds.2',
      ]);
      expect(error?.issues?.find((issue) => issue.path === 'geoids.0')?.message).toBe(
        error?.issues?.find((issue) => issue.path === 'geoids.1')?.message.replace('424242', String(siblingZone.data!.id)),
      );
    });

    it('refuses vehicles the directory does not know, with the message a foreign vehicle gets; accepts geozones of the scope', async () => {
      const zone = await api.POST('/api/v3/gis', { headers: session(tokens.child), body: zoneBody(depotZoneBody(tenants.child.agentId)) });
      const refused = await create(
        tokens.root,
        ruleBody(tenants.root.agentId, { type: 0, settings: {}, vehicleIds: [101, 999, 202], geoids: [zone.data!.id] }),
      );
      expect(refused.response.status).toBe(400);
      expect(refused.error?.issues).toEqual([
        { path: 'vehicleIds.1', message: 'no vehicle 999 in your scope' },
        { path: 'vehicleIds.2', message: 'no vehicle 202 in your scope' },
      ]);
      const { data, response } = await create(
        tokens.root,
        ruleBody(tenants.root.agentId, { type: 0, settings: {}, vehicleIds: [101, 303], geoids: [zone.data!.id] }),
      );
      expect(response.status).toBe(200);
      expect(data?.geoids).toEqual([zone.data!.id]);
    });

    it('answers 404 for a client outside the scope, 403 for a read-only user', async () => {
      expect((await create(tokens.root, ruleBody(tenants.sibling.agentId))).response.status).toBe(404);
      expect((await create(tokens.child, ruleBody(tenants.root.agentId))).response.status).toBe(404);
      const readOnly = await create(tokens.readOnly, ruleBody(tenants.root.agentId));
      expect(readOnly.response.status).toBe(403);
      expect(readOnly.error?.message).toMatch(/read-only/);
    });
  });

  describe('read and find', () => {
    let rootRule: number;
    let childRule: number;
    beforeAll(async () => {
      rootRule = (await create(tokens.root, ruleBody(tenants.root.agentId, { name: 'root rule' }))).data!.id;
      childRule = (await create(tokens.child, ruleBody(tenants.child.agentId, { name: 'child rule', vehicleIds: [303] }))).data!.id;
    });

    it('reads a rule with every field', async () => {
      const { data, response } = await get(tokens.readOnly, rootRule);
      expect(response.status).toBe(200);
      expect(Object.keys(data!).sort()).toEqual(
        [
          'activationMode',
          'activationTime',
          'active',
          'autoProlongation',
          'enableSideEmails',
          'expiresAt',
          'fieldids',
          'geoids',
          'id',
          'kind',
          'name',
          'parentId',
          'parentName',
          'recipientIds',
          'settings',
          'sideEmails',
          'stored',
          'telegramLocation',
          'telegrams',
          'timezone',
          'toClient',
          'toEmail',
          'toMobile',
          'toSms',
          'toTelegram',
          'type',
          'userId',
          'validity',
          'vehicleIds',
          'version',
        ].sort(),
      );
    });

    it('answers 404 for an unknown id and 400 for an id that is no number', async () => {
      expect((await get(tokens.root, 999999)).response.status).toBe(404);
      const bad = await api.GET('/api/v3/notifications/{id}', {
        headers: session(tokens.root),
        // @ts-expect-error an id that is no number, on purpose
        params: { path: { id: 'abc' } },
      });
      expect(bad.response.status).toBe(400);
      expect(bad.error?.issues?.[0]?.path).toBe('id');
    });

    it('finds the rules of a client and of the clients below it', async () => {
      const fromRoot = await find(tokens.root, tenants.root.agentId);
      expect(fromRoot.response.status).toBe(200);
      const ids = fromRoot.data?.map((rule) => rule.id);
      expect(ids).toEqual(expect.arrayContaining([rootRule, childRule]));
      expect(fromRoot.data?.find((rule) => rule.id === childRule)).toEqual({
        id: childRule,
        name: 'child rule',
        active: true,
        type: 2,
        userId: tenants.child.userId,
        parentId: tenants.child.agentId,
        parentName: 'rules Child Depot',
      });
      const fromChild = await find(tokens.child, tenants.child.agentId);
      expect(fromChild.data?.map((rule) => rule.id)).toContain(childRule);
      expect(fromChild.data?.map((rule) => rule.id)).not.toContain(rootRule);
    });

    it('answers 404 when finding below a client outside the scope, 400 for a bad parentId', async () => {
      expect((await find(tokens.child, tenants.root.agentId)).response.status).toBe(404);
      expect((await find(tokens.sibling, tenants.root.agentId)).response.status).toBe(404);
      expect((await find(tokens.root, 'nope')).response.status).toBe(400);
    });
  });

  describe('replace', () => {
    it('replaces the whole record: a field not sent is reset, the version moves on', async () => {
      await redeemLinkCode((await issueLinkCode(tenants.root.userId, clock.value)).code, { chatId: '5', username: 'ops' }, clock.value);
      const created = (await create(tokens.root, ruleBody(tenants.root.agentId, { toTelegram: true, telegrams: [{ id: 5, info: 'ops chat' }] })))
        .data!;
      const { telegrams: _telegrams, toTelegram: _toTelegram, ...rest } = created;
      const { data, response } = await replace(tokens.root, { ...rest, name: 'renamed', validity: 60 });
      expect(response.status).toBe(200);
      expect(data).toBe('Success');
      expect(response.headers.get('ETag')).toBe('"2"');
      const read = await get(tokens.root, created.id);
      expect(read.data).toMatchObject({ name: 'renamed', telegrams: [], toTelegram: false, version: 2, validity: 60 });
      expect(read.data?.expiresAt).toBe(new Date(Date.parse(created.expiresAt) + 30 * DAY_MS).toISOString());
    });

    it('answers 409 for a stale version in the body or in If-Match', async () => {
      const created = (await create(tokens.root, ruleBody(tenants.root.agentId))).data!;
      const first = await replace(tokens.root, { ...created, name: 'one' });
      expect(first.response.status).toBe(200);
      const stale = await replace(tokens.root, { ...created, name: 'two' });
      expect(stale.response.status).toBe(409);
      const { version: _version, ...withoutVersion } = created;
      const staleHeader = await replace(tokens.root, withoutVersion, { 'If-Match': '"1"' });
      expect(staleHeader.response.status).toBe(409);
      const current = await replace(tokens.root, withoutVersion, { 'If-Match': '"2"' });
      expect(current.response.status).toBe(200);
      const unconditional = await replace(tokens.root, withoutVersion);
      expect(unconditional.response.status).toBe(200);
    });

    it('lets exactly one of two concurrent replaces of the same version win', async () => {
      const created = (await create(tokens.root, ruleBody(tenants.root.agentId))).data!;
      const [first, second] = await Promise.all([
        replace(tokens.root, { ...created, name: 'first' }),
        replace(tokens.root, { ...created, name: 'second' }),
      ]);
      expect([first.response.status, second.response.status].sort()).toEqual([200, 409]);
      const winner = first.response.status === 200 ? 'first' : 'second';
      expect((await get(tokens.root, created.id)).data).toMatchObject({
        name: winner,
        version: 2,
      });
    });

    it('restarts the validity from now when an expired rule is made active again', async () => {
      const created = (await create(tokens.root, ruleBody(tenants.root.agentId, { validity: 1, active: false }))).data!;
      clock.advance(3 * DAY_MS);
      await loginAll();
      const { response } = await replace(tokens.root, { ...created, active: true });
      expect(response.status).toBe(200);
      const read = await get(tokens.root, created.id);
      expect(read.data?.expiresAt).toBe(new Date(clock.value + DAY_MS).toISOString());
    });

    it('answers 404 for unknown ids and foreign clients, 403 for read-only users, 400 for bad bodies', async () => {
      const created = (await create(tokens.root, ruleBody(tenants.root.agentId))).data!;
      expect((await replace(tokens.root, { ...created, id: 999999 })).response.status).toBe(404);
      expect((await replace(tokens.root, { ...created, parentId: tenants.sibling.agentId })).response.status).toBe(404);
      expect((await replace(tokens.readOnly, created)).response.status).toBe(403);
      const bad = await replace(tokens.root, { ...created, id: 'x', timezone: 'Mars/Olympus' });
      expect(bad.response.status).toBe(400);
      expect(bad.error?.issues?.map((issue) => issue.path).sort()).toEqual(['id', 'timezone']);
    });
  });

  describe('delete', () => {
    it('deletes, then answers 404', async () => {
      const created = (await create(tokens.root, ruleBody(tenants.root.agentId))).data!;
      const { data, response } = await remove(tokens.root, created.id);
      expect(response.status).toBe(200);
      expect(data).toBe('Success');
      expect((await get(tokens.root, created.id)).response.status).toBe(404);
      expect((await remove(tokens.root, created.id)).response.status).toBe(404);
    });

    it('answers 409 for a stale If-Match and 403 for read-only users', async () => {
      const created = (await create(tokens.root, ruleBody(tenants.root.agentId))).data!;
      expect((await remove(tokens.root, created.id, { 'If-Match': '"7"' })).response.status).toBe(409);
      expect((await remove(tokens.readOnly, created.id)).response.status).toBe(403);
      expect((await remove(tokens.root, created.id, { 'If-Match': '"1"' })).response.status).toBe(200);
    });
  });

  describe('prolongation', () => {
    it('adds days to the expiry, by default the validity, never beyond 90 days ahead', async () => {
      const a = (await create(tokens.root, ruleBody(tenants.root.agentId, { validity: 10 }))).data!;
      const b = (await create(tokens.root, ruleBody(tenants.root.agentId, { validity: 80 }))).data!;
      const explicit = await prolong(tokens.root, { ids: [a.id], days: 5 });
      expect(explicit.response.status).toBe(200);
      expect(explicit.data).toEqual([{ id: a.id, expiresAt: new Date(clock.value + 15 * DAY_MS).toISOString(), clamped: false }]);
      const byDefault = await prolong(tokens.root, { ids: [a.id, b.id] });
      expect(byDefault.data).toEqual([
        { id: a.id, expiresAt: new Date(clock.value + 25 * DAY_MS).toISOString(), clamped: false },
        { id: b.id, expiresAt: new Date(clock.value + 90 * DAY_MS).toISOString(), clamped: true },
      ]);
      const read = await get(tokens.root, a.id);
      expect(read.data).toMatchObject({ expiresAt: byDefault.data?.[0]?.expiresAt, version: 3 });
    });

    it('prolongs all or none: 404 when one id is unknown or foreign, 400 for bad days, 403 for read-only', async () => {
      const a = (await create(tokens.root, ruleBody(tenants.root.agentId))).data!;
      const foreign = (await create(tokens.sibling, ruleBody(tenants.sibling.agentId, { vehicleIds: [202] }))).data!;
      const unknown = await prolong(tokens.root, { ids: [a.id, 999999] });
      expect(unknown.response.status).toBe(404);
      expect((await prolong(tokens.root, { ids: [a.id, foreign.id] })).response.status).toBe(404);
      expect((await get(tokens.root, a.id)).data?.expiresAt).toBe(a.expiresAt);
      const bad = await prolong(tokens.root, { ids: [a.id, a.id], days: 91 });
      expect(bad.response.status).toBe(400);
      expect(bad.error?.issues?.map((issue) => issue.path).sort()).toEqual(['days', 'ids']);
      expect((await prolong(tokens.readOnly, { ids: [a.id] })).response.status).toBe(403);
    });
  });

  describe('values mean one thing', () => {
    const read = async (id: number) => (await get(tokens.root, id)).data!;

    it('makes a rule created without `active` active', async () => {
      const { active: _active, ...withoutActive } = ruleBody(tenants.root.agentId);
      const created = await create(tokens.root, withoutActive);
      expect(created.response.status).toBe(200);
      expect(created.data?.active).toBe(true);
      expect((await read(created.data!.id)).active).toBe(true);
    });

    it('stores and answers an activationTime sent with an offset in UTC', async () => {
      const local = '2026-03-05T11:30:00+03:00';
      const created = await create(tokens.root, ruleBody(tenants.root.agentId, { activationMode: 1, activationTime: local }));
      expect(created.response.status).toBe(200);
      expect(created.data?.activationTime).toBe('2026-03-05T08:30:00.000Z');
      expect((await read(created.data!.id)).activationTime).toBe('2026-03-05T08:30:00.000Z');
    });

    it('answers 400 naming activationTime for a time whose validity would end past year 9999, on create and replace', async () => {
      const refused = ({ response, error }: { response: Response; error?: { issues?: { path: string }[] } }) => {
        expect(response.status).toBe(400);
        expect(error?.issues?.map((issue) => issue.path)).toEqual(['activationTime']);
      };
      const created = (await create(tokens.root, ruleBody(tenants.root.agentId))).data!;
      const { expiresAt: _expiresAt, version: _version, ...record } = created;
      for (const activationTime of ['9999-12-31T00:00:00Z', '9999-12-31T23:59:59-14:00', '9999-10-15T00:00:00Z']) {
        refused(await create(tokens.root, ruleBody(tenants.root.agentId, { activationMode: 1, activationTime, validity: 90 })));
        refused(await replace(tokens.root, { ...record, activationMode: 1, activationTime, validity: 90 }));
      }
      // the latest accepted time still ends within year 9999
      const latest = await create(
        tokens.root,
        ruleBody(tenants.root.agentId, { activationMode: 1, activationTime: '9999-09-30T23:59:59Z', validity: 90 }),
      );
      expect(latest.response.status).toBe(200);
      expect(latest.data?.expiresAt).toBe('9999-12-29T23:59:59.000Z');
    });

    it('answers 400 naming activationTime for a time that an offset carries before year 0, on create and replace', async () => {
      // valid ISO 8601 as sent; in UTC it is year -1, which the stored record's schema refuses
      const activationTime = '0000-01-01T00:00:00+01:00';
      const created = (await create(tokens.root, ruleBody(tenants.root.agentId))).data!;
      const { expiresAt: _expiresAt, version: _version, ...record } = created;
      for (const { response, error } of [
        await create(tokens.root, ruleBody(tenants.root.agentId, { activationMode: 1, activationTime })),
        await replace(tokens.root, { ...record, activationMode: 1, activationTime }),
      ]) {
        expect(response.status).toBe(400);
        expect(error?.issues?.map((issue) => issue.path)).toEqual(['activationTime']);
      }
    });

    it('answers a Telegram chat id in the JSON type it was sent in', async () => {
      for (const chatId of ['-1001234567890', '@fleet_ops']) {
        await redeemLinkCode((await issueLinkCode(tenants.root.userId, clock.value)).code, { chatId, username: 'ops' }, clock.value);
      }
      const created = await create(
        tokens.root,
        ruleBody(tenants.root.agentId, { toTelegram: true, telegrams: [{ id: -1001234567890, info: 'ops' }, { id: '@fleet_ops' }] }),
      );
      expect(created.response.status).toBe(200);
      const expected = [
        { id: -1001234567890, info: 'ops' },
        { id: '@fleet_ops', info: '' },
      ];
      expect(created.data?.telegrams).toEqual(expected);
      expect((await read(created.data!.id)).telegrams).toEqual(expected);
      const { version: _version, expiresAt: _expiresAt, ...record } = await read(created.data!.id);
      expect((await replace(tokens.root, record)).response.status).toBe(200);
      expect((await read(created.data!.id)).telegrams).toEqual(expected);
    });

    it('cannot bring a far-deferred rule into force beyond 90 days by switching it to immediate activation', async () => {
      const activationTime = new Date(clock.value + 730 * DAY_MS).toISOString();
      const created = (await create(tokens.root, ruleBody(tenants.root.agentId, { activationMode: 1, activationTime, validity: 90 }))).data!;
      expect(created.expiresAt).toBe(new Date(clock.value + 820 * DAY_MS).toISOString());
      const { expiresAt: _expiresAt, ...record } = created;
      expect((await replace(tokens.root, { ...record, activationMode: 0 })).response.status).toBe(200);
      expect((await read(created.id)).expiresAt).toBe(new Date(clock.value + 90 * DAY_MS).toISOString());
    });

    it('never moves an expiry earlier by prolongation, and says when the cap clamped it', async () => {
      const activationTime = new Date(clock.value + 30 * DAY_MS).toISOString();
      const deferred = (await create(tokens.root, ruleBody(tenants.root.agentId, { activationMode: 1, activationTime, validity: 90 }))).data!;
      const { data, response } = await prolong(tokens.root, { ids: [deferred.id], days: 5 });
      expect(response.status).toBe(200);
      expect(data).toEqual([{ id: deferred.id, expiresAt: deferred.expiresAt, clamped: true }]);
      expect((await read(deferred.id)).expiresAt).toBe(deferred.expiresAt);
    });

    it('keeps a prolongation when the rule is replaced without changing its period', async () => {
      const rule = (await create(tokens.root, ruleBody(tenants.root.agentId, { validity: 10 }))).data!;
      const prolonged = (await prolong(tokens.root, { ids: [rule.id], days: 20 })).data?.[0];
      const { expiresAt: _expiresAt, version: _version, ...record } = await read(rule.id);
      expect((await replace(tokens.root, { ...record, name: 'renamed' })).response.status).toBe(200);
      expect((await read(rule.id)).expiresAt).toBe(prolonged?.expiresAt);
    });
  });

  it('answers 404 on every endpoint to a user of a sibling client', async () => {
    const rule = (await create(tokens.root, ruleBody(tenants.root.agentId))).data!;
    const childRule = (await create(tokens.child, ruleBody(tenants.child.agentId, { vehicleIds: [] }))).data!;
    for (const target of [rule, childRule]) {
      const attempts = [
        await get(tokens.sibling, target.id),
        await replace(tokens.sibling, { ...target, parentId: tenants.sibling.agentId }),
        await replace(tokens.sibling, target),
        await remove(tokens.sibling, target.id),
        await prolong(tokens.sibling, { ids: [target.id] }),
        await find(tokens.sibling, target.parentId),
        await api.POST('/api/v3/notifications/history', {
          headers: session(tokens.sibling),
          body: { ruleId: target.id, from: '2026-01-01T00:00:00Z', to: '2026-12-31T00:00:00Z' },
        }),
      ];
      expect(attempts.map((attempt) => attempt.response.status)).toEqual(attempts.map(() => 404));
    }
    // and the child client's user cannot see its parent's rule
    expect((await get(tokens.child, rule.id)).response.status).toBe(404);
    expect((await get(tokens.root, rule.id)).response.status).toBe(200);
  });
});
