import { issueLinkCode, redeemLinkCode } from '../../shared/store/telegram-links';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../shared/rules/lifecycle';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { TestClock, apiClient, login, ruleBody, seedTenants, squareZone, type Api } from './support';

describe('notification rules', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  const clock = new TestClock();
  let api: Api;
  const tokens = { root: '', child: '', sibling: '', readOnly: '' };

  const create = async (token: string, body: Record<string, unknown>) => api({ method: 'POST', path: '/api/v3/notifications', token, body });

  const loginAll = async () => {
    for (const name of ['root', 'child', 'sibling', 'readOnly'] as const) tokens[name] = await login(api, tenants[name]);
  };

  beforeAll(async () => {
    emulators = await startTestEmulators('api-notifications');
    tenants = await seedTenants('rules');
    api = apiClient({ now: clock.now });
    await loginAll();
  });
  afterAll(async () => emulators.stop());

  describe('create', () => {
    it('stores the rule under a new id, fills defaults, starts its validity', async () => {
      const response = await create(tokens.root, ruleBody(tenants.root.agentId));
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
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
      expect(response.headers.ETag).toBe('"1"');
      const second = await create(tokens.root, ruleBody(tenants.root.agentId, { name: 'second' }));
      expect(second.body.id).toBe(response.body.id + 1);
    });

    it('starts the validity of a deferred rule at its activation time', async () => {
      const activationTime = new Date(clock.value + 2 * DAY_MS).toISOString();
      const response = await create(tokens.root, ruleBody(tenants.root.agentId, { activationMode: 1, activationTime, validity: 10 }));
      expect(response.status).toBe(200);
      expect(response.body.expiresAt).toBe(new Date(clock.value + 12 * DAY_MS).toISOString());
    });

    it('answers 400 listing each schema violation', async () => {
      const response = await create(tokens.root, {
        ...ruleBody(tenants.root.agentId),
        type: 3,
        name: '',
        validity: 91,
        sideEmails: ['not-an-address'],
      });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('ValidationError');
      expect(response.body.issues.map((issue: { path: string }) => issue.path).sort()).toEqual(['name', 'sideEmails.0', 'type', 'validity']);
    });

    it('answers 400 for a deferred activation without a time, and for references outside the scope', async () => {
      const siblingZone = await api({ method: 'POST', path: '/api/v3/gis', token: tokens.sibling, body: squareZone(tenants.sibling.agentId) });
      expect(siblingZone.status).toBe(200);
      const response = await create(
        tokens.root,
        ruleBody(tenants.root.agentId, {
          activationMode: 1,
          vehicleIds: [101, 202, 999],
          geoids: [siblingZone.body.id, 424242],
          recipientIds: [tenants.sibling.userId, tenants.child.userId],
        }),
      );
      expect(response.status).toBe(400);
      expect(response.body.issues.map((issue: { path: string }) => issue.path).sort()).toEqual([
        'activationTime',
        'geoids.0',
        'geoids.1',
        'recipientIds.0',
        'vehicleIds.1',
        'vehicleIds.2',
      ]);
      expect(response.body.issues.find((issue: { path: string }) => issue.path === 'geoids.0').message).toBe(
        response.body.issues.find((issue: { path: string }) => issue.path === 'geoids.1').message.replace('424242', String(siblingZone.body.id)),
      );
    });

    it('refuses vehicles the directory does not know, with the message a foreign vehicle gets; accepts geozones of the scope', async () => {
      const zone = await api({ method: 'POST', path: '/api/v3/gis', token: tokens.child, body: squareZone(tenants.child.agentId) });
      const refused = await create(
        tokens.root,
        ruleBody(tenants.root.agentId, { type: 0, settings: {}, vehicleIds: [101, 999, 202], geoids: [zone.body.id] }),
      );
      expect(refused.status).toBe(400);
      expect(refused.body.issues).toEqual([
        { path: 'vehicleIds.1', message: 'no vehicle 999 in your scope' },
        { path: 'vehicleIds.2', message: 'no vehicle 202 in your scope' },
      ]);
      const response = await create(
        tokens.root,
        ruleBody(tenants.root.agentId, { type: 0, settings: {}, vehicleIds: [101, 303], geoids: [zone.body.id] }),
      );
      expect(response.status).toBe(200);
      expect(response.body.geoids).toEqual([zone.body.id]);
    });

    it('answers 404 for a client outside the scope, 403 for a read-only user', async () => {
      expect((await create(tokens.root, ruleBody(tenants.sibling.agentId))).status).toBe(404);
      expect((await create(tokens.child, ruleBody(tenants.root.agentId))).status).toBe(404);
      const readOnly = await create(tokens.readOnly, ruleBody(tenants.root.agentId));
      expect(readOnly.status).toBe(403);
      expect(readOnly.body.message).toMatch(/read-only/);
    });
  });

  describe('read and find', () => {
    let rootRule: number;
    let childRule: number;
    beforeAll(async () => {
      rootRule = (await create(tokens.root, ruleBody(tenants.root.agentId, { name: 'root rule' }))).body.id;
      childRule = (await create(tokens.child, ruleBody(tenants.child.agentId, { name: 'child rule', vehicleIds: [303] }))).body.id;
    });

    it('reads a rule with every field', async () => {
      const response = await api({ method: 'GET', path: `/api/v3/notifications/${rootRule}`, token: tokens.readOnly });
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(
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
          'telegrams',
          'timezone',
          'toClient',
          'toEmail',
          'toMobile',
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
      expect((await api({ method: 'GET', path: '/api/v3/notifications/999999', token: tokens.root })).status).toBe(404);
      const bad = await api({ method: 'GET', path: '/api/v3/notifications/abc', token: tokens.root });
      expect(bad.status).toBe(400);
      expect(bad.body.issues[0].path).toBe('id');
    });

    it('finds the rules of a client and of the clients below it', async () => {
      const fromRoot = await api({
        method: 'POST',
        path: '/api/v3/notifications/find',
        token: tokens.root,
        body: { parentId: tenants.root.agentId },
      });
      expect(fromRoot.status).toBe(200);
      const ids = fromRoot.body.map((rule: { id: number }) => rule.id);
      expect(ids).toEqual(expect.arrayContaining([rootRule, childRule]));
      expect(fromRoot.body.find((rule: { id: number }) => rule.id === childRule)).toEqual({
        id: childRule,
        name: 'child rule',
        active: true,
        type: 2,
        userId: tenants.child.userId,
        parentId: tenants.child.agentId,
        parentName: 'rules Child Depot',
      });
      const fromChild = await api({
        method: 'POST',
        path: '/api/v3/notifications/find',
        token: tokens.child,
        body: { parentId: tenants.child.agentId },
      });
      expect(fromChild.body.map((rule: { id: number }) => rule.id)).toContain(childRule);
      expect(fromChild.body.map((rule: { id: number }) => rule.id)).not.toContain(rootRule);
    });

    it('answers 404 when finding below a client outside the scope, 400 for a bad parentId', async () => {
      expect(
        (await api({ method: 'POST', path: '/api/v3/notifications/find', token: tokens.child, body: { parentId: tenants.root.agentId } })).status,
      ).toBe(404);
      expect(
        (await api({ method: 'POST', path: '/api/v3/notifications/find', token: tokens.sibling, body: { parentId: tenants.root.agentId } })).status,
      ).toBe(404);
      expect((await api({ method: 'POST', path: '/api/v3/notifications/find', token: tokens.root, body: { parentId: 'nope' } })).status).toBe(400);
    });
  });

  describe('replace', () => {
    it('replaces the whole record: a field not sent is reset, the version moves on', async () => {
      await redeemLinkCode((await issueLinkCode(tenants.root.userId, clock.value)).code, { chatId: '5', username: 'ops' }, clock.value);
      const created = (await create(tokens.root, ruleBody(tenants.root.agentId, { toTelegram: true, telegrams: [{ id: 5, info: 'ops chat' }] })))
        .body;
      const { telegrams: _telegrams, toTelegram: _toTelegram, ...rest } = created;
      const response = await api({
        method: 'PUT',
        path: '/api/v3/notifications',
        token: tokens.root,
        body: { ...rest, name: 'renamed', validity: 60 },
      });
      expect(response.status).toBe(200);
      expect(response.body).toBe('Success');
      expect(response.headers.ETag).toBe('"2"');
      const read = await api({ method: 'GET', path: `/api/v3/notifications/${created.id}`, token: tokens.root });
      expect(read.body).toMatchObject({ name: 'renamed', telegrams: [], toTelegram: false, version: 2, validity: 60 });
      expect(read.body.expiresAt).toBe(new Date(Date.parse(created.expiresAt) + 30 * DAY_MS).toISOString());
    });

    it('answers 409 for a stale version in the body or in If-Match', async () => {
      const created = (await create(tokens.root, ruleBody(tenants.root.agentId))).body;
      const first = await api({ method: 'PUT', path: '/api/v3/notifications', token: tokens.root, body: { ...created, name: 'one' } });
      expect(first.status).toBe(200);
      const stale = await api({ method: 'PUT', path: '/api/v3/notifications', token: tokens.root, body: { ...created, name: 'two' } });
      expect(stale.status).toBe(409);
      const { version: _version, ...withoutVersion } = created;
      const staleHeader = await api({
        method: 'PUT',
        path: '/api/v3/notifications',
        token: tokens.root,
        headers: { 'If-Match': '"1"' },
        body: withoutVersion,
      });
      expect(staleHeader.status).toBe(409);
      const current = await api({
        method: 'PUT',
        path: '/api/v3/notifications',
        token: tokens.root,
        headers: { 'If-Match': '"2"' },
        body: withoutVersion,
      });
      expect(current.status).toBe(200);
      const unconditional = await api({ method: 'PUT', path: '/api/v3/notifications', token: tokens.root, body: withoutVersion });
      expect(unconditional.status).toBe(200);
    });

    it('lets exactly one of two concurrent replaces of the same version win', async () => {
      const created = (await create(tokens.root, ruleBody(tenants.root.agentId))).body;
      const [first, second] = await Promise.all([
        api({ method: 'PUT', path: '/api/v3/notifications', token: tokens.root, body: { ...created, name: 'first' } }),
        api({ method: 'PUT', path: '/api/v3/notifications', token: tokens.root, body: { ...created, name: 'second' } }),
      ]);
      expect([first.status, second.status].sort()).toEqual([200, 409]);
      const winner = first.status === 200 ? 'first' : 'second';
      expect((await api({ method: 'GET', path: `/api/v3/notifications/${created.id}`, token: tokens.root })).body).toMatchObject({
        name: winner,
        version: 2,
      });
    });

    it('restarts the validity from now when an expired rule is made active again', async () => {
      const created = (await create(tokens.root, ruleBody(tenants.root.agentId, { validity: 1, active: false }))).body;
      clock.advance(3 * DAY_MS);
      await loginAll();
      const response = await api({ method: 'PUT', path: '/api/v3/notifications', token: tokens.root, body: { ...created, active: true } });
      expect(response.status).toBe(200);
      const read = await api({ method: 'GET', path: `/api/v3/notifications/${created.id}`, token: tokens.root });
      expect(read.body.expiresAt).toBe(new Date(clock.value + DAY_MS).toISOString());
    });

    it('answers 404 for unknown ids and foreign clients, 403 for read-only users, 400 for bad bodies', async () => {
      const created = (await create(tokens.root, ruleBody(tenants.root.agentId))).body;
      expect((await api({ method: 'PUT', path: '/api/v3/notifications', token: tokens.root, body: { ...created, id: 999999 } })).status).toBe(404);
      expect(
        (await api({ method: 'PUT', path: '/api/v3/notifications', token: tokens.root, body: { ...created, parentId: tenants.sibling.agentId } }))
          .status,
      ).toBe(404);
      expect((await api({ method: 'PUT', path: '/api/v3/notifications', token: tokens.readOnly, body: created })).status).toBe(403);
      const bad = await api({
        method: 'PUT',
        path: '/api/v3/notifications',
        token: tokens.root,
        body: { ...created, id: 'x', timezone: 'Mars/Olympus' },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.issues.map((issue: { path: string }) => issue.path).sort()).toEqual(['id', 'timezone']);
    });
  });

  describe('delete', () => {
    it('deletes, then answers 404', async () => {
      const created = (await create(tokens.root, ruleBody(tenants.root.agentId))).body;
      const response = await api({ method: 'DELETE', path: `/api/v3/notifications/${created.id}`, token: tokens.root });
      expect(response.status).toBe(200);
      expect(response.body).toBe('Success');
      expect((await api({ method: 'GET', path: `/api/v3/notifications/${created.id}`, token: tokens.root })).status).toBe(404);
      expect((await api({ method: 'DELETE', path: `/api/v3/notifications/${created.id}`, token: tokens.root })).status).toBe(404);
    });

    it('answers 409 for a stale If-Match and 403 for read-only users', async () => {
      const created = (await create(tokens.root, ruleBody(tenants.root.agentId))).body;
      expect(
        (await api({ method: 'DELETE', path: `/api/v3/notifications/${created.id}`, token: tokens.root, headers: { 'If-Match': '"7"' } })).status,
      ).toBe(409);
      expect((await api({ method: 'DELETE', path: `/api/v3/notifications/${created.id}`, token: tokens.readOnly })).status).toBe(403);
      expect(
        (await api({ method: 'DELETE', path: `/api/v3/notifications/${created.id}`, token: tokens.root, headers: { 'If-Match': '"1"' } })).status,
      ).toBe(200);
    });
  });

  describe('prolongation', () => {
    it('adds days to the expiry, by default the validity, never beyond 90 days ahead', async () => {
      const a = (await create(tokens.root, ruleBody(tenants.root.agentId, { validity: 10 }))).body;
      const b = (await create(tokens.root, ruleBody(tenants.root.agentId, { validity: 80 }))).body;
      const explicit = await api({ method: 'PUT', path: '/api/v3/notifications/prolongation', token: tokens.root, body: { ids: [a.id], days: 5 } });
      expect(explicit.status).toBe(200);
      expect(explicit.body).toEqual([{ id: a.id, expiresAt: new Date(clock.value + 15 * DAY_MS).toISOString(), clamped: false }]);
      const byDefault = await api({ method: 'PUT', path: '/api/v3/notifications/prolongation', token: tokens.root, body: { ids: [a.id, b.id] } });
      expect(byDefault.body).toEqual([
        { id: a.id, expiresAt: new Date(clock.value + 25 * DAY_MS).toISOString(), clamped: false },
        { id: b.id, expiresAt: new Date(clock.value + 90 * DAY_MS).toISOString(), clamped: true },
      ]);
      const read = await api({ method: 'GET', path: `/api/v3/notifications/${a.id}`, token: tokens.root });
      expect(read.body).toMatchObject({ expiresAt: byDefault.body[0].expiresAt, version: 3 });
    });

    it('prolongs all or none: 404 when one id is unknown or foreign, 400 for bad days, 403 for read-only', async () => {
      const a = (await create(tokens.root, ruleBody(tenants.root.agentId))).body;
      const foreign = (await create(tokens.sibling, ruleBody(tenants.sibling.agentId, { vehicleIds: [202] }))).body;
      const unknown = await api({ method: 'PUT', path: '/api/v3/notifications/prolongation', token: tokens.root, body: { ids: [a.id, 999999] } });
      expect(unknown.status).toBe(404);
      expect(
        (await api({ method: 'PUT', path: '/api/v3/notifications/prolongation', token: tokens.root, body: { ids: [a.id, foreign.id] } })).status,
      ).toBe(404);
      expect((await api({ method: 'GET', path: `/api/v3/notifications/${a.id}`, token: tokens.root })).body.expiresAt).toBe(a.expiresAt);
      const bad = await api({ method: 'PUT', path: '/api/v3/notifications/prolongation', token: tokens.root, body: { ids: [a.id, a.id], days: 91 } });
      expect(bad.status).toBe(400);
      expect(bad.body.issues.map((issue: { path: string }) => issue.path).sort()).toEqual(['days', 'ids']);
      expect((await api({ method: 'PUT', path: '/api/v3/notifications/prolongation', token: tokens.readOnly, body: { ids: [a.id] } })).status).toBe(
        403,
      );
    });
  });

  describe('values mean one thing', () => {
    const read = async (id: number) => (await api({ method: 'GET', path: `/api/v3/notifications/${id}`, token: tokens.root })).body;

    it('makes a rule created without `active` active', async () => {
      const { active: _active, ...withoutActive } = ruleBody(tenants.root.agentId);
      const created = await create(tokens.root, withoutActive);
      expect(created.status).toBe(200);
      expect(created.body.active).toBe(true);
      expect((await read(created.body.id)).active).toBe(true);
    });

    it('stores and answers an activationTime sent with an offset in UTC', async () => {
      const local = '2026-03-05T11:30:00+03:00';
      const created = await create(tokens.root, ruleBody(tenants.root.agentId, { activationMode: 1, activationTime: local }));
      expect(created.status).toBe(200);
      expect(created.body.activationTime).toBe('2026-03-05T08:30:00.000Z');
      expect((await read(created.body.id)).activationTime).toBe('2026-03-05T08:30:00.000Z');
    });

    it('answers 400 naming activationTime for a time whose validity would end past year 9999, on create and replace', async () => {
      const refused = (response: { status: number; body: { issues?: { path: string }[] } }) => {
        expect(response.status).toBe(400);
        expect(response.body.issues?.map((issue) => issue.path)).toEqual(['activationTime']);
      };
      const created = (await create(tokens.root, ruleBody(tenants.root.agentId))).body;
      const { expiresAt: _expiresAt, version: _version, ...record } = created;
      for (const activationTime of ['9999-12-31T00:00:00Z', '9999-12-31T23:59:59-14:00', '9999-10-15T00:00:00Z']) {
        refused(await create(tokens.root, ruleBody(tenants.root.agentId, { activationMode: 1, activationTime, validity: 90 })));
        refused(
          await api({
            method: 'PUT',
            path: '/api/v3/notifications',
            token: tokens.root,
            body: { ...record, activationMode: 1, activationTime, validity: 90 },
          }),
        );
      }
      // the latest accepted time still ends within year 9999
      const latest = await create(
        tokens.root,
        ruleBody(tenants.root.agentId, { activationMode: 1, activationTime: '9999-09-30T23:59:59Z', validity: 90 }),
      );
      expect(latest.status).toBe(200);
      expect(latest.body.expiresAt).toBe('9999-12-29T23:59:59.000Z');
    });

    it('answers 400 naming activationTime for a time that an offset carries before year 0, on create and replace', async () => {
      // valid ISO 8601 as sent; in UTC it is year -1, which the stored record's schema refuses
      const activationTime = '0000-01-01T00:00:00+01:00';
      const created = (await create(tokens.root, ruleBody(tenants.root.agentId))).body;
      const { expiresAt: _expiresAt, version: _version, ...record } = created;
      for (const response of [
        await create(tokens.root, ruleBody(tenants.root.agentId, { activationMode: 1, activationTime })),
        await api({ method: 'PUT', path: '/api/v3/notifications', token: tokens.root, body: { ...record, activationMode: 1, activationTime } }),
      ]) {
        expect(response.status).toBe(400);
        expect(response.body.issues.map((issue: { path: string }) => issue.path)).toEqual(['activationTime']);
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
      expect(created.status).toBe(200);
      const expected = [
        { id: -1001234567890, info: 'ops' },
        { id: '@fleet_ops', info: '' },
      ];
      expect(created.body.telegrams).toEqual(expected);
      expect((await read(created.body.id)).telegrams).toEqual(expected);
      const { version: _version, expiresAt: _expiresAt, ...record } = await read(created.body.id);
      expect((await api({ method: 'PUT', path: '/api/v3/notifications', token: tokens.root, body: record })).status).toBe(200);
      expect((await read(created.body.id)).telegrams).toEqual(expected);
    });

    it('cannot bring a far-deferred rule into force beyond 90 days by switching it to immediate activation', async () => {
      const activationTime = new Date(clock.value + 730 * DAY_MS).toISOString();
      const created = (await create(tokens.root, ruleBody(tenants.root.agentId, { activationMode: 1, activationTime, validity: 90 }))).body;
      expect(created.expiresAt).toBe(new Date(clock.value + 820 * DAY_MS).toISOString());
      const { expiresAt: _expiresAt, ...record } = created;
      expect((await api({ method: 'PUT', path: '/api/v3/notifications', token: tokens.root, body: { ...record, activationMode: 0 } })).status).toBe(
        200,
      );
      expect((await read(created.id)).expiresAt).toBe(new Date(clock.value + 90 * DAY_MS).toISOString());
    });

    it('never moves an expiry earlier by prolongation, and says when the cap clamped it', async () => {
      const activationTime = new Date(clock.value + 30 * DAY_MS).toISOString();
      const deferred = (await create(tokens.root, ruleBody(tenants.root.agentId, { activationMode: 1, activationTime, validity: 90 }))).body;
      const response = await api({
        method: 'PUT',
        path: '/api/v3/notifications/prolongation',
        token: tokens.root,
        body: { ids: [deferred.id], days: 5 },
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual([{ id: deferred.id, expiresAt: deferred.expiresAt, clamped: true }]);
      expect((await read(deferred.id)).expiresAt).toBe(deferred.expiresAt);
    });

    it('keeps a prolongation when the rule is replaced without changing its period', async () => {
      const rule = (await create(tokens.root, ruleBody(tenants.root.agentId, { validity: 10 }))).body;
      const prolonged = (
        await api({ method: 'PUT', path: '/api/v3/notifications/prolongation', token: tokens.root, body: { ids: [rule.id], days: 20 } })
      ).body[0];
      const { expiresAt: _expiresAt, version: _version, ...record } = await read(rule.id);
      expect((await api({ method: 'PUT', path: '/api/v3/notifications', token: tokens.root, body: { ...record, name: 'renamed' } })).status).toBe(
        200,
      );
      expect((await read(rule.id)).expiresAt).toBe(prolonged.expiresAt);
    });
  });

  it('answers 404 on every endpoint to a user of a sibling client', async () => {
    const rule = (await create(tokens.root, ruleBody(tenants.root.agentId))).body;
    const childRule = (await create(tokens.child, ruleBody(tenants.child.agentId, { vehicleIds: [] }))).body;
    for (const target of [rule, childRule]) {
      const attempts = [
        await api({ method: 'GET', path: `/api/v3/notifications/${target.id}`, token: tokens.sibling }),
        await api({ method: 'PUT', path: '/api/v3/notifications', token: tokens.sibling, body: { ...target, parentId: tenants.sibling.agentId } }),
        await api({ method: 'PUT', path: '/api/v3/notifications', token: tokens.sibling, body: target }),
        await api({ method: 'DELETE', path: `/api/v3/notifications/${target.id}`, token: tokens.sibling }),
        await api({ method: 'PUT', path: '/api/v3/notifications/prolongation', token: tokens.sibling, body: { ids: [target.id] } }),
        await api({ method: 'POST', path: '/api/v3/notifications/find', token: tokens.sibling, body: { parentId: target.parentId } }),
        await api({
          method: 'POST',
          path: '/api/v3/notifications/history',
          token: tokens.sibling,
          body: { ruleId: target.id, from: '2026-01-01T00:00:00Z', to: '2026-12-31T00:00:00Z' },
        }),
      ];
      expect(attempts.map((attempt) => attempt.status)).toEqual(attempts.map(() => 404));
    }
    // and the child client's user cannot see its parent's rule
    expect((await api({ method: 'GET', path: `/api/v3/notifications/${rule.id}`, token: tokens.child })).status).toBe(404);
    expect((await api({ method: 'GET', path: `/api/v3/notifications/${rule.id}`, token: tokens.root })).status).toBe(200);
  });
});
