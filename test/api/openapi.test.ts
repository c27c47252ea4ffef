import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileErrors, validate } from '@readme/openapi-parser';
import { apiRoutes } from '../../shared/api/routes';
import { COMMON_SETTINGS_REFERENCE, SETTINGS_REFERENCE } from '../../shared/rules/settings-reference';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { apiClient, type Api } from './support';

/** A default as the settings tables show it: none, empty, or the value in backticks. */
interface Operation {
  operationId?: string;
  description?: string;
  tags: string[];
}

const shown = (value: string | null) => (value === null ? '—' : value === '' ? 'empty' : `\`${value}\``);

/**
 * Raw requests, not the typed client: these tests check the document itself, served as plain JSON, and which
 * the typed client's types are generated from.
 */
describe('OpenAPI document', () => {
  let emulators: Emulators;
  let api: Api;
  beforeAll(async () => {
    emulators = await startTestEmulators('api-openapi');
    api = apiClient();
  });
  afterAll(async () => emulators.stop());

  it('is served without a session and is a valid OpenAPI 3.1 document', async () => {
    const response = await api({ method: 'GET', path: '/api/v3/openapi.json' });
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(response.body));
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
  });

  it('describes exactly the routes the router serves, with their bodies and errors', async () => {
    const document = (await api({ method: 'GET', path: '/api/v3/openapi.json' })).body;
    const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(apiRoutes.map((route) => `${route.method} ${route.path}`).sort());
    const create = document.paths['/api/v3/notifications'].post;
    expect(create.requestBody.content['application/json'].schema.properties).toHaveProperty('vehicleIds');
    expect(Object.keys(create.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409', '429', '500', '503']);
    expect(document.paths['/api/v3/notifications/{id}'].get.parameters[0]).toMatchObject({ name: 'id', in: 'path', required: true });
    expect(document.paths['/api/v3/auth/login'].post.security).toBeUndefined();
    expect(document.paths['/api/v3/gis/find'].post.security).toEqual([{ XAuth: [] }]);
  });

  it("documents each rule type's settings with their defaults and meaning, and the default of every rule field", async () => {
    const document = (await api({ method: 'GET', path: '/api/v3/openapi.json' })).body;
    for (const [method, path] of [
      ['post', '/api/v3/notifications'],
      ['put', '/api/v3/notifications'],
    ] as const) {
      const schema = document.paths[path][method].requestBody.content['application/json'].schema;
      const settings: string = schema.properties.settings.description;
      for (const [type, reference] of Object.entries(SETTINGS_REFERENCE)) {
        expect(settings).toContain(`**type ${type}: ${reference.name}**`);
        for (const setting of reference.settings) {
          expect(settings).toContain(`| \`${setting.key}\` | ${shown(setting.default)} | ${setting.meaning} |`);
        }
      }
      for (const setting of COMMON_SETTINGS_REFERENCE) {
        expect(settings).toContain(`| \`${setting.key}\` | ${shown(setting.default)} | ${setting.meaning} |`);
      }
      expect(settings).toContain('| `schedule` | — | hours in which events raise alerts');
      expect(schema.properties.timezone.description).toMatch(/settings\.schedule.*default 3/);
      const required = new Set<string>(schema.required ?? []);
      for (const [field, property] of Object.entries(schema.properties as Record<string, { default?: unknown; description?: string }>)) {
        if (required.has(field)) continue;
        expect(property.description, `${path} ${field}`).toMatch(/default/);
        if (!/no default/.test(property.description!)) expect(property, `${path} ${field}`).toHaveProperty('default');
      }
      expect(schema.properties.active.default).toBe(true);
    }
  });

  it('shows every request body as closed (additionalProperties: false), and settings values as strings, numbers, booleans or (escalation) arrays', async () => {
    const document = (await api({ method: 'GET', path: '/api/v3/openapi.json' })).body;
    const bodies = Object.entries(
      document.paths as Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Record<string, unknown> }> } }>>,
    ).flatMap(([path, operations]) =>
      Object.entries(operations).flatMap(([method, operation]) =>
        operation.requestBody ? [[`${method} ${path}`, Object.values(operation.requestBody.content)[0]!.schema] as const] : [],
      ),
    );
    expect(bodies.map(([key]) => key).sort()).toEqual(
      apiRoutes
        .filter((route) => route.body)
        .map((route) => `${route.method.toLowerCase()} ${route.path}`)
        .sort(),
    );
    for (const [key, schema] of bodies) expect(schema.additionalProperties, key).toBe(false);
    const create = document.paths['/api/v3/notifications'].post.requestBody.content['application/json'].schema;
    expect(create.properties.settings.additionalProperties.anyOf.map((value: { type: string }) => value.type)).toEqual([
      'string',
      'number',
      'boolean',
      'array',
    ]);
    expect(create.properties.settings.description).toMatch(/80 as "80"/);
    expect(create.properties.expiresAt.description).toMatch(/read-only/);
    const answered = document.paths['/api/v3/notifications/{id}'].get.responses['200'].content['application/json'].schema;
    expect(answered.properties.settings.additionalProperties).toEqual({ type: 'string' });
  });

  it('gives every operation a unique camelCase operationId, a description and only tags the document declares', async () => {
    const document = (await api({ method: 'GET', path: '/api/v3/openapi.json' })).body;
    const declared = new Map((document.tags as { name: string; description?: string }[]).map((tag) => [tag.name, tag.description]));
    for (const [name, description] of declared) expect(description, `tag ${name}`).toMatch(/\w{3}/);
    const operations = [
      ...Object.entries(document.paths as Record<string, Record<string, Operation>>),
      ...Object.entries(document.webhooks as Record<string, Record<string, Operation>>),
    ].flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ key: `${method} ${path}`, ...operation })));
    expect(operations.length).toBeGreaterThan(apiRoutes.length);
    const used = new Set<string>();
    for (const operation of operations) {
      expect(operation.description, operation.key).toMatch(/\w{3}/);
      expect(operation.tags, operation.key).toHaveLength(1);
      for (const tag of operation.tags) {
        expect(declared.has(tag), `${operation.key}: tag ${tag} is not declared`).toBe(true);
        used.add(tag);
      }
    }
    expect([...used].sort()).toEqual([...declared.keys()].sort());
    const ids = operations.map((operation) => operation.operationId);
    for (const [index, id] of ids.entries()) expect(id, operations[index]!.key).toMatch(/^[a-z][a-zA-Z0-9]*$/);
    expect(new Set(ids).size).toBe(operations.length);
  });

  it('documents the error pages of the routes that answer pages as text/html, as they are answered', async () => {
    const document = (await api({ method: 'GET', path: '/api/v3/openapi.json' })).body;
    const answer = await api({ method: 'GET', path: '/api/v3/alerts/acknowledge/not-a-valid-link-token' });
    expect(answer.status).toBe(404);
    expect(answer.headers['Content-Type']).toMatch(/^text\/html/);
    const documented = document.paths['/api/v3/alerts/acknowledge/{token}'].get.responses;
    expect(Object.keys(documented['404'].content)).toEqual(['text/html']);
    expect(Object.keys(documented['400'].content)).toEqual(['application/json']);
    for (const route of apiRoutes.filter((candidate) => candidate.responseType === 'text/html')) {
      const responses = document.paths[route.path][route.method.toLowerCase()].responses;
      expect(Object.keys(responses[String(route.successStatus ?? 200)].content), route.path).toEqual(['text/html']);
      for (const status of route.errors ?? [])
        expect(Object.keys(responses[String(status)].content), `${route.path} ${status}`).toEqual(['text/html']);
    }
  });

  it("documents the short link of alert SMS as a 302 with its Location, and its unknown code's 404 as a page", async () => {
    const document = (await api({ method: 'GET', path: '/api/v3/openapi.json' })).body;
    const short = document.paths['/api/v3/alerts/s/{code}'].get;
    expect(short.security).toBeUndefined();
    expect(Object.keys(short.responses).sort()).toEqual(['302', '400', '404', '500']);
    expect(short.responses['302'].headers.Location).toMatchObject({ required: true, schema: { type: 'string' } });
    expect(short.responses['302'].content['text/html'].example).toContain('/api/v3/alerts/acknowledge/');
    expect(Object.keys(short.responses['404'].content)).toEqual(['text/html']);
    expect(short.parameters[0]).toMatchObject({ name: 'code', in: 'path', required: true, schema: { pattern: '^[0-9A-Za-z]{10}$' } });
  });

  it("documents the alert page's form, and both answers of the routes a page's button posts to", async () => {
    const document = (await api({ method: 'GET', path: '/api/v3/openapi.json' })).body;
    const post = document.paths['/api/v3/alerts/acknowledge/{token}'].post;
    expect(post.requestBody.required).toBe(false);
    expect(Object.keys(post.requestBody.content)).toEqual(['application/x-www-form-urlencoded']);
    expect(post.requestBody.content['application/x-www-form-urlencoded'].schema.properties.action.enum).toEqual([
      'acknowledge',
      'close',
      'muteVehicle',
      'muteRule',
    ]);
    expect(Object.keys(post.responses['410'].content)).toEqual(['text/html']);
    for (const route of apiRoutes.filter((candidate) => candidate.pageForBrowsers)) {
      const responses = document.paths[route.path][route.method.toLowerCase()].responses;
      expect(Object.keys(responses['200'].content), route.path).toEqual(['application/json', 'text/html']);
      for (const status of route.errors ?? [])
        expect(Object.keys(responses[String(status)].content), `${route.path} ${status}`).toEqual(['application/json', 'text/html']);
    }
    expect(apiRoutes.filter((route) => route.pageForBrowsers).map((route) => route.operationId)).toEqual([
      'confirmEmailAddress',
      'unsubscribeEmailAddress',
      'resubscribeEmailAddress',
    ]);
  });

  it('answers 404 for an endpoint that does not exist', async () => {
    const response = await api({ method: 'GET', path: '/api/v3/vehicles' });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'NotFound', message: 'no such endpoint' });
  });
});
