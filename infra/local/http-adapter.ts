import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { invoke } from './invocation';
import { lambdaContext } from './sqs-poller';

/**
 * Plays the part of an API Gateway HTTP API (payload format 2.0, `$default` stage) on one machine:
 * each request becomes the event a deployed Lambda would receive, and the handler's result becomes the
 * HTTP response, with API Gateway's rules for results that are not a structured response.
 */
export type HttpHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;

export interface HttpRoute {
  /** Route key as API Gateway shows it, e.g. `ANY /api/v3/{proxy+}` or `POST /telegram/webhook`. */
  routeKey: string;
  /** Matches a request path: an exact path, or a prefix when it ends with `/*`. */
  path: string;
  /** Only this method, or any method when omitted. */
  method?: string;
  functionName: string;
  handler: HttpHandler;
}

export interface HttpServerOptions {
  routes: HttpRoute[];
  port?: number;
  host?: string;
  /** Called with each handled request, for a one-line access log. */
  onRequest?: (entry: { method: string; path: string; status: number; functionName: string | null }) => void;
  onError?: (error: unknown) => void;
}

export interface RunningHttpServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** API Gateway's payload limit for HTTP APIs. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

const TEXT_CONTENT_TYPE = /^(text\/|application\/([\w.+-]*\+)?(json|xml|javascript|x-www-form-urlencoded))/i;

export function matchRoute(routes: readonly HttpRoute[], method: string, path: string): HttpRoute | undefined {
  return routes.find((route) => {
    if (route.method && route.method.toUpperCase() !== method.toUpperCase()) return false;
    if (route.path.endsWith('/*')) {
      const base = route.path.slice(0, -2);
      return path === base || path.startsWith(`${base}/`);
    }
    return path === route.path;
  });
}

interface RequestParts {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  sourceIp: string;
}

/** Builds the payload 2.0 event API Gateway would send for this request. */
export function toApiGatewayEvent(request: RequestParts, route: HttpRoute, now: number = Date.now()): APIGatewayProxyEventV2 {
  const url = new URL(request.url, 'http://localhost');
  // API Gateway keeps rawPath as sent and decodes requestContext.http.path
  const rawPath = url.pathname;
  const decodedPath = safeDecode(rawPath);
  const rawQueryString = url.search.startsWith('?') ? url.search.slice(1) : url.search;

  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (lower === 'cookie') {
      cookies.push(
        ...[value]
          .flat()
          .flatMap((line) => line.split(';'))
          .map((cookie) => cookie.trim())
          .filter(Boolean),
      );
      continue;
    }
    headers[lower] = Array.isArray(value) ? value.join(',') : value;
  }

  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;

  const contentType = headers['content-type'] ?? '';
  const isText = TEXT_CONTENT_TYPE.test(contentType) && !headers['content-encoding'];
  const hasBody = request.body.length > 0;
  const base = route.path.endsWith('/*') ? route.path.slice(0, -2) : undefined;
  const proxy = base !== undefined && decodedPath.length > base.length + 1 ? decodedPath.slice(base.length + 1) : undefined;
  const requestId = randomUUID();
  const host = headers.host ?? 'localhost';

  return {
    version: '2.0',
    routeKey: route.routeKey,
    rawPath,
    rawQueryString,
    ...(cookies.length ? { cookies } : {}),
    headers,
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(proxy !== undefined ? { pathParameters: { proxy } } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: host,
      domainPrefix: host.split('.')[0] ?? host,
      http: {
        method: request.method.toUpperCase(),
        path: decodedPath,
        protocol: 'HTTP/1.1',
        sourceIp: request.sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: route.routeKey,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    ...(hasBody ? { body: isText ? request.body.toString('utf8') : request.body.toString('base64') } : {}),
    isBase64Encoded: hasBody && !isText,
  };
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

export interface HttpResponseParts {
  statusCode: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

function isStructured(result: unknown): result is APIGatewayProxyStructuredResultV2 {
  return typeof result === 'object' && result !== null && 'statusCode' in result;
}

/**
 * Turns a handler's result into the HTTP response, as API Gateway does for payload 2.0: a structured result
 * is used as is; anything else is a 200 with the value as a JSON body.
 */
export function fromHandlerResult(result: unknown): HttpResponseParts {
  if (!isStructured(result)) {
    const body = typeof result === 'string' ? result : JSON.stringify(result ?? null);
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(body, 'utf8') };
  }
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name.toLowerCase()] = String(value);
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  const raw = result.body ?? '';
  const body = result.isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8');
  if (body.length > 0 && !headers['content-type']) headers['content-type'] = 'application/json';
  return { statusCode: result.statusCode ?? 200, headers, body };
}

function sendJson(response: ServerResponse, statusCode: number, value: unknown): void {
  response.writeHead(statusCode, { 'content-type': 'application/json' });
  response.end(JSON.stringify(value));
}

async function readBody(request: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

async function handleRequest(options: HttpServerOptions, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const method = request.method ?? 'GET';
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  const route = matchRoute(options.routes, method, path);
  const log = (status: number) => options.onRequest?.({ method, path, status, functionName: route?.functionName ?? null });
  if (!route) {
    sendJson(response, 404, { message: 'Not Found' });
    log(404);
    return;
  }
  const body = await readBody(request);
  if (body === null) {
    sendJson(response, 413, { message: 'Request Entity Too Large' });
    log(413);
    return;
  }
  const event = toApiGatewayEvent(
    { method, url: request.url ?? '/', headers: request.headers, body, sourceIp: request.socket.remoteAddress ?? '127.0.0.1' },
    route,
  );
  let parts: HttpResponseParts;
  try {
    const context = lambdaContext(route.functionName);
    parts = fromHandlerResult(await invoke(context, () => route.handler(event, context)));
  } catch (error) {
    // what API Gateway answers when the function itself fails
    options.onError?.(error);
    sendJson(response, 500, { message: 'Internal Server Error' });
    log(500);
    return;
  }
  response.writeHead(parts.statusCode, { ...parts.headers, 'apigw-requestid': event.requestContext.requestId });
  response.end(method.toUpperCase() === 'HEAD' ? undefined : parts.body);
  log(parts.statusCode);
}

export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const server: Server = createServer((request, response) => {
    handleRequest(options, request, response).catch((error: unknown) => {
      options.onError?.(error);
      if (!response.headersSent) sendJson(response, 500, { message: 'Internal Server Error' });
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
