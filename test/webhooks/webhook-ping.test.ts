import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { PINGS_PER_CLIENT_PER_MINUTE } from '../../shared/api/routes/webhooks';
import { startTestEmulators } from '../support/emulators';
import { TestClock, login, seedTenants, session, typedApiClient, type TypedApi } from '../api/support';

/**
 * `POST /api/v3/webhooks/{id}/ping`: a signed ping through the one sender, answered with the receiver's status and
 * latency; the deployed address policy refuses a private target (400 naming url); tenancy, read-only and the rate limit.
 */
describe('webhook ping', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  const clock = new TestClock();
  let api: TypedApi;
  let receiver: Server;
  let receiverUrl = '';
  let answerStatus = 204;
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const tokens: Record<'root' | 'sibling' | 'readOnly', string> = { root: '', sibling: '', readOnly: '' };

  beforeAll(async () => {
    emulators = await startTestEmulators('api-webhook-ping');
    tenants = await seedTenants('webhook-ping');
    api = typedApiClient({ now: clock.now });
    for (const name of Object.keys(tokens) as (keyof typeof tokens)[]) tokens[name] = await login(api, tenants[name]);
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        response.writeHead(answerStatus).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await new Promise((resolve) => receiver.close(resolve));
    await emulators.stop();
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    clock.advance(60_000);
  });

  const registerLocal = async (path: string, url = `${receiverUrl}/${path}`) => {
    vi.stubEnv('WEBHOOK_ALLOW_PRIVATE_TARGETS', 'true');
    const created = await api.POST('/api/v3/webhooks', { headers: session(tokens.root), body: { url } });
    expect(created.response.status).toBe(200);
    return created.data!;
  };
  const ping = async (token: string, id: string) => {
    const { data, error, response } = await api.POST('/api/v3/webhooks/{id}/ping', { headers: session(token), params: { path: { id } } });
    return { status: response.status, data, error };
  };

  it("sends a signed ping now and answers the receiver's status and latency", async () => {
    const endpoint = await registerLocal('signed');
    answerStatus = 204;
    received.length = 0;
    const answered = await ping(tokens.root, endpoint.id);
    expect(answered.status).toBe(200);
    expect(answered.data).toEqual({ status: 204, latencyMs: expect.any(Number) });
    expect(received).toHaveLength(1);
    const [delivery] = received;
    const messageId = String(delivery!.headers['webhook-id']);
    expect(delivery!.headers['webhook-timestamp']).toBe(String(Math.floor(clock.value / 1000)));
    expect(delivery!.headers['webhook-signature']).toBe(new Webhook(endpoint.secret).sign(messageId, new Date(clock.value), delivery!.body));
    expect(JSON.parse(delivery!.body)).toMatchObject({ type: 'ping', webhookId: endpoint.id, parentId: tenants.root.agentId });

    answerStatus = 503;
    const failing = await ping(tokens.root, endpoint.id);
    expect(failing.status).toBe(200);
    expect(failing.data).toEqual({ status: 503, latencyMs: expect.any(Number), error: expect.stringContaining('503') });
  });

  it('refuses a private target under the deployed address policy: 400 naming url, nothing sent', async () => {
    const endpoint = await registerLocal('private', `${receiverUrl.replace('http:', 'https:')}/private`);
    vi.stubEnv('WEBHOOK_ALLOW_PRIVATE_TARGETS', 'false');
    received.length = 0;
    const answered = await ping(tokens.root, endpoint.id);
    expect(answered.status).toBe(400);
    expect(answered.error?.issues?.[0]).toMatchObject({ path: 'url', message: expect.stringContaining('127.0.0.1 is a loopback address') });
    expect(received).toHaveLength(0);
  });

  it("answers 404 for another tenant's endpoint and 403 to read-only users, sending nothing", async () => {
    const endpoint = await registerLocal('tenancy');
    received.length = 0;
    expect((await ping(tokens.sibling, endpoint.id)).status).toBe(404);
    expect((await ping(tokens.readOnly, endpoint.id)).status).toBe(403);
    expect(received).toHaveLength(0);
  });

  it(`allows ${PINGS_PER_CLIENT_PER_MINUTE} pings a minute per client, then 429`, async () => {
    const endpoint = await registerLocal('rate');
    answerStatus = 200;
    for (let sent = 0; sent < PINGS_PER_CLIENT_PER_MINUTE; sent++) {
      clock.advance(1_100);
      expect((await ping(tokens.root, endpoint.id)).status).toBe(200);
    }
    clock.advance(1_100);
    expect((await ping(tokens.root, endpoint.id)).status).toBe(429);
  });
});
