import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Emulators } from '../../infra/local/emulators';
import { documentClient } from '../../shared/aws/dynamodb';
import { resourcesConfig } from '../../shared/config';
import { createAgent, createUser } from '../../shared/store/directory-store';
import { newRuleRecord, ruleItem } from '../../shared/store/rules-store';
import { notificationBodySchema } from '../../shared/schemas/notification';
import { startTestEmulators } from '../support/emulators';
import {
  TestClock,
  login,
  ruleBody,
  seedTenants,
  session,
  depotZoneBody,
  typedApiClient,
  type JsonBody,
  type Tenant,
  type TypedApi,
} from '../api/support';
import { webhookKeys } from '../../shared/store/keys';

/**
 * Attacks replayed: many parallel creates, each from a fresh session so that no per-session rate limit
 * spaces them out, stored 13 webhook endpoints against a limit of 10 and one URL several times, because each
 * request counted what was stored, compared, then wrote. Rules and geozones counted on an eventually consistent
 * index the same way. Each limit and the URL's uniqueness now hold in the create's own transaction.
 */
describe('security: per-client limits under parallel requests', () => {
  let emulators: Emulators;
  let api: TypedApi;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  const clock = new TestClock();

  beforeAll(async () => {
    emulators = await startTestEmulators('sec-parallel-limits');
    vi.stubEnv('LIMIT_RULES_PER_CLIENT', '3');
    vi.stubEnv('LIMIT_GEOZONES_PER_CLIENT', '2');
    vi.stubEnv('LIMIT_WEBHOOKS_PER_CLIENT', '3');
    tenants = await seedTenants('parlimits');
    api = typedApiClient({ now: clock.now });
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await emulators.stop();
  });

  /** `count` sessions of the tenant's user, one per request to come. */
  const sessions = async (tenant: Tenant, count: number) => {
    const tokens: string[] = [];
    for (let index = 0; index < count; index++) tokens.push(await login(api, tenant));
    return tokens;
  };
  /** Sends one request per session, all at once, and answers the statuses sorted, with the answers. */
  const inParallel = async <Answer extends { response: Response }>(tokens: string[], request: (token: string, index: number) => Promise<Answer>) => {
    const answers = await Promise.all(tokens.map((token, index) => request(token, index)));
    return { statuses: answers.map((answer) => answer.response.status).sort(), answers };
  };
  const createRule = (token: string, parentId: string, name = 'Speeding') =>
    api.POST('/api/v3/notifications', {
      headers: session(token),
      body: ruleBody(parentId, { name, vehicleIds: [] }) as JsonBody<'createNotificationRule'>,
    });
  const rulesOf = async (token: string, parentId: string) => {
    const found = await api.POST('/api/v3/notifications/find', { headers: session(token), body: { parentId } });
    return (found.data ?? []).filter((rule) => rule.parentId === parentId);
  };
  const register = (token: string, parentId: string, url: string) =>
    api.POST('/api/v3/webhooks', { headers: session(token), body: { parentId, url, description: '' } });
  const webhooksOf = async (token: string, parentId: string) =>
    (await api.POST('/api/v3/webhooks/find', { headers: session(token), body: { parentId } })).data ?? [];
  const createZone = (token: string, parentId: string) =>
    api.POST('/api/v3/gis', { headers: session(token), body: depotZoneBody(parentId) as JsonBody<'createGeozone'> });
  const deleteRule = (token: string | undefined, id: number) =>
    api.DELETE('/api/v3/notifications/{id}', { headers: session(token), params: { path: { id } } });
  const deleteWebhook = (token: string | undefined, id: string) =>
    api.DELETE('/api/v3/webhooks/{id}', { headers: session(token), params: { path: { id } } });

  it('stores exactly the rule limit from parallel creates, answers the rest 400 naming parentId, and a deletion frees a slot', async () => {
    const { root } = tenants;
    const tokens = await sessions(root, 8);
    const { statuses, answers } = await inParallel(tokens, (token, index) => createRule(token, root.agentId, `Speeding ${index}`));
    expect(statuses).toEqual([200, 200, 200, 400, 400, 400, 400, 400]);
    for (const refused of answers.filter((answer) => answer.response.status === 400)) {
      expect(refused.error?.issues).toEqual([{ path: 'parentId', message: 'client already has 3 notification rules, the most allowed' }]);
    }
    const stored = await rulesOf(tokens[0]!, root.agentId);
    expect(stored).toHaveLength(3);

    expect((await deleteRule(tokens[0], stored[0]!.id)).response.status).toBe(200);
    const again = await inParallel(await sessions(root, 3), (token) => createRule(token, root.agentId));
    expect(again.statuses).toEqual([200, 400, 400]);
    expect(await rulesOf(tokens[0]!, root.agentId)).toHaveLength(3);
  });

  it('moves the count with a rule moved to another client', async () => {
    const { root, child } = tenants;
    const [rootToken, childToken] = [await login(api, root), await login(api, child)];
    const childRule = (await createRule(childToken, child.agentId)).data!;
    const move = (token: string) =>
      api.PUT('/api/v3/notifications', { headers: session(token), body: { ...childRule, parentId: root.agentId, version: undefined } });
    // root is full (the test before left it at its limit)
    const refused = await move(rootToken);
    expect(refused.response.status).toBe(400);
    expect(refused.error?.issues).toEqual([{ path: 'parentId', message: 'client already has 3 notification rules, the most allowed' }]);

    const rootRules = await rulesOf(rootToken, root.agentId);
    await deleteRule(rootToken, rootRules[0]!.id);
    expect((await move(rootToken)).response.status).toBe(200);
    // root is full again, and the child has all three of its slots
    expect((await createRule(rootToken, root.agentId)).response.status).toBe(400);
    const { statuses } = await inParallel(await sessions(child, 5), (token) => createRule(token, child.agentId));
    expect(statuses).toEqual([200, 200, 200, 400, 400]);
  });

  it('stores exactly the geozone limit from parallel creates, and a deletion frees a slot', async () => {
    const { sibling } = tenants;
    const tokens = await sessions(sibling, 6);
    const { statuses, answers } = await inParallel(tokens, (token) => createZone(token, sibling.agentId));
    expect(statuses).toEqual([200, 200, 400, 400, 400, 400]);
    for (const refused of answers.filter((answer) => answer.response.status === 400)) {
      expect(refused.error?.issues).toEqual([{ path: 'parentId', message: 'client already has 2 geozones, the most allowed' }]);
    }
    const zones = (await api.POST('/api/v3/gis/find', { headers: session(tokens[0]), body: { parentId: sibling.agentId } })).data ?? [];
    expect(zones.filter((zone) => zone.parentId === sibling.agentId)).toHaveLength(2);

    const deleted = await api.DELETE('/api/v3/gis/{id}', { headers: session(tokens[0]), params: { path: { id: zones[0]!.id } } });
    expect(deleted.response.status).toBe(200);
    const again = await inParallel(await sessions(sibling, 3), (token) => createZone(token, sibling.agentId));
    expect(again.statuses).toEqual([200, 400, 400]);
  });

  it('stores exactly the webhook limit from parallel registrations, answering the rest 400 naming parentId', async () => {
    const { child } = tenants;
    const tokens = await sessions(child, 10);
    const { statuses, answers } = await inParallel(tokens, (token, index) =>
      register(token, child.agentId, `https://hooks.example.com/child/${index}`),
    );
    expect(statuses).toEqual([200, 200, 200, 400, 400, 400, 400, 400, 400, 400]);
    for (const refused of answers.filter((answer) => answer.response.status === 400)) {
      expect(refused.error?.issues).toEqual([{ path: 'parentId', message: 'client already has 3 webhook endpoints, the most allowed' }]);
    }
    const stored = await webhooksOf(tokens[0]!, child.agentId);
    expect(stored).toHaveLength(3);

    expect((await deleteWebhook(tokens[0], stored[0]!.id)).response.status).toBe(200);
    const again = await inParallel(await sessions(child, 3), (token, index) =>
      register(token, child.agentId, `https://hooks.example.com/child/again/${index}`),
    );
    expect(again.statuses).toEqual([200, 400, 400]);
  });

  it('stores one URL once from parallel registrations, answering the rest 409, and frees it when the endpoint is deleted', async () => {
    const { sibling } = tenants;
    const url = 'https://hooks.example.com/sibling/alerts';
    const tokens = await sessions(sibling, 6);
    const { statuses } = await inParallel(tokens, (token) => register(token, sibling.agentId, url));
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409]);
    const stored = await webhooksOf(tokens[0]!, sibling.agentId);
    expect(stored.map((endpoint) => endpoint.url)).toEqual([url]);

    expect((await deleteWebhook(tokens[0], stored[0]!.id)).response.status).toBe(200);
    expect((await register(tokens[1]!, sibling.agentId, url)).response.status).toBe(200);
    expect((await register(tokens[2]!, sibling.agentId, url)).response.status).toBe(409);
  });

  it('counts the records a client stored before counters existed', async () => {
    const agent = await createAgent({ name: 'parlimits Legacy Haulage' });
    const tenant: Tenant = { agentId: agent.agentId, login: 'parlimits-legacy', password: 'pw-legacy-parlimits', userId: '' };
    tenant.userId = (await createUser({ parentId: agent.agentId, login: tenant.login, password: tenant.password, email: 'legacy@example.com' })).id;
    // records as an earlier version wrote them: no counter item, no URL set
    const { RULES_TABLE, DIRECTORY_TABLE } = resourcesConfig();
    const body = notificationBodySchema.parse({ type: 2, parentId: agent.agentId, name: 'Old rule', settings: { limit: '90' } });
    for (const id of [900_001, 900_002]) {
      await documentClient().send(
        new PutCommand({ TableName: RULES_TABLE, Item: ruleItem({ ...newRuleRecord(body, agent.name, clock.value), id }) }),
      );
    }
    const legacyUrl = 'https://hooks.example.com/legacy';
    await documentClient().send(
      new PutCommand({
        TableName: DIRECTORY_TABLE,
        Item: {
          ...webhookKeys.endpoint(agent.agentId, '7d7c3bb0-6a4e-4a43-9a55-2f4c8e1d0b11'),
          gsi1pk: 'WEBHOOK#7d7c3bb0-6a4e-4a43-9a55-2f4c8e1d0b11',
          gsi1sk: 'ENDPOINT',
          id: '7d7c3bb0-6a4e-4a43-9a55-2f4c8e1d0b11',
          parentId: agent.agentId,
          url: legacyUrl,
          description: '',
          enabled: true,
          createdAt: new Date(clock.value).toISOString(),
          secret: 'whsec_legacylegacylegacylegacy',
        },
      }),
    );

    const rules = await inParallel(await sessions(tenant, 4), (token) => createRule(token, agent.agentId));
    expect(rules.statuses).toEqual([200, 400, 400, 400]);
    const tokens = await sessions(tenant, 4);
    expect((await register(tokens[0]!, agent.agentId, legacyUrl)).response.status).toBe(409);
    const hooks = await inParallel(tokens, (token, index) => register(token, agent.agentId, `${legacyUrl}/${index}`));
    expect(hooks.statuses).toEqual([200, 200, 400, 400]);
    // deleting the old endpoint frees its URL and its slot
    expect((await deleteWebhook(tokens[0], '7d7c3bb0-6a4e-4a43-9a55-2f4c8e1d0b11')).response.status).toBe(200);
    expect((await register(tokens[1]!, agent.agentId, legacyUrl)).response.status).toBe(200);
  });
});
