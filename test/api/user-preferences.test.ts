import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getUser } from '../../shared/store/directory-store';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { apiClient, login, seedTenants, session, typedApiClient, type Api, type JsonBody, type TypedApi } from './support';

type Issue = { path: string; message: string };
const paths = (body: { issues?: Issue[] }) => (body.issues ?? []).map((issue) => issue.path).sort();

/**
 * GET and PUT /api/v3/users/{id}/preferences on DynamoDB Local: quiet hours and each channel's least severity,
 * kept on the user's record. Attacks replayed: reading or setting another tenant's user by id, and a read-only
 * user setting someone else's preferences.
 */
describe('user preferences', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let api: TypedApi;
  /** For the requests the typed client cannot express: unknown fields and values the document forbids. */
  let rawApi: Api;
  let root: string;
  let sibling: string;
  let viewer: string;

  beforeAll(async () => {
    emulators = await startTestEmulators('api-user-preferences');
    tenants = await seedTenants('prefs');
    api = typedApiClient();
    rawApi = apiClient();
    root = await login(api, tenants.root);
    sibling = await login(api, tenants.sibling);
    viewer = await login(api, tenants.readOnly);
  });
  afterAll(async () => emulators.stop());

  const read = (token: string, id: string) => api.GET('/api/v3/users/{id}/preferences', { headers: session(token), params: { path: { id } } });
  const replace = (token: string, id: string, body: JsonBody<'replaceUserPreferences'>) =>
    api.PUT('/api/v3/users/{id}/preferences', { headers: session(token), params: { path: { id } }, body });
  /** Raw: a body the document forbids, which the typed client cannot send. */
  const replaceRaw = (token: string, id: string, body: unknown) => rawApi({ method: 'PUT', path: `/api/v3/users/${id}/preferences`, token, body });

  it('answers the defaults for a user that never set any: no quiet hours, info on every channel', async () => {
    const { data, response } = await read(root, tenants.child.userId);
    expect(response.status).toBe(200);
    expect(data).toEqual({ quietHours: null, minSeverity: { email: 'info', telegram: 'info', push: 'info' } });
  });

  it('stores quiet hours crossing midnight with the user, fills left-out channels with info, and reads them back', async () => {
    const body = { quietHours: { from: '22:00', to: '07:00', timezone: 'Europe/Berlin' }, minSeverity: { push: 'critical' as const } };
    const put = await replace(root, tenants.child.userId, body);
    expect(put.response.status).toBe(200);
    const expected = { quietHours: body.quietHours, minSeverity: { email: 'info', telegram: 'info', push: 'critical' } };
    expect(put.data).toEqual(expected);
    expect((await read(root, tenants.child.userId)).data).toEqual(expected);
    expect((await getUser(tenants.child.userId))?.preferences).toEqual(expected);

    // PUT replaces the whole set: what is not sent takes its default
    const cleared = await replace(root, tenants.child.userId, { minSeverity: { email: 'warning' } });
    expect(cleared.data).toEqual({ quietHours: null, minSeverity: { email: 'warning', telegram: 'info', push: 'info' } });
    expect((await read(root, tenants.child.userId)).data).toEqual(cleared.data);
  });

  it('keeps the preferences when the user record itself is replaced', async () => {
    const preferences = {
      quietHours: { from: '23:30', to: '06:15', timezone: 'Asia/Baku' },
      minSeverity: { email: 'info', telegram: 'warning', push: 'info' },
    } as const;
    await replace(root, tenants.root.userId, preferences);
    const replaced = await api.PUT('/api/v3/users', {
      headers: session(root),
      body: { id: tenants.root.userId, parentId: tenants.root.agentId, firstName: 'Renamed' },
    });
    expect(replaced.response.status).toBe(200);
    expect((await read(root, tenants.root.userId)).data).toEqual(preferences);
  });

  it('refuses bad values with a 400 naming each field, and stores nothing', async () => {
    const before = (await read(root, tenants.child.userId)).data;
    const cases: { body: unknown; fields: string[] }[] = [
      { body: { quietHours: { from: '22:00', to: '22:00', timezone: 'UTC' } }, fields: ['quietHours.to'] },
      { body: { quietHours: { from: '24:00', to: '7:00', timezone: 'Europe/Berlin' } }, fields: ['quietHours.from', 'quietHours.to'] },
      { body: { quietHours: { from: '22:00', to: '07:00', timezone: 'Mars/Olympus_Mons' } }, fields: ['quietHours.timezone'] },
      { body: { quietHours: { from: '22:00', to: '07:00' } }, fields: ['quietHours.timezone'] },
      { body: { minSeverity: { email: 'urgent' } }, fields: ['minSeverity.email'] },
      // unknown fields, at every level
      { body: { quietHours: null, snooze: true }, fields: ['snooze'] },
      { body: { quietHours: { from: '22:00', to: '07:00', timezone: 'UTC', days: 'Mon-Fri' } }, fields: ['quietHours.days'] },
      { body: { minSeverity: { sms: 'info' } }, fields: ['minSeverity.sms'] },
    ];
    for (const { body, fields } of cases) {
      const answer = await replaceRaw(root, tenants.child.userId, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(paths(answer.body), JSON.stringify(body)).toEqual(fields);
    }
    const unknown = await replaceRaw(root, tenants.child.userId, { snooze: true });
    expect(unknown.body.issues[0].message).toMatch(/^unknown field \(known: quietHours, minSeverity\)/);
    expect((await read(root, tenants.child.userId)).data).toEqual(before);
  });

  it("answers 404 for another tenant's user, on read and on write, and changes nothing", async () => {
    expect((await read(sibling, tenants.root.userId)).response.status).toBe(404);
    expect((await read(root, tenants.sibling.userId)).response.status).toBe(404);
    // a child client's user cannot reach the client above it
    expect((await read(await login(api, tenants.child), tenants.root.userId)).response.status).toBe(404);
    const before = (await read(root, tenants.root.userId)).data;
    const write = await replace(sibling, tenants.root.userId, { quietHours: null });
    expect(write.response.status).toBe(404);
    expect((await read(root, tenants.root.userId)).data).toEqual(before);
    expect((await read(root, '00000000-0000-4000-8000-000000000000')).response.status).toBe(404);
  });

  it("lets a read-only user read anyone's of its scope and set its own, but answers 403 for someone else's", async () => {
    expect((await read(viewer, tenants.child.userId)).response.status).toBe(200);
    const own = await replace(viewer, tenants.readOnly.userId, { quietHours: { from: '21:00', to: '06:00', timezone: 'Europe/Moscow' } });
    expect(own.response.status).toBe(200);
    expect((await read(viewer, tenants.readOnly.userId)).data?.quietHours).toEqual({ from: '21:00', to: '06:00', timezone: 'Europe/Moscow' });

    const before = (await read(root, tenants.child.userId)).data;
    const other = await replace(viewer, tenants.child.userId, { quietHours: null });
    expect(other.response.status).toBe(403);
    expect(other.error?.error).toBe('Forbidden');
    expect((await read(root, tenants.child.userId)).data).toEqual(before);
    // a writer sets the preferences of a user below it
    expect((await replace(root, tenants.readOnly.userId, {})).response.status).toBe(200);
  });

  it('needs a session', async () => {
    expect((await api.GET('/api/v3/users/{id}/preferences', { params: { path: { id: tenants.root.userId } } })).response.status).toBe(401);
  });
});
