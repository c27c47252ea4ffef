import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { login, ruleBody, seedTenants, session, depotZoneBody, typedApiClient, type JsonBody, type TypedApi } from './support';

/** settings.scope and the zone condition (settings.zones, zoneMode) through the HTTP API: validation and tenancy. */
describe('rule scope and zone condition over HTTP', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let api: TypedApi;
  let rootToken: string;
  let childToken: string;
  let rootZone: number;
  let siblingZone: number;

  const paths = (result: { error?: { issues?: { path: string }[] } }) => (result.error?.issues ?? []).map((issue) => issue.path).sort();
  // the bodies include ones the API must refuse: the API checks them, not the compiler
  const create = (token: string, body: object) =>
    api.POST('/api/v3/notifications', { headers: session(token), body: body as JsonBody<'createNotificationRule'> });
  const createZone = async (token: string, body: object) =>
    (await api.POST('/api/v3/gis', { headers: session(token), body: body as JsonBody<'createGeozone'> })).data!.id;
  const deleteZone = (token: string, id: number) => api.DELETE('/api/v3/gis/{id}', { headers: session(token), params: { path: { id } } });

  beforeAll(async () => {
    emulators = await startTestEmulators('api-rule-scope');
    tenants = await seedTenants('scope');
    api = typedApiClient();
    // one login after the other: the login throttle counts concurrent attempts from one address
    rootToken = await login(api, tenants.root);
    childToken = await login(api, tenants.child);
    const siblingToken = await login(api, tenants.sibling);
    rootZone = await createZone(rootToken, depotZoneBody(tenants.root.agentId));
    siblingZone = await createZone(siblingToken, depotZoneBody(tenants.sibling.agentId));
  });
  afterAll(async () => emulators.stop());

  it('takes a client or subtree scope with an empty vehicle list, and refuses one with vehicles naming vehicleIds', async () => {
    const scoped = await create(rootToken, ruleBody(tenants.root.agentId, { vehicleIds: [], settings: { limit: '90', scope: 'subtree' } }));
    expect(scoped.response.status).toBe(200);
    expect(scoped.data?.settings.scope).toBe('subtree');
    const listed = await create(rootToken, ruleBody(tenants.root.agentId, { settings: { limit: '90', scope: 'client' } }));
    expect(listed.response.status).toBe(400);
    expect(paths(listed)).toEqual(['vehicleIds']);
    const unknown = await create(rootToken, ruleBody(tenants.root.agentId, { vehicleIds: [], settings: { limit: '90', scope: 'everyone' } }));
    expect(paths(unknown)).toEqual(['settings.scope']);
  });

  it("takes zones of the rule's client and of the clients above it, and refuses unknown or foreign ones naming settings.zones", async () => {
    const own = await create(rootToken, ruleBody(tenants.root.agentId, { settings: { limit: '90', zones: String(rootZone) } }));
    expect(own.response.status).toBe(200);
    // a rule of the child client may use its parent's zone
    const inherited = await create(
      childToken,
      ruleBody(tenants.child.agentId, {
        vehicleIds: [303],
        settings: { limit: '90', zones: String(rootZone), zoneMode: 'outside' },
        enableSideEmails: true,
      }),
    );
    expect(inherited.response.status).toBe(200);
    for (const zones of [String(siblingZone), '999999', `${rootZone},${siblingZone}`]) {
      const refused = await create(rootToken, ruleBody(tenants.root.agentId, { settings: { limit: '90', zones } }));
      expect(refused.response.status).toBe(400);
      expect(paths(refused)).toEqual(['settings.zones']);
    }
    const modeAlone = await create(rootToken, ruleBody(tenants.root.agentId, { settings: { limit: '90', zoneMode: 'outside' } }));
    expect(paths(modeAlone)).toEqual(['settings.zones']);
  });

  it("refuses a zone of a client below the rule's (zones may be shared down the tree, not up)", async () => {
    const childZone = await createZone(childToken, depotZoneBody(tenants.child.agentId));
    const refused = await create(rootToken, ruleBody(tenants.root.agentId, { settings: { limit: '90', zones: String(childZone) } }));
    expect(paths(refused)).toEqual(['settings.zones']);
  });

  it('refuses to delete a geozone a zone condition uses (409)', async () => {
    const zone = await createZone(rootToken, depotZoneBody(tenants.root.agentId, { name: 'Yard' }));
    const rule = await create(rootToken, ruleBody(tenants.root.agentId, { settings: { limit: '90', zones: String(zone) } }));
    expect(rule.response.status).toBe(200);
    const deletion = await deleteZone(rootToken, zone);
    expect(deletion.response.status).toBe(409);
    expect(deletion.error?.message).toContain('settings.zones');
    await api.DELETE('/api/v3/notifications/{id}', { headers: session(rootToken), params: { path: { id: rule.data!.id } } });
    expect((await deleteZone(rootToken, zone)).response.status).toBe(200);
  });
});
