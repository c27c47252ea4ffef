import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes } from '../../shared/api/routes';
import { updateUserMapEntry } from '../../shared/store/user-maps';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { linkChats } from '../support/owned-fleet';
import {
  apiClient,
  login,
  ruleBody,
  seedTenants,
  session,
  depotZoneBody,
  typedApiClient,
  type Api,
  type ApiRequest,
  type JsonBody,
  type TypedApi,
} from './support';

type Issue = { path: string; message: string };
const paths = (body: { issues?: Issue[] }) => (body.issues ?? []).map((issue) => issue.path).sort();

/**
 * Nothing sent is silently dropped: unknown fields are refused naming them, settings sent as JSON numbers and
 * booleans are kept (as the strings the platform answers), and a channel switched on that reaches nobody is refused.
 */
describe('strict request bodies', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let api: TypedApi;
  /** For the requests the typed client cannot express: unknown fields, and setting values of types the document forbids. */
  let rawApi: Api;
  let token: string;
  let sibling: string;

  // the bodies come from ruleBody, whose overrides include bodies the API must refuse: the API checks them, not the compiler
  const create = (body: object) => api.POST('/api/v3/notifications', { headers: session(token), body: body as JsonBody<'createNotificationRule'> });
  const replace = (body: object) => api.PUT('/api/v3/notifications', { headers: session(token), body: body as JsonBody<'replaceNotificationRule'> });
  /** Raw: a body with a field or a value the document forbids, which the typed client cannot send. */
  const sendRaw = (method: ApiRequest['method'], path: string, body: Record<string, unknown>) => rawApi({ method, path, token, body });
  const read = async (id: number) => (await api.GET('/api/v3/notifications/{id}', { headers: session(token), params: { path: { id } } })).data!;
  const rulesNamed = async (name: string) =>
    ((await api.POST('/api/v3/notifications/find', { headers: session(token), body: { parentId: tenants.root.agentId } })).data ?? []).filter(
      (rule) => rule.name === name,
    );
  /** A rule with no channel but the history, which is valid on its own. */
  const quietRule = (overrides: Record<string, unknown> = {}) =>
    ruleBody(tenants.root.agentId, { enableSideEmails: false, sideEmails: [], ...overrides });

  beforeAll(async () => {
    emulators = await startTestEmulators('api-strict-bodies');
    tenants = await seedTenants('strict');
    api = typedApiClient();
    rawApi = apiClient();
    token = await login(api, tenants.root);
    sibling = await login(api, tenants.sibling);
  });
  afterAll(async () => emulators.stop());

  describe('unknown fields', () => {
    it('refuses a misspelt rule field, and a setting sent outside settings, naming each and storing nothing', async () => {
      const misspelt = await sendRaw('POST', '/api/v3/notifications', quietRule({ name: 'misspelt', vehicleIds: undefined, vehicleIDs: [101] }));
      expect(misspelt.status).toBe(400);
      expect(misspelt.body).toMatchObject({
        error: 'ValidationError',
        issues: [{ path: 'vehicleIDs', message: expect.stringMatching(/^unknown field \(known: .*vehicleIds/) }],
      });
      expect(misspelt.body.message).toContain('vehicleIDs: unknown field');

      const outside = await sendRaw('POST', '/api/v3/notifications', quietRule({ name: 'outside', schedule: 'Mon-Fri 08:00-18:00', Active: false }));
      expect(outside.status).toBe(400);
      expect(paths(outside.body)).toEqual(['Active', 'schedule']);
      expect(await rulesNamed('misspelt')).toEqual([]);
      expect(await rulesNamed('outside')).toEqual([]);
    });

    it('takes back a rule as GET answers it (read-only fields ignored), and refuses an unknown field on replace', async () => {
      const created = (await create(quietRule({ name: 'round trip' }))).data!;
      const record = await read(created.id);
      const edited = { ...record, name: 'round trip, edited', parentName: 'whatever', expiresAt: '2000-01-01T00:00:00.000Z', problems: [] };
      const put = await replace(edited);
      expect(put.response.status, JSON.stringify(put.error)).toBe(200);
      const after = await read(created.id);
      expect(after).toMatchObject({ name: 'round trip, edited', parentName: 'strict Root Logistics', expiresAt: record.expiresAt, version: 2 });
      expect(after).not.toHaveProperty('problems');

      const copy = await create({ ...after, name: 'round trip, copy' });
      expect(copy.response.status, JSON.stringify(copy.error)).toBe(200);
      expect(copy.data).toMatchObject({ name: 'round trip, copy', version: 1, parentName: 'strict Root Logistics' });
      expect(copy.data?.id).not.toBe(created.id);

      const refused = await sendRaw('PUT', '/api/v3/notifications', { ...after, vehicleIDs: [101] });
      expect(refused.status).toBe(400);
      expect(paths(refused.body)).toEqual(['vehicleIDs']);
      expect((await read(created.id)).version).toBe(2);
    });

    it('takes back a geozone as GET answers it, and refuses an unknown geozone field', async () => {
      const misspelt = await sendRaw('POST', '/api/v3/gis', depotZoneBody(tenants.root.agentId, { radious: 50 }));
      expect(misspelt.status).toBe(400);
      expect(paths(misspelt.body)).toEqual(['radious']);

      const zone = (
        await api.POST('/api/v3/gis', { headers: session(token), body: depotZoneBody(tenants.root.agentId) as JsonBody<'createGeozone'> })
      ).data!;
      const record = (await api.GET('/api/v3/gis/{id}', { headers: session(token), params: { path: { id: zone.id } } })).data!;
      const put = await api.PUT('/api/v3/gis', {
        headers: session(token),
        body: { ...record, name: 'Depot, edited', area: 1, perimetr: 1, createDate: '2000-01-01T00:00:00Z' },
      });
      expect(put.response.status, JSON.stringify(put.error)).toBe(200);
      expect(put.data).toMatchObject({
        name: 'Depot, edited',
        area: record.area,
        perimetr: record.perimetr,
        createDate: record.createDate,
        version: 2,
      });
      const refused = await sendRaw('PUT', '/api/v3/gis', { ...put.data, descripton: 'typo' });
      expect(refused.status).toBe(400);
      expect(paths(refused.body)).toEqual(['descripton']);
    });

    it('refuses an unknown field on every endpoint that takes a body, naming it', async () => {
      const withBody = apiRoutes.filter((route) => route.body);
      expect(withBody.length).toBeGreaterThan(10);
      for (const route of withBody) {
        // a page's form posts its fields urlencoded, every other body is JSON
        const form = route.requestType === 'application/x-www-form-urlencoded';
        const request: ApiRequest = {
          method: route.method,
          path: route.path.replace(/\{[a-z]+\}/gi, '1'),
          token,
          body: form ? 'surplusField=1' : { surplusField: 1 },
          ...(form ? { headers: { 'Content-Type': 'application/x-www-form-urlencoded' } } : {}),
        };
        const response = await rawApi(request);
        expect(response.status, `${route.method} ${route.path}`).toBe(400);
        expect(paths(response.body), `${route.method} ${route.path}`).toContain('surplusField');
      }
    });
  });

  describe('settings as JSON numbers and booleans', () => {
    it('stores numbers and booleans as their canonical strings and answers them as strings', async () => {
      const speeding = await create(quietRule({ name: 'numeric limit', settings: { limit: 80.5, minDuration: 0, schedule: 'Mon-Fri 08:00-18:00' } }));
      expect(speeding.response.status, JSON.stringify(speeding.error)).toBe(200);
      expect(speeding.data?.settings).toEqual({ limit: '80.5', minDuration: '0', schedule: 'Mon-Fri 08:00-18:00' });
      expect((await read(speeding.data!.id)).settings).toEqual({ limit: '80.5', minDuration: '0', schedule: 'Mon-Fri 08:00-18:00' });

      const drain = await create(quietRule({ type: 4, name: 'boolean setting', settings: { onlyParked: false, threshold: 12, window: 7 } }));
      expect(drain.response.status, JSON.stringify(drain.error)).toBe(200);
      expect(drain.data?.settings).toEqual({ onlyParked: 'false', threshold: '12', window: '7' });

      const replaced = await replace({ ...(await read(speeding.data!.id)), settings: { limit: 100 } });
      expect(replaced.response.status).toBe(200);
      expect((await read(speeding.data!.id)).settings).toEqual({ limit: '100' });
    });

    it('still judges a number by the setting it is for, and refuses null, objects and arrays (but for escalation) naming the key', async () => {
      const outOfRange = await create(quietRule({ settings: { limit: 5_000 } }));
      expect(outOfRange.response.status).toBe(400);
      expect(paths(outOfRange.error!)).toEqual(['settings.limit']);

      const oddWindow = await create(quietRule({ type: 4, settings: { window: 4 } }));
      expect(paths(oddWindow.error!)).toEqual(['settings.window']);

      const notScalars = await sendRaw('POST', '/api/v3/notifications', quietRule({ settings: { limit: null, minDuration: { value: 10 } } }));
      expect(notScalars.status).toBe(400);
      expect(paths(notScalars.body)).toEqual(['settings.limit', 'settings.minDuration']);
      expect(notScalars.body.issues[0].message).toBe('must be a string, a number, a boolean or (escalation) an array');
      // an array is kept as its JSON text, which a numeric setting refuses, naming it
      const array = await sendRaw('POST', '/api/v3/notifications', quietRule({ settings: { maxGap: [300] } }));
      expect(array.status).toBe(400);
      expect(paths(array.body)).toEqual(['settings.maxGap']);
    });
  });

  describe('channels that reach nobody', () => {
    it('refuses e-mail, side e-mail, Telegram and push switched on with nobody named, naming each switch', async () => {
      const { error, response } = await create(
        quietRule({ name: 'nobody', toEmail: true, enableSideEmails: true, toTelegram: true, toMobile: true }),
      );
      expect(response.status).toBe(400);
      expect(paths(error!)).toEqual(['enableSideEmails', 'toEmail', 'toMobile', 'toTelegram']);
      expect(error?.issues?.find((issue) => issue.path === 'toTelegram')?.message).toMatch(
        /list a chat in telegrams, or name in recipientIds a user/,
      );
      expect(await rulesNamed('nobody')).toEqual([]);
    });

    it('takes a stored rule with every channel off, and e-mail to a recipient', async () => {
      expect((await create(quietRule({ name: 'history only' }))).response.status).toBe(200);
      const mail = await create(quietRule({ toEmail: true, recipientIds: [tenants.root.userId] }));
      expect(mail.response.status, JSON.stringify(mail.error)).toBe(200);
      expect(mail.data?.problems).toBeUndefined();
    });

    it('takes Telegram and push for a recipient who has not linked a chat or registered a phone yet, naming them in problems until they do', async () => {
      const user = tenants.child.userId;
      const rule = quietRule({ name: 'phones and chats', toTelegram: true, toMobile: true, recipientIds: [user] });
      const created = await create(rule);
      expect(created.response.status, JSON.stringify(created.error)).toBe(200);
      const expected = [
        { path: 'recipientIds.0', message: expect.stringMatching(new RegExp(`^user ${user} has no linked Telegram chat yet.*toTelegram`)) },
        { path: 'recipientIds.0', message: expect.stringMatching(new RegExp(`^user ${user} has not registered a phone yet.*toMobile`)) },
      ];
      expect(created.data?.problems).toEqual(expected);
      expect((await read(created.data!.id)).problems).toEqual(expected);

      await linkChats(user, ['700700']);
      // no local SNS stand-in has platform endpoints (docs/deploy.md): the device is put on the user as a
      // registration through SNS would leave it
      await updateUserMapEntry(user, 'pushDevices', 'arn:aws:sns:us-east-1:000000000000:endpoint/GCM/fleetwatch/strict', {
        UpdateExpression: 'SET #map.#id = :device',
        ExpressionAttributeValues: {
          ':device': {
            platform: 'fcm',
            endpointArn: 'arn:aws:sns:us-east-1:000000000000:endpoint/GCM/fleetwatch/strict',
            registeredAt: '2026-03-01T08:00:00.000Z',
          },
        },
      });
      expect((await read(created.data!.id)).problems).toBeUndefined();

      // a switch that can never reach anyone is still refused
      const stripped = await replace({ ...(await read(created.data!.id)), recipientIds: [] });
      expect(stripped.response.status).toBe(400);
      expect(paths(stripped.error!)).toEqual(['toMobile', 'toTelegram']);
    });

    it('takes a rename after a recipient unlinked the chat the rule names, or was disabled, and names them in problems', async () => {
      const chatId = '900900';
      await linkChats(tenants.root.userId, [chatId]);
      const created = await create(
        quietRule({
          name: 'before the rename',
          toEmail: true,
          toTelegram: true,
          recipientIds: [tenants.root.userId, tenants.readOnly.userId],
          telegrams: [{ id: chatId, info: 'dispatch' }],
        }),
      );
      expect(created.response.status, JSON.stringify(created.error)).toBe(200);
      const unlinked = await api.DELETE('/api/v3/telegram/chats/{id}', { headers: session(token), params: { path: { id: chatId } } });
      expect(unlinked.response.status).toBe(200);
      const viewer = (await api.GET('/api/v3/users/{id}', { headers: session(token), params: { path: { id: tenants.readOnly.userId } } })).data!;
      const disabled = await api.PUT('/api/v3/users', {
        headers: session(token),
        body: { ...viewer, isEnabled: false } as JsonBody<'replaceUser'>,
      });
      expect(disabled.response.status, JSON.stringify(disabled.error)).toBe(200);

      const renamed = await replace({ ...(await read(created.data!.id)), name: 'after the rename' });
      expect(renamed.response.status, JSON.stringify(renamed.error)).toBe(200);
      const stored = await read(created.data!.id);
      expect(stored.name).toBe('after the rename');
      expect(stored.telegrams).toEqual([{ id: chatId, info: 'dispatch' }]);
      expect(stored.problems?.map((problem) => [problem.path, problem.message.split(':')[0]])).toEqual([
        ['recipientIds.0', `user ${tenants.root.userId} has no linked Telegram chat yet (or stopped it)`],
        ['recipientIds.1', `user ${tenants.readOnly.userId} is disabled`],
      ]);

      // a chat the edit adds is still checked: an unlinked one is refused
      const added = await replace({ ...stored, telegrams: [...stored.telegrams, { id: '900901', info: 'new' }] });
      expect(added.response.status).toBe(400);
      expect(paths(added.error!)).toEqual(['telegrams.1.id']);
    });

    it('refuses a recipient of another tenant, whatever chats it has', async () => {
      await linkChats(tenants.sibling.userId, ['800800']);
      const { error, response } = await create(quietRule({ toTelegram: true, recipientIds: [tenants.sibling.userId] }));
      expect(response.status).toBe(400);
      expect(paths(error!)).toEqual(['recipientIds.0']);
      const own = await api.POST('/api/v3/notifications', {
        headers: session(sibling),
        body: ruleBody(tenants.sibling.agentId, {
          toTelegram: true,
          recipientIds: [tenants.sibling.userId],
          vehicleIds: [202],
        }) as JsonBody<'createNotificationRule'>,
      });
      expect(own.response.status).toBe(200);
    });
  });
});
