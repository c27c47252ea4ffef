import { randomUUID } from 'node:crypto';
import middy, { type MiddlewareObj } from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import httpRouterHandler, { type Route } from '@middy/http-router';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { logger, loggerContext } from '../observability/logger';
import { MetricName, MetricUnit, metrics } from '../observability/metrics';
import { touchSession } from '../store/sessions';
import { getUser } from '../store/directory-store';
import { RecordRejectedError } from '../store/record-schema';
import { ApiError, forbidden, issuesOf, tooManyRequests, unauthorized, validationError } from './errors';
import { TenantScope } from './scope';
import { takeClientRequest } from '../store/client-rate';
import { limits } from './limits';
import { PAGE_HEADERS } from './page-headers';
import type { ApiEvent, ApiLambdaContext, ApiRoute } from './route';
import { eagerRoutes, loadLazyRoutes } from './routes/eager';
import { apiSchema, readConfig } from '../config';

export interface ApiOptions {
  /** Clock of the API, epoch ms. */
  now?: () => number;
  /** Minimum time between two requests on one token; default RATE_LIMIT_INTERVAL_MS or 1000. */
  rateLimitIntervalMs?: number;
  routes?: ApiRoute[];
}

type Request = middy.Request<ApiEvent, APIGatewayProxyResultV2, Error, ApiLambdaContext>;

export function rateLimitIntervalFromEnv(env?: Record<string, string | undefined>): number {
  return readConfig(apiSchema(), env).RATE_LIMIT_INTERVAL_MS;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyResultV2 {
  return { statusCode: status, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

function correlationId(request: Request): string {
  return request.event.requestContext?.requestId ?? request.context.awsRequestId ?? randomUUID();
}

/** Turns every failure into a JSON answer; anything unexpected becomes a 500 that shows only a correlation id. */
function apiErrors(): MiddlewareObj<ApiEvent, APIGatewayProxyResultV2, Error, ApiLambdaContext> {
  return {
    onError: (request) => {
      const error = request.error as (Error & { statusCode?: number }) | null;
      const id = correlationId(request);
      if (error instanceof ApiError) {
        request.response = json(error.status, error.body(), { ...error.headers, 'X-Correlation-Id': id });
        return;
      }
      if (error instanceof RecordRejectedError) {
        request.response = json(400, validationError(error.issues).body(), { 'X-Correlation-Id': id });
        return;
      }
      const status = error?.statusCode;
      if (status === 422) {
        // from the JSON body parser: missing, malformed or prototype-polluting JSON
        const issue = {
          path: '',
          message: error?.message === 'Forbidden key in JSON body' ? 'the body contains a forbidden key' : 'the body must be valid JSON',
        };
        request.response = json(400, validationError([issue]).body(), { 'X-Correlation-Id': id });
        return;
      }
      if (status === 404) {
        request.response = json(404, { error: 'NotFound', message: 'no such endpoint' }, { 'X-Correlation-Id': id });
        return;
      }
      logger.error('unexpected error in the API', { correlationId: id, error: error as Error });
      request.response = json(
        500,
        { error: 'InternalError', message: 'an unexpected error occurred; quote the correlation id when reporting it', correlationId: id },
        { 'X-Correlation-Id': id },
      );
    },
  };
}

function countRequests(): MiddlewareObj<ApiEvent, APIGatewayProxyResultV2, Error, ApiLambdaContext> {
  return {
    before: () => {
      metrics.addMetric(MetricName.ApiRequests, MetricUnit.Count, 1);
    },
  };
}

interface Settings {
  now: () => number;
  rateLimitIntervalMs: () => number;
}

function authenticate(route: ApiRoute, options: Settings): MiddlewareObj<ApiEvent, APIGatewayProxyResultV2, Error, ApiLambdaContext> {
  return {
    before: async (request) => {
      const token = request.event.headers?.['x-auth'];
      if (!token) throw unauthorized('missing X-Auth header: log in with POST /api/v3/auth/login');
      const now = options.now();
      const interval = options.rateLimitIntervalMs();
      const check = await touchSession(token, now, interval);
      if (!check.ok) {
        if (check.reason === 'tooSoon') {
          throw tooManyRequests(check.retryAfterMs, `request rate exceeded: at most one request per ${interval} ms on a session`);
        }
        throw unauthorized('the session has ended: log in again');
      }
      const user = await getUser(check.session.userId);
      if (!user || !user.isEnabled) throw unauthorized('the session has ended: log in again');
      const { apiRequestsPerClientPerMinute } = limits();
      const clientWait = await takeClientRequest(user.parentId, now, apiRequestsPerClientPerMinute);
      if (clientWait > 0) {
        throw tooManyRequests(
          clientWait,
          `request rate exceeded: at most ${apiRequestsPerClientPerMinute} requests per minute for all users of your client`,
        );
      }
      if (route.writes && user.isReadOnly) throw forbidden('this user has read-only rights and cannot change data');
      request.context.caller = { user, session: check.session, scope: new TenantScope(user.parentId) };
    },
  };
}

/** The fields of a form's body (API Gateway may hand it over base64-encoded); none without a body. */
function formFields(event: ApiEvent): Record<string, string> {
  if (!event.body) return {};
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  return Object.fromEntries(new URLSearchParams(text));
}

function routeHandler(route: ApiRoute, options: Settings) {
  const chain = middy<ApiEvent, APIGatewayProxyResultV2, Error, ApiLambdaContext>();
  const form = route.requestType === 'application/x-www-form-urlencoded';
  if (route.auth) chain.use(authenticate(route, options));
  if (route.body && !form) chain.use(httpJsonBodyParser({ disableContentTypeCheck: true }));
  return chain.handler(async (event, context) => {
    const params = route.params ? route.params.safeParse(event.pathParameters ?? {}) : { success: true as const, data: undefined };
    const query = route.query ? route.query.safeParse(event.queryStringParameters ?? {}) : { success: true as const, data: undefined };
    const body = route.body ? route.body.safeParse(form ? formFields(event) : event.body) : { success: true as const, data: undefined };
    // one answer names every bad field, in the path, the query and the body
    const issues = [
      ...(params.success ? [] : issuesOf(params.error.issues)),
      ...(query.success ? [] : issuesOf(query.error.issues)),
      ...(body.success ? [] : issuesOf(body.error.issues)),
    ];
    if (!params.success || !query.success || !body.success) throw validationError(issues);
    const reply = await route.handle({
      body: body.data,
      params: params.data,
      query: query.data,
      headers: event.headers ?? {},
      caller: context.caller!,
      now: options.now(),
      sourceIp: event.requestContext?.http?.sourceIp ?? 'unknown',
    });
    if (reply.html !== undefined) {
      return {
        statusCode: reply.status ?? 200,
        headers: { 'Content-Type': 'text/html; charset=utf-8', ...PAGE_HEADERS, ...reply.headers },
        body: reply.html,
      };
    }
    return json(reply.status ?? 200, reply.body, reply.headers);
  });
}

/** The API Lambda: one middy handler routing API Gateway HTTP API (payload v2) events to the route modules. */
export function createApiHandler(options: ApiOptions = {}) {
  // the environment is read per request, so a host that sets it after loading the handler is honoured
  const settings: Settings = {
    now: options.now ?? Date.now,
    rateLimitIntervalMs: () => options.rateLimitIntervalMs ?? rateLimitIntervalFromEnv(),
  };
  return middy<ApiEvent, APIGatewayProxyResultV2, Error, ApiLambdaContext>()
    .use(loggerContext())
    .use(logMetrics(metrics))
    .use(httpHeaderNormalizer())
    .use(countRequests())
    .use(apiErrors())
    .handler(options.routes ? router(options.routes, settings) : eagerThenLazyRouter(settings));
}

type Router = (event: ApiEvent, context: ApiLambdaContext, options: { signal: AbortSignal }) => Promise<APIGatewayProxyResultV2>;

function router(routes: readonly ApiRoute[], settings: Settings, notFound?: () => never): Router {
  const table = routes.map((route): Route<ApiEvent, APIGatewayProxyResultV2> => ({
    method: route.method,
    path: route.path,
    handler: routeHandler(route, settings),
  }));
  const handler = httpRouterHandler(notFound ? { routes: table, notFoundResponse: notFound } : table);
  return async (event, context, options) => handler(event, context, options) as Promise<APIGatewayProxyResultV2>;
}

class NotEager extends Error {}

/**
 * The eager routes at once, the rest (`loadLazyRoutes`) with the first request none of them takes: a request
 * for an unknown path loads them too, and is answered 404 by their router as before.
 */
function eagerThenLazyRouter(settings: Settings): Router {
  const eager = router(eagerRoutes, settings, () => {
    throw new NotEager();
  });
  let lazy: Promise<Router> | undefined;
  return async (event, context, options) => {
    try {
      return await eager(event, context, options);
    } catch (error) {
      if (!(error instanceof NotEager)) throw error;
    }
    lazy ??= loadLazyRoutes().then((routes) => router(routes, settings));
    return (await lazy)(event, context, options);
  };
}
