import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { buildAlertItem } from '../../shared/store/alerts/alerts-store';
import { registerVehicle } from '../../shared/store/vehicle-registry';
import { MAX_PAGES_PER_PARTITION } from '../../shared/store/alerts/history-store';
import { getRule } from '../../shared/store/rules-store';
import { countDynamoRequests } from '../support/count-requests';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { TestClock, login, ruleBody, seedTenants, session, typedApiClient, type JsonBody, type TypedApi } from './support';

describe('alert history', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  const clock = new TestClock();
  let api: TypedApi;
  const tokens = { root: '', child: '', sibling: '', readOnly: '' };
  const rules = { root: 0, rootUnstored: 0, child: 0, sibling: 0 };
  const at = (minute: number) => new Date(Date.parse('2026-02-10T10:00:00.000Z') + minute * 60_000).toISOString();

  async function writeAlert(ruleId: number, vehicleId: number, minute: number, time = at(minute)) {
    const rule = await getRule(ruleId);
    const event = { kind: 'speeding', time, latitude: 55.7, longitude: 37.6, speed: 120, values: { limit: 90 } };
    const item = buildAlertItem(rule!, vehicleId, event, Date.parse(at(minute)));
    await documentClient().send(new PutCommand({ TableName: resourcesConfig().ALERTS_TABLE, Item: item }));
    return item.alertId;
  }

  const history = (token: string, body: Partial<JsonBody<'findAlerts'>>) =>
    api.POST('/api/v3/notifications/history', { headers: session(token), body: { from: at(-60), to: at(60), ...body } });
  const ids = (result: { data?: { items: { alertId: string }[] } }) => result.data!.items.map((item) => item.alertId);

  const expected = { root: [] as string[], child: [] as string[], unstored: [] as string[], sibling: [] as string[] };

  beforeAll(async () => {
    emulators = await startTestEmulators('api-history');
    tenants = await seedTenants('history');
    api = typedApiClient({ now: clock.now });
    for (const name of ['root', 'child', 'sibling', 'readOnly'] as const) tokens[name] = await login(api, tenants[name]);
    const create = async (token: string, body: object) =>
      (await api.POST('/api/v3/notifications', { headers: session(token), body: body as JsonBody<'createNotificationRule'> })).data!.id;
    rules.root = await create(tokens.root, ruleBody(tenants.root.agentId));
    rules.rootUnstored = await create(tokens.root, ruleBody(tenants.root.agentId, { stored: false }));
    rules.child = await create(tokens.child, ruleBody(tenants.child.agentId, { vehicleIds: [303] }));
    rules.sibling = await create(tokens.sibling, ruleBody(tenants.sibling.agentId, { vehicleIds: [202] }));
    for (const minute of [1, 2, 3, 4, 5]) expected.root.push(await writeAlert(rules.root, 101, minute));
    for (const minute of [2.5, 6]) expected.child.push(await writeAlert(rules.child, 303, minute));
    expected.unstored.push(await writeAlert(rules.rootUnstored, 101, 7));
    // a sibling's rule that watches vehicle 101 too: its alerts stay the sibling's
    expected.sibling.push(await writeAlert(rules.sibling, 101, 8));
  });
  afterAll(async () => emulators.stop());

  it('answers stored alerts of the own client and the clients below, newest first', async () => {
    const response = await history(tokens.root, {});
    expect(response.response.status).toBe(200);
    expect(ids(response)).toEqual([
      expected.child[1],
      expected.root[4],
      expected.root[3],
      expected.root[2],
      expected.child[0],
      expected.root[1],
      expected.root[0],
    ]);
    expect(response.data!.nextToken).toBeNull();
    expect(response.data!.items[0]).toMatchObject({
      ruleId: rules.child,
      vehicleId: 303,
      parentId: tenants.child.agentId,
      stored: true,
      event: { kind: 'speeding', time: at(6) },
    });
    expect(response.data!.items[0]).not.toHaveProperty('timeKey');
    expect(response.data!.items[0]).not.toHaveProperty('outbox');
  });

  it('pages with nextToken without losing or repeating an alert', async () => {
    const seen: string[] = [];
    let nextToken: string | undefined;
    let pages = 0;
    do {
      const response = await history(tokens.root, { limit: 2, ...(nextToken ? { nextToken } : {}) });
      expect(response.response.status).toBe(200);
      expect(response.data!.items.length).toBeLessThanOrEqual(2);
      seen.push(...ids(response));
      nextToken = response.data!.nextToken ?? undefined;
      pages++;
    } while (nextToken && pages < 10);
    expect(pages).toBe(4);
    expect(seen).toEqual(ids(await history(tokens.root, {})));
  });

  it('narrows to a client, a rule, a vehicle and a time window', async () => {
    expect(ids(await history(tokens.root, { parentId: tenants.child.agentId }))).toEqual([...expected.child].reverse());
    expect(ids(await history(tokens.root, { ruleId: rules.root }))).toEqual([...expected.root].reverse());
    expect(ids(await history(tokens.readOnly, { vehicleId: 101 }))).toEqual([...expected.root].reverse());
    expect(ids(await history(tokens.sibling, {}))).toEqual(expected.sibling);
    expect(ids(await history(tokens.root, { from: at(2), to: at(4) }))).toEqual([
      expected.root[3],
      expected.root[2],
      expected.child[0],
      expected.root[1],
    ]);
    expect(ids(await history(tokens.child, {}))).toEqual([...expected.child].reverse());
  });

  it('answers 404 for a vehicle outside the scope now, without reading its alerts', async () => {
    const requests = countDynamoRequests();
    try {
      // the sibling's own rule watched vehicle 101, but the vehicle is the root's
      for (const vehicleId of [101, 303, 999_999]) {
        const response = await history(tokens.sibling, { vehicleId });
        expect(response.response.status, String(vehicleId)).toBe(404);
        expect(response.error?.message).toBe(`vehicle ${vehicleId} not found`);
      }
      expect(requests.forTable(resourcesConfig().ALERTS_TABLE)).toBe(0);
    } finally {
      requests.detach();
    }
    expect((await history(tokens.child, { vehicleId: 101 })).response.status).toBe(404);
    expect(ids(await history(tokens.child, { vehicleId: 303 }))).toEqual([...expected.child].reverse());
  });

  it('answers 404 for a client or rule outside the scope', async () => {
    expect((await history(tokens.sibling, { parentId: tenants.root.agentId })).response.status).toBe(404);
    expect((await history(tokens.child, { parentId: tenants.root.agentId })).response.status).toBe(404);
    expect((await history(tokens.sibling, { ruleId: rules.root })).response.status).toBe(404);
    expect((await history(tokens.child, { ruleId: rules.root })).response.status).toBe(404);
  });

  it('answers 400 for a reversed window, a limit over 1000 and a token it did not issue', async () => {
    const reversed = await history(tokens.root, { from: at(10), to: at(0) });
    expect(reversed.response.status).toBe(400);
    expect(reversed.error?.issues?.[0]?.path).toBe('to');
    expect((await history(tokens.root, { limit: 1001 })).response.status).toBe(400);
    const token = await history(tokens.root, { nextToken: 'garbage' });
    expect(token.response.status).toBe(400);
    expect(token.error?.issues?.[0]?.path).toBe('nextToken');
    const windowless = await api.POST('/api/v3/notifications/history', {
      headers: session(tokens.root),
      // @ts-expect-error a body without the window, on purpose
      body: {},
    });
    expect(windowless.response.status).toBe(400);
  });

  describe('nextToken', () => {
    // the token this endpoint issued before it signed them: a position in base64url JSON
    const unsigned = (before: string) => Buffer.from(JSON.stringify({ before }), 'utf8').toString('base64url');
    const refusedToken = ({ response, error }: { response: Response; error?: { issues?: { path: string }[] } }) => {
      expect(response.status).toBe(400);
      expect(error?.issues?.map((issue) => issue.path)).toEqual(['nextToken']);
    };
    const firstToken = async () => {
      const { data } = await history(tokens.root, { limit: 2 });
      expect(data?.nextToken).toEqual(expect.any(String));
      return data!.nextToken!;
    };

    it('refuses a position it did not sign: before from, over 1 KB, or its own token altered', async () => {
      refusedToken(await history(tokens.root, { nextToken: unsigned('2000-01-01T00:00:00.000Z#x') }));
      refusedToken(await history(tokens.root, { nextToken: unsigned(`${at(3)}#${'x'.repeat(1_500)}`) }));
      const [payload, signature] = (await firstToken()).split('.');
      const moved = Buffer.from(JSON.stringify({ before: '2000-01-01T00:00:00.000Z#x' }), 'utf8').toString('base64url');
      refusedToken(await history(tokens.root, { nextToken: `${moved}.${signature}` }));
      refusedToken(await history(tokens.root, { nextToken: `${payload}.${signature!.slice(1)}A` }));
    });

    it('refuses its own token with another query: a later from, another filter, another client', async () => {
      const token = await firstToken();
      refusedToken(await history(tokens.root, { limit: 2, nextToken: token, from: at(4.5) }));
      refusedToken(await history(tokens.root, { limit: 2, nextToken: token, to: at(30) }));
      refusedToken(await history(tokens.root, { limit: 2, nextToken: token, parentId: tenants.child.agentId }));
      refusedToken(await history(tokens.root, { limit: 2, nextToken: token, ruleId: rules.root }));
      refusedToken(await history(tokens.sibling, { limit: 2, nextToken: token }));
      expect((await history(tokens.readOnly, { limit: 2, nextToken: token })).response.status).toBe(200);
    });
  });

  it('orders and filters by UTC time an event whose time was written with an offset', async () => {
    await registerVehicle({ vehicleId: 555, name: 'Truck 555', parentId: tenants.root.agentId }, { allowMove: true });
    // 13:03:30 in Moscow is 10:03:30 UTC: between the alerts at 10:03:15 and 10:03:45
    const moscow = await writeAlert(rules.root, 555, 3.5, '2026-02-10T13:03:30+03:00');
    const before = await writeAlert(rules.root, 555, 3.25);
    const after = await writeAlert(rules.root, 555, 3.75);
    expect(ids(await history(tokens.root, { vehicleId: 555 }))).toEqual([after, moscow, before]);
    expect(ids(await history(tokens.root, { vehicleId: 555, from: '2026-02-10T10:03:20Z', to: '2026-02-10T10:03:40Z' }))).toEqual([moscow]);
    expect(ids(await history(tokens.root, { vehicleId: 555, from: '2026-02-10T13:03:20+03:00', to: '2026-02-10T13:03:40+03:00' }))).toEqual([moscow]);
    expect(ids(await history(tokens.root, { vehicleId: 555, from: '2026-02-10T10:03:40Z', to: '2026-02-10T13:00:00Z' }))).toEqual([after]);
  });

  describe('severity', () => {
    const window = { from: at(100), to: at(200) };
    const severity: Record<string, string> = {};
    const newestFirst: string[] = [];

    /** An alert as evaluate raises it at minute 100 + `minute`; `legacy`: stored before severities, without one. */
    async function raise(ruleId: number, minute: number, kind = 'speeding', legacy = false) {
      const rule = (await getRule(ruleId))!;
      const event = { kind, time: at(100 + minute), latitude: 55.7, longitude: 37.6, speed: 120, values: { limit: 90 } };
      const { severity: raisedWith, ...item } = buildAlertItem(rule, 888, event, Date.parse(at(100 + minute)));
      await documentClient().send(
        new PutCommand({ TableName: resourcesConfig().ALERTS_TABLE, Item: legacy ? item : { ...item, severity: raisedWith } }),
      );
      newestFirst.unshift(item.alertId);
      return item.alertId;
    }
    const create = async (body: object) =>
      (await api.POST('/api/v3/notifications', { headers: session(tokens.root), body: body as JsonBody<'createNotificationRule'> })).data!;

    beforeAll(async () => {
      await registerVehicle({ vehicleId: 888, name: 'Truck 888', parentId: tenants.root.agentId }, { allowMove: true });
      const critical = await create(ruleBody(tenants.root.agentId, { vehicleIds: [888], settings: { limit: '90', severity: 'critical' } }));
      const info = await create(ruleBody(tenants.root.agentId, { vehicleIds: [888], settings: { limit: '90', severity: 'info' } }));
      const panic = await create(ruleBody(tenants.root.agentId, { type: 6, vehicleIds: [888], settings: {} }));
      severity[await raise(critical.id, 1)] = 'critical';
      severity[await raise(rules.root, 2)] = 'warning';
      severity[await raise(info.id, 3)] = 'info';
      // stored before severities: a panic press reads as critical, a speeding alert as warning
      severity[await raise(panic.id, 4, 'panic', true)] = 'critical';
      severity[await raise(critical.id, 5)] = 'critical';
      severity[await raise(rules.root, 6)] = 'warning';
      severity[await raise(rules.root, 7, 'speeding', true)] = 'warning';
      severity[await raise(critical.id, 8)] = 'critical';
      // the rule turned to info: its alerts from now on are info, the earlier ones stay critical
      const edited = await api.PUT('/api/v3/notifications', {
        headers: session(tokens.root),
        body: { ...critical, settings: { limit: '90', severity: 'info' } },
      });
      expect(edited.response.status).toBe(200);
      severity[await raise(critical.id, 9)] = 'info';
    });

    const matching = (...levels: string[]) => newestFirst.filter((alertId) => levels.includes(severity[alertId]!));

    it('answers each alert with the severity it was raised with, an older one with its type default', async () => {
      const response = await history(tokens.root, window);
      expect(response.response.status).toBe(200);
      expect(Object.fromEntries(response.data!.items.map((item) => [item.alertId, item.severity]))).toEqual(severity);
      expect(ids(response)).toEqual(newestFirst);
    });

    it('filters by one severity or a list of them, alerts stored before severities by their type default', async () => {
      expect(ids(await history(tokens.root, { ...window, severity: 'critical' }))).toEqual(matching('critical'));
      expect(ids(await history(tokens.root, { ...window, severity: ['warning'] }))).toEqual(matching('warning'));
      expect(ids(await history(tokens.root, { ...window, severity: ['info', 'critical'] }))).toEqual(matching('info', 'critical'));
      expect(ids(await history(tokens.root, { ...window, severity: ['info', 'warning', 'critical'] }))).toEqual(newestFirst);
      expect(ids(await history(tokens.root, { ...window, vehicleId: 888, ruleId: rules.root, severity: 'warning' }))).toEqual(matching('warning'));
      expect(ids(await history(tokens.root, { ...window, state: 'acknowledged', severity: 'critical' }))).toEqual([]);
    });

    it('fills a filtered page from further index pages, and pages on without losing or repeating an alert', async () => {
      // the first index page of two holds one critical alert: the page reads on for the second
      const first = await history(tokens.root, { ...window, severity: 'critical', limit: 2 });
      expect(ids(first)).toEqual(matching('critical').slice(0, 2));
      const seen: string[] = [];
      let nextToken: string | undefined;
      let pages = 0;
      do {
        const response = await history(tokens.root, { ...window, severity: ['critical', 'info'], limit: 1, ...(nextToken ? { nextToken } : {}) });
        expect(response.response.status).toBe(200);
        expect(response.data!.items.length).toBeLessThanOrEqual(1);
        seen.push(...ids(response));
        nextToken = response.data!.nextToken ?? undefined;
        pages++;
      } while (nextToken && pages < 20);
      expect(seen).toEqual(matching('info', 'critical'));
    });

    it('binds a token to its severity filter: the same levels in another order read on, other levels are 400', async () => {
      const token = (await history(tokens.root, { ...window, severity: ['critical', 'info'], limit: 1 })).data!.nextToken!;
      expect(token).toEqual(expect.any(String));
      expect((await history(tokens.root, { ...window, severity: ['info', 'critical'], limit: 1, nextToken: token })).response.status).toBe(200);
      for (const other of [{ severity: 'critical' as const }, {}]) {
        const refused = await history(tokens.root, { ...window, ...other, limit: 1, nextToken: token });
        expect(refused.response.status).toBe(400);
        expect(refused.error?.issues?.map((issue) => issue.path)).toEqual(['nextToken']);
      }
    });

    it('answers 400 naming severity for a level that is not one', async () => {
      for (const bad of ['urgent', [], ['critical', 'urgent']]) {
        // @ts-expect-error a severity the document does not allow, on purpose
        const response = await history(tokens.root, { ...window, severity: bad });
        expect(response.response.status, JSON.stringify(bad)).toBe(400);
        expect(response.error?.issues?.[0]?.path, JSON.stringify(bad)).toMatch(/^severity/);
      }
    });
  });

  it('reads a bounded number of pages per request, and pages on past alerts that do not match', async () => {
    await registerVehicle({ vehicleId: 777, name: 'Truck 777', parentId: tenants.root.agentId }, { allowMove: true });
    const stored = await writeAlert(rules.root, 777, 40);
    // newer alerts of a rule that does not store them: read and filtered out, page after page
    for (let minute = 41; minute <= 52; minute++) await writeAlert(rules.rootUnstored, 777, minute);
    const requests = countDynamoRequests();
    try {
      const first = await history(tokens.root, { vehicleId: 777, limit: 1 });
      expect(first.response.status).toBe(200);
      expect(first.data!.items).toEqual([]);
      expect(first.data!.nextToken).toEqual(expect.any(String));
      expect(requests.byTable()[`Query ${resourcesConfig().ALERTS_TABLE}`]).toBe(MAX_PAGES_PER_PARTITION);
    } finally {
      requests.detach();
    }
    const seen: string[] = [];
    let nextToken: string | undefined;
    let pages = 0;
    do {
      const response = await history(tokens.root, { vehicleId: 777, limit: 1, ...(nextToken ? { nextToken } : {}) });
      expect(response.response.status).toBe(200);
      seen.push(...ids(response));
      nextToken = response.data!.nextToken ?? undefined;
      pages++;
    } while (nextToken && pages < 10);
    expect(seen).toEqual([stored]);
    expect(pages).toBeGreaterThan(1);
  });
});
