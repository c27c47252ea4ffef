import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { fromHandlerResult, startHttpServer, type HttpHandler, type RunningHttpServer } from '../../infra/local/http-adapter';

describe('local API Gateway (HTTP API, payload 2.0)', () => {
  let server: RunningHttpServer;
  const received: APIGatewayProxyEventV2[] = [];
  const errors: unknown[] = [];

  // a tiny handler that echoes what it was given and can answer in each of API Gateway's result forms
  const echo: HttpHandler = async (event, context) => {
    received.push(event);
    const mode = event.queryStringParameters?.mode;
    if (mode === 'throw') throw new Error('handler failed');
    if (mode === 'plain') return { plain: true, functionName: context.functionName };
    if (mode === 'string') return 'just text';
    if (mode === 'binary') {
      return {
        statusCode: 201,
        headers: { 'Content-Type': 'application/octet-stream' },
        body: Buffer.from([0, 1, 2, 255]).toString('base64'),
        isBase64Encoded: true,
      };
    }
    return {
      statusCode: 202,
      headers: { 'X-Echo': 'yes', 'content-type': 'application/json' },
      cookies: ['a=1; Path=/', 'b=2'],
      body: JSON.stringify({ method: event.requestContext.http.method, body: event.body ?? null }),
    };
  };
  const webhook: HttpHandler = async () => ({ statusCode: 200, body: '' });

  beforeAll(async () => {
    server = await startHttpServer({
      port: 0,
      routes: [
        { routeKey: 'ANY /api/v3/{proxy+}', path: '/api/v3/*', functionName: 'api', handler: echo },
        { routeKey: 'POST /telegram/webhook', path: '/telegram/webhook', method: 'POST', functionName: 'telegram', handler: webhook },
      ],
      onError: (error) => errors.push(error),
    });
  });
  afterAll(async () => server.stop());

  it('turns a request into a v2 event: method, paths, lower-case headers, query, cookies, text body', async () => {
    received.length = 0;
    const response = await fetch(`${server.url}/api/v3/notifications/find?limit=5&tag=a&tag=b`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Auth': 'token-1', Cookie: 'session=abc; theme=dark' },
      body: JSON.stringify({ parentId: 'p-1' }),
    });
    expect(response.status).toBe(202);
    const event = received[0]!;
    expect(event.version).toBe('2.0');
    expect(event.routeKey).toBe('ANY /api/v3/{proxy+}');
    expect(event.rawPath).toBe('/api/v3/notifications/find');
    expect(event.rawQueryString).toBe('limit=5&tag=a&tag=b');
    expect(event.queryStringParameters).toEqual({ limit: '5', tag: 'a,b' });
    expect(event.pathParameters).toEqual({ proxy: 'notifications/find' });
    expect(event.requestContext.http.method).toBe('POST');
    expect(event.requestContext.http.path).toBe('/api/v3/notifications/find');
    expect(event.requestContext.stage).toBe('$default');
    expect(event.headers['x-auth']).toBe('token-1');
    expect(event.headers['content-type']).toBe('application/json');
    expect(Object.keys(event.headers).every((name) => name === name.toLowerCase())).toBe(true);
    expect(event.headers.cookie).toBeUndefined();
    expect(event.cookies).toEqual(['session=abc', 'theme=dark']);
    expect(event.body).toBe('{"parentId":"p-1"}');
    expect(event.isBase64Encoded).toBe(false);
  });

  it('base64-encodes a binary body and leaves body out when there is none', async () => {
    received.length = 0;
    await fetch(`${server.url}/api/v3/upload`, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream' },
      body: new Uint8Array([0, 159, 146, 150]),
    });
    await fetch(`${server.url}/api/v3/auth/check`);
    const [binary, empty] = received;
    expect(binary!.isBase64Encoded).toBe(true);
    expect(Buffer.from(binary!.body!, 'base64')).toEqual(Buffer.from([0, 159, 146, 150]));
    expect(empty!.requestContext.http.method).toBe('GET');
    expect(empty!.body).toBeUndefined();
    expect(empty!.isBase64Encoded).toBe(false);
    expect(empty!.queryStringParameters).toBeUndefined();
  });

  it('writes a structured result as the response: status, headers, cookies, body', async () => {
    const response = await fetch(`${server.url}/api/v3/anything`, { method: 'DELETE' });
    expect(response.status).toBe(202);
    expect(response.headers.get('x-echo')).toBe('yes');
    expect(response.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2']);
    expect(response.headers.get('apigw-requestid')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await response.json()).toEqual({ method: 'DELETE', body: null });
  });

  it('decodes a base64 result body', async () => {
    const response = await fetch(`${server.url}/api/v3/file?mode=binary`);
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await response.arrayBuffer())).toEqual(Buffer.from([0, 1, 2, 255]));
  });

  it('answers a result without statusCode as 200 JSON, like API Gateway', async () => {
    const plain = await fetch(`${server.url}/api/v3/x?mode=plain`);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toBe('application/json');
    expect(await plain.json()).toEqual({ plain: true, functionName: 'api' });
    const text = await fetch(`${server.url}/api/v3/x?mode=string`);
    expect(await text.text()).toBe('just text');
  });

  it('answers 500 without internals when the handler throws, and 404 off any route', async () => {
    errors.length = 0;
    const failed = await fetch(`${server.url}/api/v3/x?mode=throw`);
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ message: 'Internal Server Error' });
    expect(errors).toHaveLength(1);

    const unknown = await fetch(`${server.url}/elsewhere`);
    expect(unknown.status).toBe(404);
    const wrongMethod = await fetch(`${server.url}/telegram/webhook`);
    expect(wrongMethod.status).toBe(404);
    const webhookCall = await fetch(`${server.url}/telegram/webhook`, { method: 'POST', body: '{}' });
    expect(webhookCall.status).toBe(200);
  });

  it('maps results without a server too', () => {
    expect(fromHandlerResult(undefined)).toMatchObject({ statusCode: 200, headers: { 'content-type': 'application/json' } });
    expect(fromHandlerResult({ statusCode: 204 }).body.length).toBe(0);
    expect(fromHandlerResult({ statusCode: 204 }).headers['content-type']).toBeUndefined();
  });
});
