import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import createClient, { type Client } from 'openapi-fetch';
import { fromHandlerResult, toApiGatewayEvent, type HttpRoute } from '../../infra/local/http-adapter';
import { createApiHandler, type ApiOptions } from '../../shared/api/app';
import type { operations, paths } from '../../shared/api/client/schema';
import { createAgent, createUser } from '../../shared/store/directory-store';
import { registerVehicle } from '../../shared/store/vehicle-registry';

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  path: string;
  /** Serialised as JSON unless it is already a string (raw bodies test malformed JSON). */
  body?: unknown;
  token?: string;
  headers?: Record<string, string>;
  /** The caller's address as API Gateway reports it; 127.0.0.1 unless given. */
  sourceIp?: string;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  // the tests inspect arbitrary JSON answers
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** An API Gateway HTTP API (payload v2) event, as API Gateway would build it. */
export function apiEvent(request: ApiRequest): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...request.headers };
  if (request.token) headers['X-Auth'] = request.token;
  const body = request.body === undefined ? undefined : typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
  const requestId = randomUUID();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: request.path,
    rawQueryString: '',
    headers,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: 'api.fleetwatch.test',
      domainPrefix: 'api',
      http: { method: request.method, path: request.path, protocol: 'HTTP/1.1', sourceIp: request.sourceIp ?? '127.0.0.1', userAgent: 'vitest' },
      requestId,
      routeKey: '$default',
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    body,
    isBase64Encoded: false,
  };
}

export function lambdaContext(): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'fleetwatch-api',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:fleetwatch-api',
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: '/aws/lambda/fleetwatch-api',
    logStreamName: 'test',
    getRemainingTimeInMillis: () => 30_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** A controllable clock for the API: tests move time instead of waiting. */
export class TestClock {
  constructor(public value = Date.parse('2026-03-01T08:00:00.000Z')) {}
  now = () => this.value;
  advance(ms: number) {
    this.value += ms;
  }
}

export type Api = (request: ApiRequest) => Promise<ApiResponse>;

/** The real API handler, called the way Lambda calls it. */
export function apiClient(options: ApiOptions = {}): Api {
  const handler = createApiHandler({ rateLimitIntervalMs: 0, ...options });
  return async (request) => {
    const result = (await handler(apiEvent(request), lambdaContext())) as Exclude<APIGatewayProxyResultV2, string>;
    const text = typeof result.body === 'string' ? result.body : '';
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: result.statusCode ?? 200, headers: (result.headers ?? {}) as Record<string, string>, body };
  };
}

export type TypedApi = Client<paths>;

/** The JSON body an operation takes, by its operationId. */
export type JsonBody<Operation extends keyof operations> = operations[Operation] extends {
  requestBody: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;

/** The answers that carry no body, which a fetch Response refuses one for. */
const NO_BODY = new Set([204, 304]);

/**
 * The typed client (openapi-fetch over the types generated from the OpenAPI document) bound to the real API
 * handler: each request becomes the event the local HTTP adapter builds, and the handler's result its response.
 * `sourceIp` is the caller's address as API Gateway reports it.
 */
export function typedApiClient({ sourceIp = '127.0.0.1', ...options }: ApiOptions & { sourceIp?: string } = {}): TypedApi {
  const handler = createApiHandler({ rateLimitIntervalMs: 0, ...options });
  const route: HttpRoute = { routeKey: 'ANY /api/v3/{proxy+}', path: '/api/v3/*', functionName: 'fleetwatch-api', handler };
  return createClient<paths>({
    baseUrl: 'https://api.fleetwatch.test',
    async fetch(request) {
      const body = Buffer.from(await request.arrayBuffer());
      const event = toApiGatewayEvent(
        { method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body, sourceIp },
        route,
      );
      const parts = fromHandlerResult(await handler(event, lambdaContext()));
      const headers = new Headers();
      for (const [name, value] of Object.entries(parts.headers)) for (const each of [value].flat()) headers.append(name, each);
      return new Response(NO_BODY.has(parts.statusCode) ? null : parts.body, { status: parts.statusCode, headers });
    },
  });
}

/** The headers of a request made in the session of `token`. */
export const session = (token: string | undefined) => (token === undefined ? {} : { 'X-Auth': token });

export interface Tenant {
  agentId: string;
  login: string;
  password: string;
  userId: string;
}

/**
 * A small hierarchy: `root` with a child client `child`, and a `sibling` client with no relation to them.
 * Each has a user with write rights; `readOnly` is a read-only user of root. Vehicle 101 belongs to root,
 * 202 to sibling, 303 to child.
 */
export async function seedTenants(prefix: string) {
  const rootAgent = await createAgent({ name: `${prefix} Root Logistics` });
  const childAgent = await createAgent({ name: `${prefix} Child Depot`, parentId: rootAgent.agentId });
  const siblingAgent = await createAgent({ name: `${prefix} Sibling Transport` });
  const user = async (agentId: string, name: string, isReadOnly = false): Promise<Tenant> => {
    const login = `${prefix}-${name}`;
    const password = `pw-${name}-${prefix}`;
    const created = await createUser({ parentId: agentId, login, password, email: `${name}@${prefix}.example.com`, isReadOnly });
    return { agentId, login, password, userId: created.id };
  };
  const tenants = {
    root: await user(rootAgent.agentId, 'root'),
    child: await user(childAgent.agentId, 'child'),
    sibling: await user(siblingAgent.agentId, 'sibling'),
    readOnly: await user(rootAgent.agentId, 'viewer', true),
  };
  await registerVehicle({ vehicleId: 101, name: 'Truck 101', parentId: rootAgent.agentId }, { allowMove: true });
  await registerVehicle({ vehicleId: 202, name: 'Truck 202', parentId: siblingAgent.agentId }, { allowMove: true });
  await registerVehicle({ vehicleId: 303, name: 'Van 303', parentId: childAgent.agentId }, { allowMove: true });
  return tenants;
}

export async function login(api: Api | TypedApi, tenant: Tenant): Promise<string> {
  const body = { login: tenant.login, password: tenant.password };
  const response = typeof api === 'function' ? await api({ method: 'POST', path: '/api/v3/auth/login', body }) : await typedLogin(api, body);
  if (response.status !== 200) throw new Error(`login of ${tenant.login} failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.AuthId as string;
}

async function typedLogin(api: TypedApi, body: { login: string; password: string }) {
  const { data, error, response } = await api.POST('/api/v3/auth/login', { body });
  return { status: response.status, body: data ?? error };
}

export function ruleBody(parentId: string, overrides: Record<string, unknown> = {}) {
  return {
    type: 2,
    parentId,
    name: 'Speeding on the highway',
    active: true,
    vehicleIds: [101],
    settings: { limit: '90' },
    enableSideEmails: true,
    sideEmails: ['ops@example.com'],
    stored: true,
    validity: 30,
    ...overrides,
  };
}

/** The body of a request that creates a square polygon zone (the depot), not a stored Geozone (test/rules/fixtures squareZone). */
export function depotZoneBody(parentId: string, overrides: Record<string, unknown> = {}) {
  return {
    name: 'Depot',
    type: 'polygon',
    parentId,
    description: 'main depot',
    geometry: {
      type: 'Polygon',
      coordinates: [
        [
          [37.6, 55.7],
          [37.61, 55.7],
          [37.61, 55.71],
          [37.6, 55.71],
          [37.6, 55.7],
        ],
      ],
    },
    ...overrides,
  };
}
