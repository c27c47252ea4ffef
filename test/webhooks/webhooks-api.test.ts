import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { randomBytes } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/dynamodb';
import { resourcesConfig } from '../../shared/config';
import { disableWebhook, listWebhooksWithSecrets } from '../../shared/store/webhooks-store';
import { startTestEmulators } from '../support/emulators';
import { TestClock, apiClient, login, seedTenants, session, typedApiClient, type Api, type JsonBody, type TypedApi } from '../api/support';
import { webhookKeys } from '../../shared/store/keys';

/**
 * `/api/v3/webhooks`: registration with the secret shown once, URL rules, the per-client cap, and tenancy:
 * a client sees and deletes only endpoints of its own scope; anything else is 404.
 */
describe('webhooks API', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  const clock = new TestClock();
  let api: TypedApi;
  /** For the requests the typed client cannot express: unknown fields, wrong types, and the document read as plain JSON. */
  let rawApi: Api;
  const tokens: Record<'root' | 'child' | 'sibling' | 'readOnly', string> = { root: '', child: '', sibling: '', readOnly: '' };

  beforeAll(async () => {
    emulators = await startTestEmulators('api-webhooks');
    tenants = await seedTenants('webhooks');
    api = typedApiClient({ now: clock.now });
    rawApi = apiClient({ now: clock.now });
    for (const name of Object.keys(tokens) as (keyof typeof tokens)[]) tokens[name] = await login(api, tenants[name]);
  });
  afterAll(async () => emulators.stop());
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  const register = (token: string, body: JsonBody<'createWebhook'>) => api.POST('/api/v3/webhooks', { headers: session(token), body });
  const list = async (token: string) => (await api.GET('/api/v3/webhooks', { headers: session(token) })).data ?? [];
  const remove = (token: string | undefined, id: string) =>
    api.DELETE('/api/v3/webhooks/{id}', { headers: session(token), params: { path: { id } } });

  it('registers an endpoint, shows its secret once, and lists it without the secret', async () => {
    const created = await register(tokens.root, { url: 'https://hooks.root.example.com/fleetwatch', description: 'ERP' });
    expect(created.response.status).toBe(200);
    expect(created.data).toMatchObject({
      parentId: tenants.root.agentId,
      url: 'https://hooks.root.example.com/fleetwatch',
      description: 'ERP',
      enabled: true,
      createdAt: new Date(clock.value).toISOString(),
      disabledAt: null,
      disabledReason: null,
    });
    expect(created.data?.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.data).toMatchObject({ signatureScheme: 'standard', events: [], ruleTypes: [], previousSecretExpiresAt: null });
    // stored as given, so deliveries can sign with it
    expect((await listWebhooksWithSecrets(tenants.root.agentId)).find((endpoint) => endpoint.id === created.data?.id)?.secret).toBe(
      created.data?.secret,
    );

    const listed = await api.GET('/api/v3/webhooks', { headers: session(tokens.root) });
    expect(listed.response.status).toBe(200);
    const mine = listed.data?.find((endpoint) => endpoint.id === created.data?.id);
    expect(mine).toMatchObject({ url: 'https://hooks.root.example.com/fleetwatch' });
    expect(mine).not.toHaveProperty('secret');
    expect(JSON.stringify(listed.data)).not.toContain(created.data!.secret);
  });

  it('refuses URLs that are not public https, naming the problem, and a URL the client already registered (409)', async () => {
    vi.stubEnv('WEBHOOK_ALLOW_PRIVATE_TARGETS', 'false'); // as deployed
    for (const [url, problem] of [
      ['http://hooks.example.com/', 'must be an https URL'],
      ['https://127.0.0.1/hook', 'loopback'],
      ['https://169.254.169.254/latest/meta-data/', 'linkLocal'],
      ['https://localhost:8443/', 'must name a public host'],
      ['https://localhost./', 'must name a public host'],
      ['https://[::7f00:1]/', 'outside IPv6 global unicast (2000::/3)'],
      ['https://[::a9fe:a9fe]/latest/meta-data/', 'outside IPv6 global unicast (2000::/3)'],
      ['https://admin:secret@hooks.example.com/', 'user name or password'],
      ['not a url', 'absolute URL'],
    ] as const) {
      const { error, response } = await register(tokens.sibling, { url });
      expect(response.status, url).toBe(400);
      expect(error?.issues?.[0], url).toMatchObject({ path: 'url', message: expect.stringContaining(problem) });
    }
    expect((await register(tokens.sibling, { url: 'https://hooks.sibling.example.com/a' })).response.status).toBe(200);
    expect((await register(tokens.sibling, { url: 'https://hooks.sibling.example.com/a' })).response.status).toBe(409);
  });

  it('caps the endpoints of one client (LIMIT_WEBHOOKS_PER_CLIENT, default 10)', async () => {
    vi.stubEnv('LIMIT_WEBHOOKS_PER_CLIENT', '2');
    expect((await register(tokens.child, { url: 'https://hooks.child.example.com/1' })).response.status).toBe(200);
    expect((await register(tokens.child, { url: 'https://hooks.child.example.com/2' })).response.status).toBe(200);
    const third = await register(tokens.child, { url: 'https://hooks.child.example.com/3' });
    expect(third.response.status).toBe(400);
    expect(third.error?.issues?.[0]).toEqual({ path: 'parentId', message: 'client already has 2 webhook endpoints, the most allowed' });
  });

  it("replays cross-tenant attempts: another tenant's endpoints are invisible and cannot be deleted or registered for (404)", async () => {
    const victim = await register(tokens.root, { url: 'https://hooks.root.example.com/victim' });
    const victimId = victim.data!.id;

    expect((await list(tokens.sibling)).map((endpoint) => endpoint.parentId)).not.toContain(tenants.root.agentId);
    const found = await api.POST('/api/v3/webhooks/find', { headers: session(tokens.sibling), body: { parentId: tenants.root.agentId } });
    expect(found.response.status).toBe(404);

    const deleted = await remove(tokens.sibling, victimId);
    expect(deleted.response.status).toBe(404);
    expect(deleted.error).toEqual({ error: 'NotFound', message: `webhook ${victimId} not found` });
    // a client below cannot touch its parent's endpoint either
    expect((await remove(tokens.child, victimId)).response.status).toBe(404);
    expect((await listWebhooksWithSecrets(tenants.root.agentId)).map((endpoint) => endpoint.id)).toContain(victimId);

    // registering for a foreign client: 404, as for any foreign parentId
    expect((await register(tokens.sibling, { url: 'https://evil.example.com/', parentId: tenants.root.agentId })).response.status).toBe(404);
    expect((await listWebhooksWithSecrets(tenants.root.agentId)).map((endpoint) => endpoint.url)).not.toContain('https://evil.example.com/');
  });

  it('lets a client manage the endpoints of a client below it, and deletes for good', async () => {
    const created = await register(tokens.root, { url: 'https://hooks.child.example.com/by-parent', parentId: tenants.child.agentId });
    expect(created.response.status).toBe(200);
    expect(created.data?.parentId).toBe(tenants.child.agentId);
    const id = created.data!.id;
    const found = await api.POST('/api/v3/webhooks/find', { headers: session(tokens.root), body: { parentId: tenants.child.agentId } });
    expect(found.data?.map((endpoint) => endpoint.id)).toContain(id);

    expect((await remove(tokens.root, id)).data).toBe('Success');
    expect((await remove(tokens.root, id)).response.status).toBe(404);
    expect((await listWebhooksWithSecrets(tenants.child.agentId)).map((endpoint) => endpoint.id)).not.toContain(id);
  });

  it('refuses changes to read-only users (403) and requests without a session (401)', async () => {
    expect((await register(tokens.readOnly, { url: 'https://hooks.root.example.com/ro' })).response.status).toBe(403);
    expect((await api.GET('/api/v3/webhooks')).response.status).toBe(401);
    expect((await remove(tokens.root, 'not-a-guid')).response.status).toBe(400);
  });

  it('documents the endpoints, their defaults, and the signed alert payload in the OpenAPI document', async () => {
    // raw: the document is inspected as plain JSON, not through the types generated from it
    const document = (await rawApi({ method: 'GET', path: '/api/v3/openapi.json' })).body;
    expect(Object.keys(document.paths['/api/v3/webhooks']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(document.paths['/api/v3/webhooks/{id}']).sort()).toEqual(['delete', 'get', 'put']);
    expect(Object.keys(document.paths['/api/v3/webhooks/{id}/rotate-secret'])).toEqual(['post']);
    const body = document.paths['/api/v3/webhooks'].post.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(['url']);
    expect(body.properties.description.default).toBe('');
    for (const field of ['parentId', 'description']) expect(body.properties[field].description).toMatch(/default/);
    const created = document.paths['/api/v3/webhooks'].post.responses['200'].content['application/json'].schema;
    expect(created.properties.secret.description).toMatch(/shown only in this answer/);

    const hook = document.webhooks.alert.post;
    expect(hook.parameters.map((parameter: { name: string }) => parameter.name)).toEqual([
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
      'X-Fleetwatch-Signature',
      'Idempotency-Key',
    ]);
    expect(hook.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/WebhookAlert' });
    const payload = document.components.schemas.WebhookAlert;
    expect(payload.required).toEqual(expect.arrayContaining(['type', 'alertId', 'createdAt', 'parentId', 'rule', 'vehicle', 'event']));
    expect(Object.keys(payload.properties.event.properties)).toEqual(['kind', 'time', 'latitude', 'longitude', 'speed', 'values']);
  });

  const update = (token: string, id: string, body: JsonBody<'updateWebhook'>) =>
    api.PUT('/api/v3/webhooks/{id}', { headers: session(token), params: { path: { id } }, body });
  const rotate = (token: string, id: string, body: JsonBody<'rotateWebhookSecret'> = {}) =>
    api.POST('/api/v3/webhooks/{id}/rotate-secret', { headers: session(token), params: { path: { id } }, body });

  it('filters by events and rule types on create and update, and refuses bad values naming the field', async () => {
    const created = await register(tokens.root, {
      url: 'https://hooks.root.example.com/filtered',
      events: ['zoneExit', 'connectionLost'],
      ruleTypes: [0],
    });
    expect(created.response.status).toBe(200);
    expect(created.data).toMatchObject({ events: ['zoneExit', 'connectionLost'], ruleTypes: [0] });
    const id = created.data!.id;

    const updated = await update(tokens.root, id, { ruleTypes: [0, 7], description: 'zones and links' });
    expect(updated.response.status).toBe(200);
    expect(updated.data).toMatchObject({ events: ['zoneExit', 'connectionLost'], ruleTypes: [0, 7], description: 'zones and links' });
    expect(updated.data).not.toHaveProperty('secret');
    const [stored] = (await listWebhooksWithSecrets(tenants.root.agentId)).filter((endpoint) => endpoint.id === id);
    expect(stored).toMatchObject({ ruleTypes: [0, 7], secret: created.data?.secret });

    // an unknown event kind and rule type: the API checks them, not the compiler
    const badCreate = await register(tokens.root, {
      url: 'https://hooks.root.example.com/bad',
      events: ['zoneExits'],
      ruleTypes: [1],
    } as unknown as JsonBody<'createWebhook'>);
    expect(badCreate.response.status).toBe(400);
    expect(badCreate.error?.issues?.map((issue) => issue.path).sort()).toEqual(['events.0', 'ruleTypes.0']);
    for (const [body, path] of [
      [{ signatureScheme: 'hmac' }, 'signatureScheme'],
      [{ events: 'zoneExit' }, 'events'],
      [{ secret: 'whsec_mine' }, 'secret'],
    ] as const) {
      // raw: a value outside the enum, a wrong type and an unknown field, which the typed client cannot send
      const response = await rawApi({ method: 'PUT', path: `/api/v3/webhooks/${id}`, token: tokens.root, body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.issues[0].path, JSON.stringify(body)).toBe(path);
    }
    for (const overlapHours of [-1, 169, 1.5]) {
      const response = await rotate(tokens.root, id, { overlapHours });
      expect(response.response.status, String(overlapHours)).toBe(400);
      expect(response.error?.issues?.[0]?.path).toBe('overlapHours');
    }
    // raw: a string where the document takes a number
    const stringHours = await rawApi({
      method: 'POST',
      path: `/api/v3/webhooks/${id}/rotate-secret`,
      token: tokens.root,
      body: { overlapHours: '24' },
    });
    expect(stringHours.status, '24').toBe(400);
    expect(stringHours.body.issues[0].path).toBe('overlapHours');
  });

  it('rotates a secret: the new one is answered once, the previous one kept until the overlap ends', async () => {
    const created = await register(tokens.root, { url: 'https://hooks.root.example.com/rotating' });
    const id = created.data!.id;
    const rotated = await rotate(tokens.root, id, { overlapHours: 48 });
    expect(rotated.response.status).toBe(200);
    expect(rotated.data?.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.data?.secret).not.toBe(created.data?.secret);
    expect(rotated.data?.previousSecretExpiresAt).toBe(new Date(clock.value + 48 * 3_600_000).toISOString());
    const [stored] = (await listWebhooksWithSecrets(tenants.root.agentId)).filter((endpoint) => endpoint.id === id);
    expect(stored).toMatchObject({ secret: rotated.data?.secret, previousSecret: created.data?.secret });

    const listed = await list(tokens.root);
    expect(JSON.stringify(listed)).not.toContain(rotated.data!.secret);
    expect(JSON.stringify(listed)).not.toContain(created.data!.secret);
    expect((await rotate(tokens.root, id)).data?.previousSecretExpiresAt).toBe(new Date(clock.value + 24 * 3_600_000).toISOString());
  });

  it('reads an endpoint stored without signatureScheme as fleetwatch-v1, and switches it to standard once its secret is rotated', async () => {
    const id = `${tenants.sibling.agentId}.${randomBytes(16).toString('base64url')}`;
    await documentClient().send(
      new PutCommand({
        TableName: resourcesConfig().DIRECTORY_TABLE,
        Item: {
          ...webhookKeys.endpoint(tenants.sibling.agentId, id),
          id,
          parentId: tenants.sibling.agentId,
          url: 'https://hooks.sibling.example.com/legacy',
          description: '',
          enabled: true,
          createdAt: new Date(clock.value).toISOString(),
          secret: 'whsec_legacy-secret_from-before-standard-webhooks',
        },
      }),
    );
    expect((await list(tokens.sibling)).find((endpoint) => endpoint.id === id)).toMatchObject({ signatureScheme: 'fleetwatch-v1', events: [] });

    const refused = await update(tokens.sibling, id, { signatureScheme: 'standard' });
    expect(refused.response.status).toBe(400);
    expect(refused.error?.issues?.[0]).toMatchObject({ path: 'signatureScheme', message: expect.stringContaining('rotate') });

    // rotating with no overlap leaves only the new, standard secret
    expect((await rotate(tokens.sibling, id, { overlapHours: 0 })).response.status).toBe(200);
    const switched = await update(tokens.sibling, id, { signatureScheme: 'standard' });
    expect(switched.response.status).toBe(200);
    expect(switched.data?.signatureScheme).toBe('standard');
    expect((await update(tokens.sibling, id, { signatureScheme: 'fleetwatch-v1' })).data?.signatureScheme).toBe('fleetwatch-v1');
  });

  it("answers 404 for another tenant's endpoint on update and rotation, and changes nothing", async () => {
    const victim = await register(tokens.root, { url: 'https://hooks.root.example.com/victim-rotation' });
    const victimId = victim.data!.id;
    for (const token of [tokens.sibling, tokens.child]) {
      const updated = await update(token, victimId, { events: ['panic'] });
      expect(updated.response.status).toBe(404);
      expect(updated.error).toEqual({ error: 'NotFound', message: `webhook ${victimId} not found` });
      expect((await rotate(token, victimId)).response.status).toBe(404);
    }
    const made = `${tenants.sibling.agentId}.${randomBytes(16).toString('base64url')}`;
    expect((await update(tokens.sibling, made, { events: [] })).response.status).toBe(404);
    expect((await rotate(tokens.sibling, made)).response.status).toBe(404);
    const [stored] = (await listWebhooksWithSecrets(tenants.root.agentId)).filter((endpoint) => endpoint.id === victimId);
    expect(stored).toMatchObject({ events: [], secret: victim.data?.secret, previousSecret: null });
  });

  it('shows an endpoint disabled after a 410 in the listing, and enables it again through PUT enabled: true (its tenant only)', async () => {
    const endpoint = (await register(tokens.root, { url: 'https://hooks.root.example.com/gone' })).data!;
    expect(await disableWebhook(tenants.root.agentId, endpoint.id, 'the endpoint answered 410 Gone', clock.value)).toBe(true);
    expect((await list(tokens.root)).find((shown) => shown.id === endpoint.id)).toMatchObject({
      enabled: false,
      disabledAt: new Date(clock.value).toISOString(),
      disabledReason: 'the endpoint answered 410 Gone',
    });

    expect((await update(tokens.sibling, endpoint.id, { enabled: true })).response.status).toBe(404);
    expect((await update(tokens.readOnly, endpoint.id, { enabled: true })).response.status).toBe(403);
    // raw: a string where the document takes a boolean
    const notBoolean = await rawApi({ method: 'PUT', path: `/api/v3/webhooks/${endpoint.id}`, token: tokens.root, body: { enabled: 'yes' } });
    expect(notBoolean.body.issues[0]).toMatchObject({ path: 'enabled' });
    const [stillDisabled] = (await listWebhooksWithSecrets(tenants.root.agentId)).filter((stored) => stored.id === endpoint.id);
    expect(stillDisabled).toMatchObject({ enabled: false });

    const enabled = await update(tokens.root, endpoint.id, { enabled: true });
    expect(enabled.response.status).toBe(200);
    expect(enabled.data).toMatchObject({ id: endpoint.id, enabled: true, disabledAt: null, disabledReason: null });
    const [stored] = (await listWebhooksWithSecrets(tenants.root.agentId)).filter((shown) => shown.id === endpoint.id);
    expect(stored).toMatchObject({ enabled: true, disabledAt: null, disabledReason: null, secret: endpoint.secret });

    const disabled = await update(tokens.root, endpoint.id, { enabled: false });
    expect(disabled.data).toMatchObject({
      enabled: false,
      disabledAt: new Date(clock.value).toISOString(),
      disabledReason: 'disabled through the API',
    });
  });
});
