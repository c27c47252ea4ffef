import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/dynamodb';
import { sqsClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { pollOnce, type SqsHandler } from '../../infra/local/sqs-poller';
import type { Emulators } from '../../infra/local/emulators';
import { createDeliverHandler } from '../../functions/deliver/handler';
import { createAgent } from '../../shared/store/directory-store';
import { createWebhook } from '../../shared/store/webhooks-store';
import { outboxShardOf } from '../../shared/store/alerts-store';
import { queryHistory } from '../../shared/store/history-store';
import { runOutboxPass } from '../../shared/pipeline/sweep/outbox-pass';
import { startTestEmulators } from '../support/emulators';
import { getAlertItem, putAlert, putRule } from '../delivery/support/fixtures';

const PLAIN_HTTP = 'TLS handshake failed: the endpoint speaks plain HTTP on an https URL';

/**
 * A webhook endpoint that speaks plain HTTP on an https URL (a loopback HTTP server reached as https://),
 * through the real deliver handler, the deliveries queue and its DLQ on fauxqs, the alerts table on DynamoDB
 * Local and the sweep's real outbox pass.
 */
describe('a failing webhook endpoint', () => {
  let emulators: Emulators;
  let plainHttp: Server;
  let url: string;
  let connections = 0;

  beforeAll(async () => {
    emulators = await startTestEmulators('webhook-failures');
    process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
    plainHttp = createServer((_request, response) => response.end('ok'));
    plainHttp.on('connection', () => connections++);
    await new Promise<void>((resolve) => plainHttp.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(plainHttp.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    delete process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS;
    delete process.env.WEBHOOK_RETRY_BASE_SECONDS;
    await emulators.stop();
    await new Promise<void>((resolve) => plainHttp.close(() => resolve()));
  });
  beforeEach(() => {
    connections = 0;
  });

  async function enqueue(alertId: string): Promise<void> {
    await sqsClient().send(new SendMessageCommand({ QueueUrl: emulators.queues.deliveries, MessageBody: JSON.stringify({ alertId }) }));
  }
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
        QueueUrl: emulators.queues.deliveries,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    return Number(Attributes.ApproximateNumberOfMessages) + Number(Attributes.ApproximateNumberOfMessagesNotVisible);
  }

  it('keeps one pending retry per alert: the outbox does not re-enqueue it, and a second copy is dropped unsent', async () => {
    process.env.WEBHOOK_RETRY_BASE_SECONDS = '30';
    const handler = createDeliverHandler() as unknown as SqsHandler;
    const { alert, key } = await failingAlert('Plain Http Haulage', 7101);
    await enqueue(alert.alertId);
    expect(await pollOnce({ queueUrl: emulators.queues.deliveries, handler, functionName: 'deliver', visibilityTimeoutSeconds: 0 })).toBe(1);

    const afterFirst = await getAlertItem(alert.alertId);
    const retry = (afterFirst.deliveryRetries as Record<string, { attempts: number; error: string; nextAttemptAt: string }>)[key]!;
    expect(retry).toMatchObject({ attempts: 1, error: PLAIN_HTTP });
    const delayMs = Date.parse(retry.nextAttemptAt) - Date.now();
    expect(delayMs).toBeGreaterThan(10_000);
    expect(delayMs).toBeLessThanOrEqual(30_000);
    expect(connections).toBe(1);
    expect(await messagesOnQueue()).toBe(1);

    // the sweep runs three minutes later, while the retry still waits on the queue: nothing is enqueued again
    const swept = await runOutboxPass(Date.now() + 3 * 60_000, 120_000, 10);
    expect(swept.reenqueued).not.toContain(alert.alertId);
    expect(await messagesOnQueue()).toBe(1);

    // a second copy of the request (a duplicate delivery, an older re-enqueue) is dropped without an attempt
    await enqueue(alert.alertId);
    expect(await pollOnce({ queueUrl: emulators.queues.deliveries, handler, functionName: 'deliver', visibilityTimeoutSeconds: 0 })).toBe(1);
    expect(connections).toBe(1);
    expect(((await getAlertItem(alert.alertId)).deliveryRetries as Record<string, { attempts: number }>)[key]!.attempts).toBe(1);
    expect(await messagesOnQueue()).toBe(1);
  });

  it('parks the delivery after its last attempt with the reason in words, each attempt visible on the alert in the history', async () => {
    process.env.WEBHOOK_RETRY_BASE_SECONDS = '0';
    const handler = createDeliverHandler({ maxReceiveCount: 3 }) as unknown as SqsHandler;
    const { alert, key } = await failingAlert('Parked Webhooks Ltd', 7102);
    await enqueue(alert.alertId);

    const attemptsSeen: number[] = [];
    for (let round = 0; round < 6; round++) {
      if ((await pollOnce({ queueUrl: emulators.queues.deliveries, handler, functionName: 'deliver', visibilityTimeoutSeconds: 0 })) === 0) break;
      const retries = (await getAlertItem(alert.alertId)).deliveryRetries as Record<string, { attempts: number }>;
      attemptsSeen.push(retries[key]!.attempts);
    }
    expect(attemptsSeen).toEqual([1, 2, 3]);
    expect(connections).toBe(3);

    const parked = await getAlertItem(alert.alertId);
    expect(parked.status).toBe('pending');
    expect(parked.outbox).toBeUndefined();
    expect(parked.retryHolder).toBeUndefined();
    expect(parked.deliveryError).toBe(`parked after the last attempt: ${key}: ${PLAIN_HTTP}`);
    const { Messages = [] } = await sqsClient().send(
      new ReceiveMessageCommand({ QueueUrl: emulators.queues.deliveriesDlq, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'] }),
    );
    const dead = Messages.find((message) => message.Body === JSON.stringify({ alertId: alert.alertId }));
    expect(dead?.MessageAttributes?.reason?.StringValue).toBe(parked.deliveryError);

    // the history answers the alert with its attempts, last error and why it stopped
    const page = await queryHistory({
      source: { kind: 'vehicle', vehicleId: 7102 },
      from: '2026-01-01T00:00:00Z',
      to: '2027-01-01T00:00:00Z',
      limit: 10,
    });
    const listed = page.items.find((item) => item.alertId === alert.alertId);
    expect(listed?.deliveryRetries?.[key]).toMatchObject({ attempts: 3, error: PLAIN_HTTP });
    expect(listed?.deliveryError).toBe(parked.deliveryError);
    expect(listed?.parkedAt).toBeDefined();
  });
});
