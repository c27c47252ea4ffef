import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import type { z } from 'zod';
import type { ApiRoute } from './route';
import { errorResponseSchema } from './schemas';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad JSON or a schema violation; `issues` lists each problem',
  401: 'Missing or ended session',
  403: 'The user has read-only rights',
  404: 'No such record in your scope',
  409: 'Stale version, or the record is still referenced',
  429: 'Too many requests on this session (or failed logins); see Retry-After',
  500: 'Unexpected error; the body carries a correlation id',
  503: 'A service the request needs (the geocoder) did not answer; try again later',
};

/** The OpenAPI 3.1 document of the API, generated from the same zod schemas the routes validate with. */
export function buildOpenApiDocument(routes: readonly ApiRoute[]): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'XAuth', { type: 'apiKey', in: 'header', name: 'X-Auth' });
  for (const route of routes) {
    const errors = [400, ...(route.auth ? [401, 429] : []), ...(route.path === '/api/v3/auth/login' ? [401, 429] : []), ...(route.errors ?? []), 500];
    registry.registerPath({
      method: route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete',
      path: route.path,
      tags: [route.tag],
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      ...(route.auth ? { security: [{ XAuth: [] }] } : {}),
      request: {
        ...(route.params ? { params: route.params as z.ZodObject } : {}),
        ...(route.body ? { body: { required: true, content: { 'application/json': { schema: route.body } } } } : {}),
      },
      responses: {
        200: { description: 'Success', content: { 'application/json': { schema: route.response } } },
        ...Object.fromEntries(
          [...new Set(errors)].map((status) => [
            status,
            { description: STATUS_TEXT[status] ?? 'Error', content: { 'application/json': { schema: errorResponseSchema } } },
          ]),
        ),
      },
    });
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'fleetwatch API',
      version: '3.0.0',
      description:
        'Notification rules, geozones and alert history of fleetwatch, following the paths and field names of the platform Public API v3. ' +
        'Every call except login and this document needs the X-Auth header; requests on one session must be at least RATE_LIMIT_INTERVAL_MS (default 1 s) apart.',
    },
  });
}
