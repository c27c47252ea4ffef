import type { ApiRoute } from '../route';
import { authRoutes } from './auth';
import { notificationRoutes } from './notifications';

/**
 * The routes the API function loads at cold start: logging in and the rules, what an integrator calls first.
 * Every other route module loads with the first request that needs one (`loadLazyRoutes`), once per container,
 * so a container that serves only these never pays for the rest. A lazy route must never be taken by an eager
 * one (an eager `GET /api/v3/notifications/{id}` would take a lazy `GET /api/v3/notifications/find`):
 * test/api/route-loading.test.ts checks every lazy route against the eager router.
 */
export const eagerRoutes: readonly ApiRoute[] = [...authRoutes, ...notificationRoutes];

/** Every other route, in the order of the OpenAPI document. */
export async function loadLazyRoutes(): Promise<ApiRoute[]> {
  const { apiRoutes } = await import('./index');
  const eager = new Set(eagerRoutes);
  return apiRoutes.filter((route) => !eager.has(route));
}
