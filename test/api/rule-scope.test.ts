import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { apiClient, login, ruleBody, seedTenants, squareZone, type Api } from './support';

/** settings.scope and the zone condition (settings.zones, zoneMode) through the HTTP API: validation and tenancy. */
describe('rule scope and zone condition over HTTP', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let api: Api;
  let rootToken: string;
  let childToken: string;
  let rootZone: number;
  let siblingZone: number;

  const paths = (response: { body: { issues?: { path: string }[] } }) => (response.body.issues ?? []).map((issue) => issue.path).sort();
  const create = (token: string, body: Record<string, unknown>) => api({ method: 'POST', path: '/api/v3/notifications', token, body });

  beforeAll(async () => {
    emulators = await startTestEmulators('api-rule-scope');
    tenants = await seedTenants('scope');
    api = apiClient();
    // one login after the other: the login throttle counts concurrent attempts from one address
    rootToken = await login(api, tenants.root);
    childToken = await login(api, tenants.child);
    const siblingToken = await login(api, tenants.sibling);
    rootZone = (await api({ method: 'POST', path: '/api/v3/gis', token: rootToken, body: squareZone(tenants.root.agentId) })).body.id;
    siblingZone = (await api({ method: 'POST', path: '/api/v3/gis', token: siblingToken, body: squareZone(tenants.sibling.agentId) })).body.id;
  });
  afterAll(async () => emulators.stop());

  it('takes a client or subtree scope with an empty vehicle list, and refuses one with vehicles naming vehicleIds', async () => {
    const scoped = await create(rootToken, ruleBody(tenants.root.agentId, { vehicleIds: [], settings: { limit: '90', scope: 'subtree' } }));
    expect(scoped.status).toBe(200);
    expect(scoped.body.settings.scope).toBe('subtree');
    const listed = await create(rootToken, ruleBody(tenants.root.agentId, { settings: { limit: '90', scope: 'client' } }));
    expect(listed.status).toBe(400);
    expect(paths(listed)).toEqual(['vehicleIds']);
    const unknown = await create(rootToken, ruleBody(tenants.root.agentId, { vehicleIds: [], settings: { limit: '90', scope: 'everyone' } }));
    expect(paths(unknown)).toEqual(['settings.scope']);
  });

  it("takes zones of the rule's client and of the clients above it, and refuses unknown or foreign ones naming settings.zones", async () => {
    const own = await create(rootToken, ruleBody(tenants.root.agentId, { settings: { limit: '90', zones: String(rootZone) } }));
    expect(own.status).toBe(200);
    // a rule of the child client may use its parent's zone
    const inherited = await create(
      childToken,
      ruleBody(tenants.child.agentId, {
        vehicleIds: [303],
        settings: { limit: '90', zones: String(rootZone), zoneMode: 'outside' },
        enableSideEmails: true,
      }),
    );
    expect(inherited.status).toBe(200);
    for (const zones of [String(siblingZone), '999999', `${rootZone},${siblingZone}`]) {
      const refused = await create(rootToken, ruleBody(tenants.root.agentId, { settings: { limit: '90', zones } }));
      expect(refused.status).toBe(400);
      expect(paths(refused)).toEqual(['settings.zones']);
    }
    const modeAlone = await create(rootToken, ruleBody(tenants.root.agentId, { settings: { limit: '90', zoneMode: 'outside' } }));
    expect(paths(modeAlone)).toEqual(['settings.zones']);
  });

  it("refuses a zone of a client below the rule's (zones may be shared down the tree, not up)", async () => {
    const childZone = (await api({ method: 'POST', path: '/api/v3/gis', token: childToken, body: squareZone(tenants.child.agentId) })).body.id;
    const refused = await create(rootToken, ruleBody(tenants.root.agentId, { settings: { limit: '90', zones: String(childZone) } }));
    expect(paths(refused)).toEqual(['settings.zones']);
  });

  it('refuses to delete a geozone a zone condition uses (409)', async () => {
    const zone = (await api({ method: 'POST', path: '/api/v3/gis', token: rootToken, body: squareZone(tenants.root.agentId, { name: 'Yard' }) })).body
      .id;
    const rule = await create(rootToken, ruleBody(tenants.root.agentId, { settings: { limit: '90', zones: String(zone) } }));
    expect(rule.status).toBe(200);
    const deletion = await api({ method: 'DELETE', path: `/api/v3/gis/${zone}`, token: rootToken });
    expect(deletion.status).toBe(409);
    expect(deletion.body.message).toContain('settings.zones');
    await api({ method: 'DELETE', path: `/api/v3/notifications/${rule.body.id}`, token: rootToken });
    expect((await api({ method: 'DELETE', path: `/api/v3/gis/${zone}`, token: rootToken })).status).toBe(200);
  });
});
