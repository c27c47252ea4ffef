import httpRouterHandler from '@middy/http-router';
import { describe, expect, it } from 'vitest';
import { apiRoutes } from '../../shared/api/routes';
import { eagerRoutes, loadLazyRoutes } from '../../shared/api/routes/eager';
import { apiClient, apiEvent } from './support';

const NOT_EAGER = 'not eager';

/** The eager routes behind the same router the API function uses, answering which route took a request. */
const eagerRouter = httpRouterHandler({
  routes: eagerRoutes.map((route) => ({ method: route.method, path: route.path, handler: async () => route.operationId })),
  notFoundResponse: () => NOT_EAGER as never,
});

const requestFor = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string) => apiEvent({ method, path });

describe('routes loaded at cold start and on first use', () => {
  it('are together every route of the API, the lazy ones in the order of the OpenAPI document', async () => {
    const lazy = await loadLazyRoutes();
    expect([...eagerRoutes, ...lazy].map((route) => route.operationId).sort()).toEqual(apiRoutes.map((route) => route.operationId).sort());
    expect(lazy.map((route) => route.operationId)).toEqual(
      apiRoutes.filter((route) => !eagerRoutes.includes(route)).map((route) => route.operationId),
    );
    expect(lazy.length).toBeGreaterThan(eagerRoutes.length);
  });

  it('never lets an eager route take the request of a lazy one', async () => {
    const taken: string[] = [];
    for (const route of await loadLazyRoutes()) {
      const path = route.path.replace(/\{[^}]+\}/g, 'x1');
      const answer = await eagerRouter(requestFor(route.method, path) as never, {} as never, {} as never);
      if (answer !== NOT_EAGER) taken.push(`${route.method} ${route.path} by ${String(answer)}`);
    }
    expect(taken).toEqual([]);
  });

  it('the check above would see a shadowed route', async () => {
    const answer = await eagerRouter(requestFor('GET', '/api/v3/notifications/x1') as never, {} as never, {} as never);
    expect(answer).toBe('getNotificationRule');
  });

  it('answers a lazy route and, for a path no route has, 404 from the lazy routes', async () => {
    const api = apiClient();
    const document = await api({ method: 'GET', path: '/api/v3/openapi.json' });
    expect(document.status).toBe(200);
    expect((document.body as { openapi: string }).openapi).toMatch(/^3\.1/);
    const unknown = await api({ method: 'GET', path: '/api/v3/nowhere' });
    expect(unknown.status).toBe(404);
  });
});
