import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { randomBytes } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/dynamodb';
import { resourcesConfig } from '../../shared/config';
import { webhookKeys } from '../../shared/schemas/webhook';
import { disableWebhook, listWebhooksWithSecrets } from '../../shared/store/webhooks-store';
import { startTestEmulators } from '../support/emulators';
import { TestClock, apiClient, login, seedTenants, type Api } from '../api/support';

/**
 * `/api/v3/webhooks`: registration with the secret shown once, URL rules, the per-client cap, and tenancy:
 * a client sees and deletes only endpoints of its own scope; anything else is 404.
 */
describe('webhooks API', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  const clock = new TestClock();
  let api: Api;
  const tokens: Record<'root' | 'child' | 'sibling' | 'readOnly', string> = { root: '', child: '', sibling: '', readOnly: '' };

  beforeAll(async () => {
    emulators = await startTestEmulators('api-webhooks');
    tenants = await seedTenants('webhooks');
    api = apiClient({ now: clock.now });
    for (const name of Object.keys(tokens) as (keyof typeof tokens)[]) tokens[name] = await login(api, tenants[name]);
  });
  afterAll(async () => emulators.stop());
  afterEach(() => {
    delete process.env.LIMIT_WEBHOOKS_PER_CLIENT;
    delete process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS;
  });

  const register = (token: string, body: Record<string, unknown>) => api({ method: 'POST', path: '/api/v3/webhooks', token, body });

  it('registers an endpoint, shows its secret once, and lists it without the secret', async () => {
    const created = await register(tokens.root, { url: 'https://hooks.root.example.com/fleetwatch', description: 'ERP' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      parentId: tenants.root.agentId,
      url: 'https://hooks.root.example.com/fleetwatch',
      description: 'ERP',
      enabled: true,
      createdAt: new Date(clock.value).toISOString(),
      disabledAt: null,
      disabledReason: null,
    });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.body).toMatchObject({ signatureScheme: 'standard', events: [], ruleTypes: [], previousSecretExpiresAt: null });
    // stored as given, so deliveries can sign with it
    expect((await listWebhooksWithSecrets(tenants.root.agentId)).find((endpoint) => endpoint.id === created.body.id)?.secret).toBe(
      created.body.secret,
    );

    const listed = await api({ method: 'GET', path: '/api/v3/webhooks', token: tokens.root });
    expect(listed.status).toBe(200);
    const mine = listed.body.find((endpoint: { id: string }) => endpoint.id === created.body.id);
    expect(mine).toMatchObject({ url: 'https://hooks.root.example.com/fleetwatch' });
    expect(mine).not.toHaveProperty('secret');
    expect(JSON.stringify(listed.body)).not.toContain(created.body.secret);
  });

  it('refuses URLs that are not public https, naming the problem, and a URL the client already registered (409)', async () => {
    process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'false'; // as deployed
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
      const response = await register(tokens.sibling, { url });
      expect(response.status, url).toBe(400);
      expect(response.body.issues[0], url).toMatchObject({ path: 'url', message: expect.stringContaining(problem) });
    }
    expect((await register(tokens.sibling, { url: 'https://hooks.sibling.example.com/a' })).status).toBe(200);
    expect((await register(tokens.sibling, { url: 'https://hooks.sibling.example.com/a' })).status).toBe(409);
  });

  it('caps the endpoints of one client (LIMIT_WEBHOOKS_PER_CLIENT, default 10)', async () => {
    process.env.LIMIT_WEBHOOKS_PER_CLIENT = '2';
    expect((await register(tokens.child, { url: 'https://hooks.child.example.com/1' })).status).toBe(200);
    expect((await register(tokens.child, { url: 'https://hooks.child.example.com/2' })).status).toBe(200);
    const third = await register(tokens.child, { url: 'https://hooks.child.example.com/3' });
    expect(third.status).toBe(400);
    expect(third.body.issues[0]).toEqual({ path: 'parentId', message: 'client already has 2 webhook endpoints, the most allowed' });
  });

  it("replays cross-tenant attempts: another tenant's endpoints are invisible and cannot be deleted or registered for (404)", async () => {
    const victim = await register(tokens.root, { url: 'https://hooks.root.example.com/victim' });
    const victimId = victim.body.id as string;

    const listed = await api({ method: 'GET', path: '/api/v3/webhooks', token: tokens.sibling });
    expect(listed.body.map((endpoint: { parentId: string }) => endpoint.parentId)).not.toContain(tenants.root.agentId);
    expect(
      (await api({ method: 'POST', path: '/api/v3/webhooks/find', token: tokens.sibling, body: { parentId: tenants.root.agentId } })).status,
    ).toBe(404);

    const deleted = await api({ method: 'DELETE', path: `/api/v3/webhooks/${victimId}`, token: tokens.sibling });
    expect(deleted.status).toBe(404);
    expect(deleted.body).toEqual({ error: 'NotFound', message: `webhook ${victimId} not found` });
    // a client below cannot touch its parent's endpoint either
    expect((await api({ method: 'DELETE', path: `/api/v3/webhooks/${victimId}`, token: tokens.child })).status).toBe(404);
    expect((await listWebhooksWithSecrets(tenants.root.agentId)).map((endpoint) => endpoint.id)).toContain(victimId);

    // registering for a foreign client: 404, as for any foreign parentId
    expect((await register(tokens.sibling, { url: 'https://evil.example.com/', parentId: tenants.root.agentId })).status).toBe(404);
    expect((await listWebhooksWithSecrets(tenants.root.agentId)).map((endpoint) => endpoint.url)).not.toContain('https://evil.example.com/');
  });

  it('lets a client manage the endpoints of a client below it, and deletes for good', async () => {
    const created = await register(tokens.root, { url: 'https://hooks.child.example.com/by-parent', parentId: tenants.child.agentId });
    expect(created.status).toBe(200);
    expect(created.body.parentId).toBe(tenants.child.agentId);
    const found = await api({ method: 'POST', path: '/api/v3/webhooks/find', token: tokens.root, body: { parentId: tenants.child.agentId } });
    expect(found.body.map((endpoint: { id: string }) => endpoint.id)).toContain(created.body.id);

    expect((await api({ method: 'DELETE', path: `/api/v3/webhooks/${created.body.id}`, token: tokens.root })).body).toBe('Success');
    expect((await api({ method: 'DELETE', path: `/api/v3/webhooks/${created.body.id}`, token: tokens.root })).status).toBe(404);
    expect((await listWebhooksWithSecrets(tenants.child.agentId)).map((endpoint) => endpoint.id)).not.toContain(created.body.id);
  });

  it('refuses changes to read-only users (403) and requests without a session (401)', async () => {
    expect((await register(tokens.readOnly, { url: 'https://hooks.root.example.com/ro' })).status).toBe(403);
    expect((await api({ method: 'GET', path: '/api/v3/webhooks' })).status).toBe(401);
    expect((await api({ method: 'DELETE', path: '/api/v3/webhooks/not-a-guid', token: tokens.root })).status).toBe(400);
  });

  it('documents the endpoints, their defaults, and the signed alert payload in the OpenAPI document', async () => {
    const document = (await api({ method: 'GET', path: '/api/v3/openapi.json' })).body;
    expect(Object.keys(document.paths['/api/v3/webhooks']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(document.paths['/api/v3/webhooks/{id}']).sort()).toEqual(['delete', 'put']);
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

  const update = (token: string, id: string, body: Record<string, unknown>) => api({ method: 'PUT', path: `/api/v3/webhooks/${id}`, token, body });
  const rotate = (token: string, id: string, body: Record<string, unknown> = {}) =>
    api({ method: 'POST', path: `/api/v3/webhooks/${id}/rotate-secret`, token, body });

  it('filters by events and rule types on create and update, and refuses bad values naming the field', async () => {
    const created = await register(tokens.root, {
      url: 'https://hooks.root.example.com/filtered',
      events: ['zoneExit', 'connectionLost'],
      ruleTypes: [0],
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ events: ['zoneExit', 'connectionLost'], ruleTypes: [0] });

    const updated = await update(tokens.root, created.body.id, { ruleTypes: [0, 7], description: 'zones and links' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ events: ['zoneExit', 'connectionLost'], ruleTypes: [0, 7], description: 'zones and links' });
    expect(updated.body).not.toHaveProperty('secret');
    const [stored] = (await listWebhooksWithSecrets(tenants.root.agentId)).filter((endpoint) => endpoint.id === created.body.id);
    expect(stored).toMatchObject({ ruleTypes: [0, 7], secret: created.body.secret });

    const badCreate = await register(tokens.root, { url: 'https://hooks.root.example.com/bad', events: ['zoneExits'], ruleTypes: [1] });
    expect(badCreate.status).toBe(400);
    expect(badCreate.body.issues.map((issue: { path: string }) => issue.path).sort()).toEqual(['events.0', 'ruleTypes.0']);
    for (const [body, path] of [
      [{ signatureScheme: 'hmac' }, 'signatureScheme'],
      [{ events: 'zoneExit' }, 'events'],
      [{ secret: 'whsec_mine' }, 'secret'],
    ] as const) {
      const response = await update(tokens.root, created.body.id, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.issues[0].path, JSON.stringify(body)).toBe(path);
    }
    for (const overlapHours of [-1, 169, 1.5, '24']) {
      const response = await rotate(tokens.root, created.body.id, { overlapHours });
      expect(response.status, String(overlapHours)).toBe(400);
      expect(response.body.issues[0].path).toBe('overlapHours');
    }
  });

  it('rotates a secret: the new one is answered once, the previous one kept until the overlap ends', async () => {
    const created = await register(tokens.root, { url: 'https://hooks.root.example.com/rotating' });
    const rotated = await rotate(tokens.root, created.body.id, { overlapHours: 48 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    expect(rotated.body.previousSecretExpiresAt).toBe(new Date(clock.value + 48 * 3_600_000).toISOString());
    const [stored] = (await listWebhooksWithSecrets(tenants.root.agentId)).filter((endpoint) => endpoint.id === created.body.id);
    expect(stored).toMatchObject({ secret: rotated.body.secret, previousSecret: created.body.secret });

    const listed = await api({ method: 'GET', path: '/api/v3/webhooks', token: tokens.root });
    expect(JSON.stringify(listed.body)).not.toContain(rotated.body.secret);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.secret);
    expect((await rotate(tokens.root, created.body.id)).body.previousSecretExpiresAt).toBe(new Date(clock.value + 24 * 3_600_000).toISOString());
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
    const listed = await api({ method: 'GET', path: '/api/v3/webhooks', token: tokens.sibling });
    expect(listed.body.find((endpoint: { id: string }) => endpoint.id === id)).toMatchObject({ signatureScheme: 'fleetwatch-v1', events: [] });

    const refused = await update(tokens.sibling, id, { signatureScheme: 'standard' });
    expect(refused.status).toBe(400);
    expect(refused.body.issues[0]).toMatchObject({ path: 'signatureScheme', message: expect.stringContaining('rotate') });

    // rotating with no overlap leaves only the new, standard secret
    expect((await rotate(tokens.sibling, id, { overlapHours: 0 })).status).toBe(200);
    const switched = await update(tokens.sibling, id, { signatureScheme: 'standard' });
    expect(switched.status).toBe(200);
    expect(switched.body.signatureScheme).toBe('standard');
    expect((await update(tokens.sibling, id, { signatureScheme: 'fleetwatch-v1' })).body.signatureScheme).toBe('fleetwatch-v1');
  });

  it("answers 404 for another tenant's endpoint on update and rotation, and changes nothing", async () => {
    const victim = await register(tokens.root, { url: 'https://hooks.root.example.com/victim-rotation' });
    for (const token of [tokens.sibling, tokens.child]) {
      const updated = await update(token, victim.body.id, { events: ['panic'] });
      expect(updated.status).toBe(404);
      expect(updated.body).toEqual({ error: 'NotFound', message: `webhook ${victim.body.id} not found` });
      expect((await rotate(token, victim.body.id)).status).toBe(404);
    }
    const made = `${tenants.sibling.agentId}.${randomBytes(16).toString('base64url')}`;
    expect((await update(tokens.sibling, made, { events: [] })).status).toBe(404);
    expect((await rotate(tokens.sibling, made)).status).toBe(404);
    const [stored] = (await listWebhooksWithSecrets(tenants.root.agentId)).filter((endpoint) => endpoint.id === victim.body.id);
    expect(stored).toMatchObject({ events: [], secret: victim.body.secret, previousSecret: null });
  });

  it('shows an endpoint disabled after a 410 in the listing, and enables it again through PUT enabled: true (its tenant only)', async () => {
    const endpoint = await register(tokens.root, { url: 'https://hooks.root.example.com/gone' });
    expect(await disableWebhook(tenants.root.agentId, endpoint.body.id, 'the endpoint answered 410 Gone', clock.value)).toBe(true);
    const listed = await api({ method: 'GET', path: '/api/v3/webhooks', token: tokens.root });
    expect(listed.body.find((shown: { id: string }) => shown.id === endpoint.body.id)).toMatchObject({
      enabled: false,
      disabledAt: new Date(clock.value).toISOString(),
      disabledReason: 'the endpoint answered 410 Gone',
    });

    expect((await update(tokens.sibling, endpoint.body.id, { enabled: true })).status).toBe(404);
    expect((await update(tokens.readOnly, endpoint.body.id, { enabled: true })).status).toBe(403);
    expect((await update(tokens.root, endpoint.body.id, { enabled: 'yes' })).body.issues[0]).toMatchObject({ path: 'enabled' });
    const [stillDisabled] = (await listWebhooksWithSecrets(tenants.root.agentId)).filter((stored) => stored.id === endpoint.body.id);
    expect(stillDisabled).toMatchObject({ enabled: false });

    const enabled = await update(tokens.root, endpoint.body.id, { enabled: true });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ id: endpoint.body.id, enabled: true, disabledAt: null, disabledReason: null });
    const [stored] = (await listWebhooksWithSecrets(tenants.root.agentId)).filter((shown) => shown.id === endpoint.body.id);
    expect(stored).toMatchObject({ enabled: true, disabledAt: null, disabledReason: null, secret: endpoint.body.secret });

    const disabled = await update(tokens.root, endpoint.body.id, { enabled: false });
    expect(disabled.body).toMatchObject({
      enabled: false,
      disabledAt: new Date(clock.value).toISOString(),
      disabledReason: 'disabled through the API',
    });
  });
});
