import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { documentClient } from '../../shared/aws/dynamodb';
import { resourcesConfig } from '../../shared/config';
import type { StoredWebhook } from '../../shared/schemas/webhook';
import { createWebhook } from '../../shared/store/webhooks-store';
import { TestClock, login, seedTenants, session, typedApiClient, type TypedApi } from '../api/support';
import { putAlert, putRule } from '../delivery/support/fixtures';
import { useDeliverHarness } from '../support/deliver-harness';

/**
 * The operations that send to a webhook endpoint on request, ping, a rule's test alert and redeliver, under the
 * deployed address policy: each refuses an endpoint that is or resolves to a loopback, link-local or private
 * address, says so in its answer (and the redelivery in the delivery log), and opens no connection to it. The
 * API refuses such URLs at registration; the endpoints are stored directly to stand for a public name that
 * resolves to a private address after it was registered.
 */
describe('webhook operations under the deployed address policy', () => {
  const harness = useDeliverHarness({ name: 'webhook-ssrf-operations' });
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let api: TypedApi;
  let token = '';
  const clock = new TestClock();
  /** Stands on loopback where the endpoints point: every connection made to it is counted. */
  let listener: Server;
  let connections = 0;
  const endpoints: { endpoint: StoredWebhook; refusal: RegExp }[] = [];

  beforeAll(async () => {
    listener = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as AddressInfo).port;
    tenants = await seedTenants('ssrf-ops');
    api = typedApiClient({ now: clock.now });
    token = await login(api, tenants.root);
    const targets: [string, RegExp][] = [
      [`https://127.0.0.1:${port}/hook`, /refused: 127\.0\.0\.1 is a loopback address/],
      [`https://localhost:${port}/hook`, /localhost resolves to an address webhooks may not reach \(.*loopback/],
      ['https://169.254.169.254/latest/meta-data/', /refused: 169\.254\.169\.254 is a linkLocal address/],
      ['https://10.0.0.7/hook', /refused: 10\.0\.0\.7 is a private address/],
    ];
    for (const [url, refusal] of targets) {
      endpoints.push({ endpoint: await createWebhook({ parentId: tenants.root.agentId, url, description: 'private' }, clock.now()), refusal });
    }
    vi.stubEnv('WEBHOOK_ALLOW_PRIVATE_TARGETS', 'false'); // as deployed; undone with the harness's stubs
  });
  afterAll(async () => {
    await new Promise((resolve) => listener.close(resolve));
  });
  beforeEach(() => {
    connections = 0;
  });

  it('ping answers 400 naming url with the refusal, and connects to nothing', async () => {
    for (const { endpoint, refusal } of endpoints) {
      clock.advance(1_100);
      const { error, response } = await api.POST('/api/v3/webhooks/{id}/ping', { headers: session(token), params: { path: { id: endpoint.id } } });
      expect(response.status).toBe(400);
      expect(error?.issues?.[0]).toMatchObject({ path: 'url', message: expect.stringMatching(refusal) });
    }
    expect(connections).toBe(0);
  });

  it("a rule's test alert reports each webhook target failed with the refusal, and connects to nothing", async () => {
    const rule = await putRule({
      parentId: tenants.root.agentId,
      userId: tenants.root.userId,
      recipientIds: [],
      name: 'Test to private',
      toClient: true,
    });
    const accepted = await api.POST('/api/v3/notifications/{id}/test', { headers: session(token), params: { path: { id: rule.id } } });
    expect(accepted.response.status).toBe(202);
    await harness.drainDeliveries({ rounds: 10, handler: harness.createHandler({ clock: clock.now }) });
    const { data } = await api.GET('/api/v3/notifications/{id}/test/{testId}', {
      headers: session(token),
      params: { path: { id: rule.id, testId: accepted.data!.testId } },
    });
    expect(data?.status).toBe('done');
    for (const { endpoint, refusal } of endpoints) {
      expect(data?.targets.find((entry) => entry.target === `webhook:${endpoint.id}`)).toEqual({
        channel: 'webhook',
        target: `webhook:${endpoint.id}`,
        outcome: 'failed',
        reason: expect.stringMatching(refusal),
      });
    }
    expect(connections).toBe(0);
  });

  it('redeliver answers each alert failed with the refusal, records it in the delivery log, and connects to nothing', async () => {
    const rule = await putRule({ parentId: tenants.root.agentId, toClient: true, stored: true });
    for (const { endpoint, refusal } of endpoints) {
      const alert = await putAlert(rule, 9701);
      // the alert went to the endpoint once, while its name still resolved to a public address
      await documentClient().send(
        new UpdateCommand({
          TableName: resourcesConfig().ALERTS_TABLE,
          Key: { alertId: alert.alertId },
          UpdateExpression: 'SET deliveries.#key = :sent',
          ExpressionAttributeNames: { '#key': `webhook:${endpoint.id}` },
          ExpressionAttributeValues: { ':sent': { status: 'sent', at: alert.createdAt, attempts: 1 } },
        }),
      );
      const path = { id: endpoint.id };
      const redelivered = await api.POST('/api/v3/webhooks/{id}/redeliver', {
        headers: session(token),
        params: { path },
        body: { alertId: alert.alertId },
      });
      expect(redelivered.response.status).toBe(200);
      expect(redelivered.data?.items).toEqual([
        { alertId: alert.alertId, status: 'failed', httpStatus: null, latencyMs: expect.any(Number), error: expect.stringMatching(refusal) },
      ]);
      const log = await api.POST('/api/v3/webhooks/{id}/deliveries', { headers: session(token), params: { path }, body: {} });
      expect(log.data?.items).toEqual([
        {
          alertId: alert.alertId,
          event: 'speeding',
          at: expect.any(String),
          status: 'failed',
          httpStatus: null,
          latencyMs: expect.any(Number),
          error: expect.stringMatching(refusal),
        },
      ]);
    }
    expect(connections).toBe(0);
  });
});
