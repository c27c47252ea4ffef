import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import { webhookAlertPayloadSchema } from '../schemas/webhook';
import type { ApiRoute } from './route';
import { errorResponseSchema } from './schemas';
import { htmlPageExample } from './examples';
import { API_TAGS } from './tags';
import { MAX_RETRY_AFTER_SECONDS, RETRY_ATTEMPTS, RETRY_HORIZON_SECONDS, RETRY_JITTER, retryScheduleText, spanText } from '../delivery/retry-backoff';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad JSON, a schema violation or an unknown field (bodies take only the fields they define); `issues` lists each problem, naming its field',
  401: 'Missing or ended session',
  403: 'The user has read-only rights',
  404: 'No such record in your scope',
  410: 'The link has expired (alert links work for 7 days)',
  409: 'Stale version, a record still referenced, a login or webhook URL taken, a vehicle registered to another client, or too many creates for one client at once',
  429: 'Too many requests on this session (or failed logins); see Retry-After',
  500: 'Unexpected error; the body carries a correlation id',
  503: 'A service the request needs (the geocoder, or the deliveries queue) did not answer; try again later',
};

const SUCCESS_TEXT: Record<200 | 202 | 302, string> = {
  200: 'Success',
  202: 'Accepted: the outcome is read later',
  302: 'Found: a redirect to the address in Location (with a small page linking it)',
};

const REDIRECT_HEADERS = {
  Location: { description: 'where the link leads', required: true, schema: { type: 'string' as const, format: 'uri-reference' } },
};

/** The `example` metadata a schema carries (`.meta({ example })`), if any. */
const schemaExample = (schema: z.ZodType | undefined): unknown => (schema?.meta() as { example?: unknown } | undefined)?.example;

/** A route's request and success examples: its own, else its schemas'. */
export function routeExamples(route: ApiRoute): { body: unknown; response: unknown } {
  return { body: route.examples?.body ?? schemaExample(route.body), response: route.examples?.response ?? schemaExample(route.response) };
}

/** A media type's `example`, only when there is one. */
const withExample = (example: unknown) => (example === undefined ? {} : { example });

const errorPage = (example: unknown) => ({ 'text/html': { schema: z.string().describe('a page saying what is wrong'), ...withExample(example) } });

/**
 * A route that answers a page answers its own errors (`errors`) with a page too, and one that answers browsers a
 * page answers them either way; the API's checks answer JSON.
 */
function errorContent(route: ApiRoute, status: number) {
  const example = route.examples?.errors?.[status];
  const page = route.errors?.includes(status) === true;
  if (page && route.responseType === 'text/html') return errorPage(example);
  const json = { 'application/json': { schema: errorResponseSchema, ...withExample(example) } };
  return page && route.pageForBrowsers ? { ...json, ...errorPage(undefined) } : json;
}

/** The success answer's media types: the route's, and a page for browsers where it answers them one. */
function successContent(route: ApiRoute, example: unknown) {
  const content = { [route.responseType ?? 'application/json']: { schema: route.response, ...withExample(example) } };
  if (!route.pageForBrowsers) return content;
  return {
    ...content,
    'text/html': { schema: z.string().describe('the same answer as a page, to a request that accepts text/html'), example: htmlPageExample },
  };
}

/** A request body: JSON, which is required, or a form's fields, which may be left out. */
function requestBody(route: ApiRoute, example: unknown) {
  const form = route.requestType === 'application/x-www-form-urlencoded';
  return { required: !form, content: { [route.requestType ?? 'application/json']: { schema: route.body!, ...withExample(example) } } };
}

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
      operationId: route.operationId,
      tags: [route.tag],
      summary: route.summary,
      description: route.description,
      ...(route.auth ? { security: [{ XAuth: [] }] } : {}),
      request: {
        ...(route.params ? { params: route.params as z.ZodObject } : {}),
        ...(route.query ? { query: route.query as z.ZodObject } : {}),
        ...(route.body ? { body: requestBody(route, examples.body) } : {}),
      },
      responses: {
        [route.successStatus ?? 200]: {
          description: SUCCESS_TEXT[route.successStatus ?? 200],
          ...(route.successStatus === 302 ? { headers: REDIRECT_HEADERS } : {}),
          content: successContent(route, examples.response),
        },
        ...Object.fromEntries(
          [...new Set(errors)].map((status) => [status, { description: STATUS_TEXT[status] ?? 'Error', content: errorContent(route, status) }]),
        ),
      },
    });
  }
  registerAlertWebhook(registry);
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'fleetwatch API',
      version: '3.0.0',
      description:
        'Notification rules, geozones and alert history of fleetwatch, following the paths and field names of the platform Public API v3. ' +
        'Every call except login and this document needs the X-Auth header; requests on one session must be at least RATE_LIMIT_INTERVAL_MS (default 1 s) apart.',
      contact: { name: 'fleetwatch operators' },
    },
    servers: [
      {
        url: '{origin}',
        description:
          'One deployment. Every path already starts with /api/v3, so the server is the origin of the ApiUrl stack output (ApiUrl without its /api/v3).',
        variables: {
          origin: {
            default: 'http://127.0.0.1:3000',
            description: 'e.g. https://abc123.execute-api.eu-central-1.amazonaws.com on AWS; npm start serves on http://127.0.0.1:3000',
          },
        },
      },
    ],
    tags: Object.entries(API_TAGS).map(([name, description]) => ({ name, description })),
  });
  closeAnswers(document);
  return document;
}

type JsonSchemaNode = Record<string, unknown>;

/**
 * Answers carry exactly the fields their schemas name, so the document says so: every object of an answer that
 * does not state `additionalProperties` gets `false` (a client or a test can then refuse a field it does not know).
 */
function closeAnswers(document: ReturnType<OpenApiGeneratorV31['generateDocument']>): void {
  for (const operations of Object.values(document.paths ?? {})) {
    for (const method of ['get', 'post', 'put', 'delete'] as const) {
      for (const response of Object.values(operations[method]?.responses ?? {})) {
        for (const media of Object.values((response as { content?: Record<string, { schema?: JsonSchemaNode }> }).content ?? {})) {
          if (media.schema) media.schema = closedObjects(media.schema);
        }
      }
    }
  }
}

/** A copy of a JSON Schema with its open objects closed, following only the keywords that hold subschemas. */
function closedObjects(schema: JsonSchemaNode): JsonSchemaNode {
  const node: JsonSchemaNode = { ...schema };
  const each = (value: unknown) => (Array.isArray(value) ? value.map((item) => closedObjects(item as JsonSchemaNode)) : value);
  if (node.properties) {
    node.properties = Object.fromEntries(
      Object.entries(node.properties as Record<string, JsonSchemaNode>).map(([key, value]) => [key, closedObjects(value)]),
    );
    if (!('additionalProperties' in node)) node.additionalProperties = false;
  }
  for (const keyword of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) if (keyword in node) node[keyword] = each(node[keyword]);
  for (const keyword of ['items', 'additionalProperties']) {
    if (typeof node[keyword] === 'object' && node[keyword] !== null) node[keyword] = closedObjects(node[keyword] as JsonSchemaNode);
  }
  return node;
}

/** The webhook payload as a named component (`#/components/schemas/WebhookAlert`); named once per module load. */
const webhookAlertComponent = webhookAlertPayloadSchema.meta({ id: 'WebhookAlert' });

/** What fleetwatch POSTs to a registered webhook endpoint (OpenAPI 3.1 `webhooks`), and what it expects back. */
function registerAlertWebhook(registry: OpenAPIRegistry): void {
  registry.registerWebhook({
    method: 'post',
    path: 'alert',
    operationId: 'receiveAlert',
    tags: ['webhooks'],
    summary: 'An alert, POSTed to each enabled endpoint of the client of a rule with toClient: true',
    description:
      'Signed as Standard Webhooks specifies: verify it with a standardwebhooks library and the endpoint secret (whsec_…) before ' +
      'trusting the body; it refuses a webhook-timestamp more than 5 minutes off. webhook-id is the same for every delivery of one ' +
      'alert to one endpoint: drop a second copy by it. During a secret rotation webhook-signature holds one v1,<signature> per ' +
      'secret, space-separated. An endpoint registered before Standard Webhooks (signatureScheme fleetwatch-v1) gets ' +
      'X-Fleetwatch-Signature instead: hex HMAC-SHA256 of "<t>.<raw body>", compared with a v1 in constant time. Answer 2xx within ' +
      `5 s. 5xx, 408, 429 or no answer: tried again, ${RETRY_ATTEMPTS} attempts in all over about ${spanText(RETRY_HORIZON_SECONDS)}, waiting ` +
      `${retryScheduleText()} after each, each wait ±${RETRY_JITTER * 100}% so that endpoints which failed together are not ` +
      `retried in the same second, and never sooner than a Retry-After you answer (up to ${spanText(MAX_RETRY_AFTER_SECONDS)}); still ` +
      'failing after the last, the alert fails for the endpoint and goes to the operator; 410 Gone: the endpoint is disabled; other ' +
      '4xx and redirects: that alert fails for the endpoint, recorded on the alert.',
    request: {
      headers: z.object({
        'webhook-id': z.string().optional().describe('msg_…: the same for every delivery of one alert to one endpoint (standard scheme)'),
        'webhook-timestamp': z.string().optional().describe('unix seconds of this attempt (standard scheme)'),
        'webhook-signature': z
          .string()
          .optional()
          .describe('v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">, one per secret, space-separated (standard scheme)'),
        'X-Fleetwatch-Signature': z
          .string()
          .optional()
          .describe('t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">, one v1 per secret: only on fleetwatch-v1 endpoints'),
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
