import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import { webhookAlertPayloadSchema } from '../schemas/webhook';
import type { ApiRoute } from './route';
import { errorResponseSchema } from './schemas';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad JSON, a schema violation or an unknown field (bodies take only the fields they define); `issues` lists each problem, naming its field',
  401: 'Missing or ended session',
  403: 'The user has read-only rights',
  404: 'No such record in your scope',
  409: 'Stale version, a record still referenced, a login or webhook URL taken, a vehicle registered to another client, or too many creates for one client at once',
  429: 'Too many requests on this session (or failed logins); see Retry-After',
  500: 'Unexpected error; the body carries a correlation id',
  503: 'A service the request needs (the geocoder) did not answer; try again later',
};

/** The `example` metadata a schema carries (`.meta({ example })`), if any. */
const schemaExample = (schema: z.ZodType | undefined): unknown => (schema?.meta() as { example?: unknown } | undefined)?.example;

/** A route's request and success examples: its own, else its schemas'. */
export function routeExamples(route: ApiRoute): { body: unknown; response: unknown } {
  return { body: route.examples?.body ?? schemaExample(route.body), response: route.examples?.response ?? schemaExample(route.response) };
}

/** A media type's `example`, only when there is one. */
const withExample = (example: unknown) => (example === undefined ? {} : { example });

/** The OpenAPI 3.1 document of the API, generated from the same zod schemas the routes validate with. */
export function buildOpenApiDocument(routes: readonly ApiRoute[]): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'XAuth', { type: 'apiKey', in: 'header', name: 'X-Auth' });
  for (const route of routes) {
    const examples = routeExamples(route);
    const errors = [400, ...(route.auth ? [401, 429] : []), ...(route.path === '/api/v3/auth/login' ? [401, 429] : []), ...(route.errors ?? []), 500];
    registry.registerPath({
      method: route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete',
      path: route.path,
      tags: [route.tag],
      summary: route.summary,
      ...(route.operationId ? { operationId: route.operationId } : {}),
      ...(route.description ? { description: route.description } : {}),
      ...(route.auth ? { security: [{ XAuth: [] }] } : {}),
      request: {
        ...(route.params ? { params: route.params as z.ZodObject } : {}),
        ...(route.body ? { body: { required: true, content: { 'application/json': { schema: route.body, ...withExample(examples.body) } } } } : {}),
      },
      responses: {
        200: { description: 'Success', content: { 'application/json': { schema: route.response, ...withExample(examples.response) } } },
        ...Object.fromEntries(
          [...new Set(errors)].map((status) => [
            status,
            {
              description: STATUS_TEXT[status] ?? 'Error',
              content: { 'application/json': { schema: errorResponseSchema, ...withExample(route.examples?.errors?.[status]) } },
            },
          ]),
        ),
      },
    });
  }
  registerAlertWebhook(registry);
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

/** The webhook payload as a named component (`#/components/schemas/WebhookAlert`); named once per module load. */
const webhookAlertComponent = webhookAlertPayloadSchema.meta({ id: 'WebhookAlert' });

/** What fleetwatch POSTs to a registered webhook endpoint (OpenAPI 3.1 `webhooks`), and what it expects back. */
function registerAlertWebhook(registry: OpenAPIRegistry): void {
  registry.registerWebhook({
    method: 'post',
    path: 'alert',
    tags: ['webhooks'],
    summary: 'An alert, POSTed to each enabled endpoint of the client of a rule with toClient: true',
    description:
      'Verify X-Fleetwatch-Signature before trusting the body: compute hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret, ' +
      'compare it with v1 in constant time, and refuse a t more than 5 minutes old. Answer 2xx within 5 s; drop a second copy by ' +
      'Idempotency-Key. 5xx, 408, 429 or no answer: retried with exponential backoff (30 s, 60 s, 120 s, 240 s) and then parked for a ' +
      'redrive; 410 Gone: the endpoint is disabled; other 4xx and redirects: that alert fails for the endpoint, recorded on the alert.',
    request: {
      headers: z.object({
        'X-Fleetwatch-Signature': z.string().describe('t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" under the endpoint secret>'),
        'Idempotency-Key': z.string().describe('the alert id; the same for every attempt of one alert'),
      }),
      body: { required: true, content: { 'application/json': { schema: webhookAlertComponent } } },
    },
    responses: {
      200: { description: 'Any 2xx: received' },
      410: { description: 'The endpoint is gone: fleetwatch disables it' },
    },
  });
}
