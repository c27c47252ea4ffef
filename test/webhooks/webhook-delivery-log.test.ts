import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type RunningWebhookReceiver } from '../../infra/local/webhook-receiver';
import { documentClient } from '../../shared/aws/dynamodb';
import { resourcesConfig } from '../../shared/config';
import { recordWebhookAttempt } from '../../shared/store/webhook-deliveries';
import { createWebhook, deleteWebhook } from '../../shared/store/webhooks-store';
import { TestClock, login, seedTenants, session, typedApiClient, type JsonBody, type TypedApi } from '../api/support';
import { putAlert, putRule } from '../delivery/support/fixtures';
import { SimulatedDelivery } from '../delivery/support/simulated-delivery';
import { useDeliverHarness } from '../support/deliver-harness';

/**
 * The delivery log of a webhook endpoint: the real deliver handler records each attempt (status code, latency,
 * error), kept 7 days by TTL; `POST /api/v3/webhooks/{id}/deliveries` reads it newest first, filtered by status,
 * paginated with a signed token, for the endpoint's tenant only.
 */
describe('webhook delivery log', () => {
  // the receiver runs on this machine, over plain HTTP: allowed only behind WEBHOOK_ALLOW_PRIVATE_TARGETS
  const harness = useDeliverHarness({ name: 'webhook-delivery-log', env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  let receiver: RunningWebhookReceiver;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let api: TypedApi;
  const tokens: Record<'root' | 'sibling', string> = { root: '', sibling: '' };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    tenants = await seedTenants('webhook-log');
    api = typedApiClient({ now: new TestClock().now });
    for (const name of Object.keys(tokens) as (keyof typeof tokens)[]) tokens[name] = await login(api, tenants[name]);
  });
  afterAll(async () => {
    await receiver.stop();
  });

  const deliveries = (token: string, id: string, body: JsonBody<'listWebhookDeliveries'> = {}) =>
    api.POST('/api/v3/webhooks/{id}/deliveries', { headers: session(token), params: { path: { id } }, body });
  const redeliver = (token: string, id: string, body: JsonBody<'redeliverWebhook'>) =>
    api.POST('/api/v3/webhooks/{id}/redeliver', { headers: session(token), params: { path: { id } }, body });

  async function deliverAlert(endpointPath: string, vehicleId: number) {
    const endpoint = await createWebhook({ parentId: tenants.root.agentId, url: `${receiver.url}${endpointPath}`, description: '' }, Date.now());
    receiver.secret = endpoint.secret;
    const rule = await putRule({ parentId: tenants.root.agentId, toClient: true, stored: true });
    const alert = await putAlert(rule, vehicleId);
    await harness.enqueue(alert.alertId);
    await harness.drainDeliveries({ rounds: 10 });
    return { endpoint, alert };
  }

  it('redelivers an alert with its original webhook-id and body, which the receiver drops as a copy', async () => {
    const { endpoint, alert } = await deliverAlert('redelivered', 9602);
    const [original] = receiver.requests.slice(-1);
    expect(receiver.received.filter((entry) => entry.alertId === alert.alertId)).toHaveLength(1);

    const redelivered = await redeliver(tokens.root, endpoint.id, { alertId: alert.alertId });
    expect(redelivered.response.status).toBe(200);
    expect(redelivered.data).toEqual({
      items: [{ alertId: alert.alertId, status: 'succeeded', httpStatus: 200, latencyMs: expect.any(Number), error: null }],
    });
    const [again] = receiver.requests.slice(-1);
    expect(again).not.toBe(original);
    expect(again!.headers['webhook-id']).toBe(original!.headers['webhook-id']);
    expect(again!.body).toBe(original!.body);
    expect(receiver.received.filter((entry) => entry.alertId === alert.alertId)).toHaveLength(1);
    expect((await deliveries(tokens.root, endpoint.id)).data?.items).toHaveLength(2);

    const from = new Date(Date.parse(alert.event.time) - 1000).toISOString();
    const to = new Date(Date.parse(alert.event.time) + 1000).toISOString();
    const ranged = await redeliver(tokens.root, endpoint.id, { from, to });
    expect(ranged.data?.items.map((item) => item.alertId)).toEqual([alert.alertId]);
    expect(receiver.requests.slice(-1)[0]!.headers['webhook-id']).toBe(original!.headers['webhook-id']);

    const sent = receiver.requests.length;
    expect((await redeliver(tokens.sibling, endpoint.id, { alertId: alert.alertId })).response.status).toBe(404);
    expect((await redeliver(tokens.root, endpoint.id, { alertId: 'not-sent-here' })).response.status).toBe(404);
    expect((await redeliver(tokens.root, endpoint.id, { alertId: alert.alertId, from, to })).error?.issues?.[0]).toMatchObject({ path: 'alertId' });
    expect((await redeliver(tokens.root, endpoint.id, { from })).error?.issues?.[0]).toMatchObject({ path: 'to' });
    expect(receiver.requests.length).toBe(sent);
    await deleteWebhook(tenants.root.agentId, endpoint.id);
  });

  it('records each attempt of the deliver path and answers them newest first, filtered by status', async () => {
    const endpoint = await createWebhook({ parentId: tenants.root.agentId, url: `${receiver.url}logged`, description: '' }, Date.now());
    receiver.secret = endpoint.secret;
    const rule = await putRule({ parentId: tenants.root.agentId, toClient: true });
    const alert = await putAlert(rule, 9601);
    receiver.script(503);
    receiver.attempts.length = 0;
    // the retry's wait passes by a simulated clock
    const sim = new SimulatedDelivery(harness.emulators.queues.deliveries);
    try {
      await sim.enqueue({ alertId: alert.alertId });
      await sim.settle();
    } finally {
      sim.stop();
    }
    expect(receiver.attempts.map((attempt) => attempt.status)).toEqual([503, 200]);

    const all = await deliveries(tokens.root, endpoint.id);
    expect(all.response.status).toBe(200);
    expect(all.data).toEqual({
      items: [
        {
          alertId: alert.alertId,
          event: 'speeding',
          at: expect.any(String),
          status: 'succeeded',
          httpStatus: 200,
          latencyMs: expect.any(Number),
          error: null,
        },
        {
          alertId: alert.alertId,
          event: 'speeding',
          at: expect.any(String),
          status: 'failed',
          httpStatus: 503,
          latencyMs: expect.any(Number),
          error: expect.stringContaining('503'),
        },
      ],
      nextToken: null,
    });
    const failed = await deliveries(tokens.root, endpoint.id, { status: 'failed' });
    expect(failed.data?.items.map((item) => item.httpStatus)).toEqual([503]);

    const { Items } = await documentClient().send(
      new QueryCommand({
        TableName: resourcesConfig().DIRECTORY_TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `WEBHOOKLOG#${endpoint.id}` },
      }),
    );
    for (const item of Items ?? []) expect(item.ttl).toBe(Math.floor(Date.parse(String(item.at)) / 1000) + 7 * 86_400);

    expect((await deliveries(tokens.sibling, endpoint.id)).response.status).toBe(404);
  });

  it('pages with a token signed for the endpoint and filter, refusing it for another (400 naming nextToken)', async () => {
    const endpoint = await createWebhook({ parentId: tenants.root.agentId, url: 'https://hooks.example.com/paged', description: '' }, Date.now());
    const start = Date.parse('2026-03-01T08:00:00.000Z');
    for (let index = 0; index < 55; index++) {
      const at = new Date(start + index * 1000).toISOString();
      await recordWebhookAttempt(endpoint.id, {
        alertId: `alert-${index}`,
        event: 'zoneExit',
        at,
        status: 'succeeded',
        httpStatus: 200,
        latencyMs: 5,
        error: null,
      });
    }
    const first = await deliveries(tokens.root, endpoint.id);
    expect(first.data?.items).toHaveLength(50);
    expect(first.data?.items[0]?.alertId).toBe('alert-54');
    expect(typeof first.data?.nextToken).toBe('string');
    const nextToken = first.data!.nextToken!;
    const second = await deliveries(tokens.root, endpoint.id, { nextToken });
    expect(second.data?.items.map((item) => item.alertId)).toEqual(['alert-4', 'alert-3', 'alert-2', 'alert-1', 'alert-0']);

    const otherFilter = await deliveries(tokens.root, endpoint.id, { nextToken, status: 'succeeded' });
    expect(otherFilter.response.status).toBe(400);
    expect(otherFilter.error?.issues?.[0]).toMatchObject({ path: 'nextToken' });
  });
});
