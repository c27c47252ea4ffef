import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GetQueueAttributesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/dynamodb';
import { sqsClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { pollOnce } from '../../infra/local/sqs-poller';
import { createAgent } from '../../shared/store/directory-store';
import { createWebhook } from '../../shared/store/webhooks-store';
import { outboxShardOf } from '../../shared/store/alerts/alerts-store';
import { queryHistory } from '../../shared/store/alerts/history-store';
import { runOutboxPass } from '../../shared/sweep/outbox-pass';
import { useDeliverHarness } from '../support/deliver-harness';
import { getAlertItem, putAlert, putRule } from '../delivery/support/fixtures';
import { SimulatedDelivery } from '../delivery/support/simulated-delivery';
import { RETRY_HORIZON_SECONDS } from '../../shared/delivery/retry-backoff';
import { gaveUpReason } from '../../shared/delivery/target-retry';

const PLAIN_HTTP = 'TLS handshake failed: the endpoint speaks plain HTTP on an https URL';

/**
 * A webhook endpoint that speaks plain HTTP on an https URL (a loopback HTTP server reached as https://),
 * through the real deliver handler, the deliveries queue and its DLQ on fauxqs, the alerts table on DynamoDB
 * Local and the sweep's real outbox pass.
 */
describe('a failing webhook endpoint', () => {
  const harness = useDeliverHarness({ name: 'webhook-failures', env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  let plainHttp: Server;
  let url: string;
  let connections = 0;

  beforeAll(async () => {
    plainHttp = createServer((_request, response) => response.end('ok'));
    plainHttp.on('connection', () => connections++);
    await new Promise<void>((resolve) => plainHttp.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(plainHttp.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => plainHttp.close(() => resolve()));
  });
  beforeEach(() => {
    connections = 0;
  });

  const enqueue = (alertId: string) => harness.enqueue(alertId);
  /** A pending alert of a client whose one endpoint is the plain-HTTP server, in the outbox as evaluate leaves it. */
  async function failingAlert(name: string, vehicleId: number) {
    const client = await createAgent({ name });
    const endpoint = await createWebhook({ parentId: client.agentId, url, description: name }, Date.now());
    const rule = await putRule({ parentId: client.agentId, toClient: true, stored: true });
    const alert = await putAlert(rule, vehicleId);
    await documentClient().send(
      new UpdateCommand({
        TableName: resourcesConfig().ALERTS_TABLE,
        Key: { alertId: alert.alertId },
        UpdateExpression: 'SET outbox = :shard',
        ExpressionAttributeValues: { ':shard': outboxShardOf(alert.alertId) },
      }),
    );
    return { alert, key: `webhook:${endpoint.id}` };
  }
  async function messagesOnQueue(): Promise<number> {
    const { Attributes = {} } = await sqsClient().send(
      new GetQueueAttributesCommand({
        QueueUrl: harness.emulators.queues.deliveries,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    return Number(Attributes.ApproximateNumberOfMessages) + Number(Attributes.ApproximateNumberOfMessagesNotVisible);
  }

  it('keeps one pending retry per alert: the outbox does not re-enqueue it, and a second copy is dropped unsent', async () => {
    const handler = harness.createHandler();
    const { alert, key } = await failingAlert('Plain Http Haulage', 7101);
    await enqueue(alert.alertId);
    expect(await pollOnce({ queueUrl: harness.emulators.queues.deliveries, handler, functionName: 'deliver', visibilityTimeoutSeconds: 0 })).toBe(1);

    const afterFirst = await getAlertItem(alert.alertId);
    const retry = (afterFirst.deliveryRetries as Record<string, { attempts: number; error: string; nextAttemptAt: string }>)[key]!;
    expect(retry).toMatchObject({ attempts: 1, error: PLAIN_HTTP });
    // the schedule's first wait: 5 s ± 20%
    const delayMs = Date.parse(retry.nextAttemptAt) - Date.now();
    expect(delayMs).toBeGreaterThan(2_000);
    expect(delayMs).toBeLessThanOrEqual(6_000);
    expect(connections).toBe(1);
    expect(await messagesOnQueue()).toBe(1);

    // the sweep runs three minutes later, while the retry still waits on the queue: nothing is enqueued again
    const swept = await runOutboxPass(Date.now() + 3 * 60_000, 120_000, 10);
    expect(swept.reenqueued).not.toContain(alert.alertId);
    expect(await messagesOnQueue()).toBe(1);

    // a second copy of the request (a duplicate delivery, an older re-enqueue) is dropped without an attempt
    await enqueue(alert.alertId);
    expect(await pollOnce({ queueUrl: harness.emulators.queues.deliveries, handler, functionName: 'deliver', visibilityTimeoutSeconds: 0 })).toBe(1);
    expect(connections).toBe(1);
    expect(((await getAlertItem(alert.alertId)).deliveryRetries as Record<string, { attempts: number }>)[key]!.attempts).toBe(1);
    expect(await messagesOnQueue()).toBe(1);
  });

  it("gives up after the last attempt of the schedule, whatever the queue's maxReceiveCount, with one DLQ record in words", async () => {
    // 3 receives of a message: the budget of the queue, never of the target
    const sim = new SimulatedDelivery(harness.emulators.queues.deliveries, Date.parse('2026-03-03T06:00:00.000Z'), { maxReceiveCount: 3 });
    const started = sim.now;
    const { alert, key } = await failingAlert('Given Up Webhooks Ltd', 7102);
    const attemptsSeen: number[] = [];
    try {
      await sim.enqueue({ alertId: alert.alertId });
      await sim.drain();
      for (let round = 0; round < 12; round++) {
        const item = await getAlertItem(alert.alertId);
        if (item.status !== 'pending') break;
        attemptsSeen.push((item.deliveryRetries as Record<string, { attempts: number }>)[key]!.attempts);
        if (typeof item.retryHolder === 'string') {
          sim.now = item.nextAttemptAt as number;
          await sim.drain();
        } else {
          sim.now = Date.parse(String(item.retryAt));
          await sim.sweepDue();
        }
      }
    } finally {
      sim.stop();
    }
    expect(attemptsSeen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(connections).toBe(8);
    // 8 attempts over about 27 hours (each wait ±20%)
    expect(sim.now - started).toBeGreaterThan(0.8 * RETRY_HORIZON_SECONDS * 1000);
    expect(sim.now - started).toBeLessThan(1.2 * RETRY_HORIZON_SECONDS * 1000);

    const givenUp = await getAlertItem(alert.alertId);
    const reason = gaveUpReason(8, PLAIN_HTTP);
    expect(givenUp.status).toBe('failed');
    expect(givenUp.outbox).toBeUndefined();
    expect(givenUp.retryHolder).toBeUndefined();
    expect(givenUp.dueAt).toBeUndefined();
    expect((givenUp.deliveries as Record<string, unknown>)[key]).toMatchObject({ status: 'failed', attempts: 8, error: reason });
    expect(reason).toMatch(/^still failing after 8 attempts over about 27\.6 h, the last of the retry schedule: TLS handshake failed/);
    const { Messages = [] } = await sqsClient().send(
      new ReceiveMessageCommand({ QueueUrl: harness.emulators.queues.deliveriesDlq, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'] }),
    );
    const dead = Messages.filter((message) => (JSON.parse(message.Body!) as { alertId?: string }).alertId === alert.alertId);
    expect(dead).toHaveLength(1);
    expect(JSON.parse(dead[0]!.Body!)).toEqual({ alertId: alert.alertId, target: key, reason });
    expect(dead[0]!.MessageAttributes?.reason?.StringValue).toBe(reason);

    // the history answers the alert with its attempts, last error and why it stopped
    const page = await queryHistory({
      source: { kind: 'vehicle', vehicleId: 7102 },
      from: '2026-01-01T00:00:00Z',
      to: '2027-01-01T00:00:00Z',
      limit: 10,
    });
    const listed = page.items.find((item) => item.alertId === alert.alertId);
    expect(listed?.deliveryRetries?.[key]).toMatchObject({ attempts: 7, error: PLAIN_HTTP });
    expect(listed?.deliveries[key]).toMatchObject({ status: 'failed', attempts: 8, error: reason });
    expect(listed?.status).toBe('failed');
  });
});
