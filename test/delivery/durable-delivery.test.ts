import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { sqsClient } from '../../shared/aws/clients';
import { startWebhookReceiver, type RunningWebhookReceiver } from '../../infra/local/webhook-receiver';
import { RETRY_WAITS_SECONDS } from '../../shared/delivery/retry-backoff';
import { MAX_QUEUE_WAIT_MS } from '../../shared/delivery/deliver-alert';
import { runAlertDuePass } from '../../shared/sweep/alert-due-pass';
import { runOutboxPass } from '../../shared/sweep/outbox-pass';
import { MetricName, metrics } from '../../shared/observability/metrics';
import { createAgent } from '../../shared/store/directory-store';
import { dueShardOf } from '../../shared/store/alerts/alerts-store';
import { createWebhook } from '../../shared/store/webhooks-store';
import { useDeliverHarness } from '../support/deliver-harness';
import { sentEmails } from '../support/emulators';
import { getAlertItem, linkChat, putAlert, putRule, putUser } from './support/fixtures';
import { SimulatedDelivery } from './support/simulated-delivery';

type Retries = Record<string, { attempts: number; error: string; at: string; nextAttemptAt: string }>;
type Deliveries = Record<string, { status: string; attempts: number; error?: string }>;

const HOUR = 3_600_000;

/**
 * Durable delivery: every channel's passing failures retried on one schedule of about a day, each target on its
 * own, short waits on the deliveries queue and long ones on the alerts' due index, handed back by the sweep; only
 * what can never be delivered on the deliveries DLQ. The real deliver function and due pass on a simulated clock,
 * over DynamoDB Local, fauxqs, the SES emulator, the Telegram fake and real webhook receivers.
 */
describe('durable delivery', () => {
  const harness = useDeliverHarness({
    name: 'durable-delivery',
    telegram: { botToken: '123456:durable' },
    env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
  });
  const { telegram } = harness;
  let receiver: RunningWebhookReceiver;
  let sim: SimulatedDelivery;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver.stop();
  });
  beforeEach(() => {
    receiver.attempts.length = 0;
    receiver.received.length = 0;
    sim = new SimulatedDelivery(harness.emulators.queues.deliveries, Date.parse('2026-03-02T08:00:00.000Z'));
  });
  afterEach(() => sim.stop());

  /** A client of its own, with one endpoint at `at` (the shared receiver by default) and a dispatcher taking e-mail. */
  async function clientWithEndpoint(name: string, at: RunningWebhookReceiver = receiver) {
    const client = await createAgent({ name });
    const endpoint = await createWebhook({ parentId: client.agentId, url: `${at.url}${name}`, description: name }, Date.now());
    at.secret = endpoint.secret;
    const dispatcher = await putUser({
      login: `dispatcher-${client.agentId}`,
      email: `dispatch@${client.agentId}.example.com`,
      parentId: client.agentId,
    });
    return { clientId: client.agentId, endpoint, dispatcher, key: `webhook:${endpoint.id}` };
  }

  /** Records the deliveries DLQ holds for the alert, left on the queue. */
  async function deadLetters(alertId: string): Promise<{ body: Record<string, unknown>; reason: string | undefined }[]> {
    const seen = new Map<string, Message>();
    for (let receive = 0; receive < 5; receive++) {
      const { Messages = [] } = await sqsClient().send(
        new ReceiveMessageCommand({
          QueueUrl: harness.emulators.queues.deliveriesDlq,
          MaxNumberOfMessages: 10,
          VisibilityTimeout: 0,
          MessageAttributeNames: ['All'],
        }),
      );
      for (const message of Messages) seen.set(message.MessageId!, message);
    }
    return [...seen.values()]
      .map((message) => ({
        body: JSON.parse(message.Body ?? '{}') as Record<string, unknown>,
        reason: message.MessageAttributes?.reason?.StringValue,
      }))
      .filter((record) => record.body.alertId === alertId);
  }

  /** Where the alert's next attempt waits: on the queue (a message holds it) or on the due index; null when settled. */
  function nextWake(item: Record<string, unknown>): { via: 'queue' | 'due'; at: number } | null {
    if (typeof item.retryHolder === 'string') return { via: 'queue', at: item.nextAttemptAt as number };
    if (typeof item.retryAt === 'string') return { via: 'due', at: Date.parse(item.retryAt) };
    return null;
  }

  /** Moves the clock to the alert's next wake and lets the queue or the sweep hand it back. */
  async function wakeUp(alertId: string): Promise<'queue' | 'due' | null> {
    const wake = nextWake(await getAlertItem(alertId));
    if (!wake) return null;
    sim.now = Math.max(sim.now, wake.at);
    if (wake.via === 'due') await sim.sweepDue();
    else await sim.drain();
    return wake.via;
  }

  it('retries a webhook answering 503 on the schedule, long waits through the due index, and delivers it once when the receiver is back 6 hours later', async () => {
    const { clientId, dispatcher, key } = await clientWithEndpoint('Outage Haulage');
    const rule = await putRule({ parentId: clientId, toClient: true, toEmail: true, userId: dispatcher.id, recipientIds: [dispatcher.id] });
    const alert = await putAlert(rule, 9701);
    const started = sim.now;
    // the receiver is down for 6 simulated hours: 5 attempts fit in them, whatever the jitter draws
    receiver.script(503, 503, 503, 503, 503);
    await sim.enqueue({ alertId: alert.alertId });
    await sim.drain();

    // the e-mail went out at once, on the first attempt; the endpoint's failure held nothing back
    const emails = (await sentEmails(harness.emulators)).filter((email) => email.destination.to.includes(dispatcher.email));
    expect(emails).toHaveLength(1);
    expect(((await getAlertItem(alert.alertId)).deliveries as Deliveries)[`email:${dispatcher.email}`]).toMatchObject({
      status: 'sent',
      attempts: 1,
    });

    const waits: { attempts: number; seconds: number; via: string }[] = [];
    for (let step = 0; step < 10; step++) {
      const item = await getAlertItem(alert.alertId);
      if (item.status !== 'pending') break;
      const retry = (item.deliveryRetries as Retries)[key]!;
      const wake = nextWake(item)!;
      waits.push({ attempts: retry.attempts, seconds: (Date.parse(retry.nextAttemptAt) - Date.parse(retry.at)) / 1000, via: wake.via });
      expect(wake.at).toBe(Date.parse(retry.nextAttemptAt));
      if (wake.via === 'queue') {
        // a wait the queue can hold: a message holds it, and the alert stays in the outbox in case it is lost
        expect(wake.at - sim.now).toBeLessThanOrEqual(MAX_QUEUE_WAIT_MS);
        expect(item.outbox).toBeDefined();
        expect(item.dueAt).toBeUndefined();
        expect(sim.queueWaits()).toEqual([wake.at]);
      } else {
        // a longer one: on the due index, out of the outbox, no message kept in flight
        expect(wake.at - sim.now).toBeGreaterThan(MAX_QUEUE_WAIT_MS);
        expect(item).toMatchObject({ dueShard: dueShardOf(alert.alertId), dueAt: item.retryAt });
        expect(item.outbox).toBeUndefined();
        expect(sim.queueWaits()).toEqual([]);
        // nothing wakes it early: neither the sweep a minute before its time nor the outbox
        expect((await runAlertDuePass(wake.at - 60_000)).retried).not.toContain(alert.alertId);
        expect((await runOutboxPass(wake.at - 60_000, 120_000, 10)).reenqueued).not.toContain(alert.alertId);
        expect(await sim.drain()).toBe(0);
      }
      await wakeUp(alert.alertId);
    }

    expect(waits.map((wait) => [wait.attempts, wait.via])).toEqual([
      [1, 'queue'],
      [2, 'queue'],
      [3, 'due'],
      [4, 'due'],
      [5, 'due'],
    ]);
    for (const { attempts, seconds } of waits) {
      expect(seconds).toBeGreaterThanOrEqual(RETRY_WAITS_SECONDS[attempts - 1]! * 0.8 - 1);
      expect(seconds).toBeLessThanOrEqual(RETRY_WAITS_SECONDS[attempts - 1]! * 1.2 + 1);
    }
    const settled = await getAlertItem(alert.alertId);
    expect(settled.status).toBe('delivered');
    expect((settled.deliveries as Deliveries)[key]).toMatchObject({ status: 'sent', attempts: 6 });
    expect(sim.now - started).toBeGreaterThanOrEqual(6 * HOUR);
    expect(receiver.attempts.map((attempt) => attempt.status)).toEqual([503, 503, 503, 503, 503, 200]);
    expect(receiver.received.map((entry) => entry.alertId)).toEqual([alert.alertId]);
    expect(settled.dueAt).toBeUndefined();
    expect(settled.retryAt).toBeUndefined();
    expect(await deadLetters(alert.alertId)).toEqual([]);
    expect((await sentEmails(harness.emulators)).filter((email) => email.destination.to.includes(dispatcher.email))).toHaveLength(1);
  });

  it("honours Telegram's retry_after, and does not try a target early because a sibling came due", async () => {
    const { clientId, dispatcher, key } = await clientWithEndpoint('Throttled Chats Ltd');
    await linkChat(dispatcher.id, '7301');
    const rule = await putRule({ parentId: clientId, toClient: true, toTelegram: true, telegrams: [{ id: '7301', info: '' }] });
    const alert = await putAlert(rule, 9702);
    // 20 minutes: longer than the deliver function may wait in-process, and than the schedule's 5 s
    telegram.script('7301', { code: 429, retryAfter: 1_200 });
    receiver.script(503);
    await sim.enqueue({ alertId: alert.alertId });
    await sim.drain();

    const afterFirst = await getAlertItem(alert.alertId);
    const retries = afterFirst.deliveryRetries as Retries;
    expect(retries['telegram:7301']).toMatchObject({ attempts: 1, error: expect.stringContaining('429') });
    expect(Date.parse(retries['telegram:7301']!.nextAttemptAt) - sim.now).toBe(1_200_000);
    const telegramCalls = () => telegram.calls.filter((call) => call.method === 'sendMessage' && call.payload.chat_id === '7301').length;
    expect(telegramCalls()).toBe(1);

    // the webhook comes due after its 5 s and goes out; the chat is left alone until its retry_after has passed
    expect(await wakeUp(alert.alertId)).toBe('queue');
    expect(receiver.attempts.map((attempt) => attempt.status)).toEqual([503, 200]);
    expect(telegramCalls()).toBe(1);
    const waiting = await getAlertItem(alert.alertId);
    expect((waiting.deliveries as Deliveries)[key]).toMatchObject({ status: 'sent', attempts: 2 });
    expect((waiting.deliveryRetries as Retries)['telegram:7301']).toEqual(retries['telegram:7301']);
    expect(waiting.retryAt).toBe(retries['telegram:7301']!.nextAttemptAt);

    sim.now = Date.parse(retries['telegram:7301']!.nextAttemptAt) - 60_000;
    await sim.sweepDue();
    expect(telegramCalls()).toBe(1);
    expect(await wakeUp(alert.alertId)).toBe('due');
    expect(telegramCalls()).toBe(2);
    const settled = await getAlertItem(alert.alertId);
    expect(settled.status).toBe('delivered');
    expect((settled.deliveries as Deliveries)['telegram:7301']).toMatchObject({ status: 'sent', attempts: 2 });
    expect(telegram.delivered().map((message) => message.chatId)).toEqual(['7301']);
  });

  it("waits at least a webhook's Retry-After, even beyond the schedule's wait", async () => {
    // an endpoint that asks to be left alone for half an hour, then takes the alert
    let answers = 0;
    const slow = createServer((_request, response) => {
      answers++;
      if (answers === 1) response.writeHead(429, { 'Retry-After': '1800' }).end();
      else response.writeHead(200).end();
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const client = await createAgent({ name: 'Slow Down Ltd' });
      const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/hook`;
      const endpoint = await createWebhook({ parentId: client.agentId, url, description: '' }, Date.now());
      const alert = await putAlert(await putRule({ parentId: client.agentId, toClient: true }), 9707);
      await sim.enqueue({ alertId: alert.alertId });
      await sim.drain();
      const retry = ((await getAlertItem(alert.alertId)).deliveryRetries as Retries)[`webhook:${endpoint.id}`]!;
      expect(retry).toMatchObject({ attempts: 1, error: 'the endpoint answered 429 (too many requests; it asks to slow down)' });
      expect(Date.parse(retry.nextAttemptAt) - Date.parse(retry.at)).toBe(1_800_000);
      // 30 minutes: more than the queue holds, so on the due index; nothing before then
      sim.now += 29 * 60_000;
      await sim.sweepDue();
      expect(answers).toBe(1);
      expect(await wakeUp(alert.alertId)).toBe('due');
      expect(answers).toBe(2);
      expect((await getAlertItem(alert.alertId)).status).toBe('delivered');
    } finally {
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  });

  it('puts a permanent 400 on the DLQ at once with its reason in words, and a passing 503 of the same alert nowhere near it', async () => {
    const published = vi.spyOn(metrics, 'addMetric');
    const refusing = await startWebhookReceiver();
    try {
      const { clientId, key: passing } = await clientWithEndpoint('Two Endpoints Co');
      const bad = await createWebhook({ parentId: clientId, url: `${refusing.url}refuses`, description: 'refuses' }, Date.now());
      refusing.secret = bad.secret;
      const rule = await putRule({ parentId: clientId, toClient: true });
      const alert = await putAlert(rule, 9703);
      refusing.script(400);
      receiver.script(503);
      await sim.enqueue({ alertId: alert.alertId });
      await sim.drain();

      const item = await getAlertItem(alert.alertId);
      const refused = 'the endpoint answered 400 (it refused the request)';
      expect((item.deliveries as Deliveries)[`webhook:${bad.id}`]).toMatchObject({ status: 'failed', attempts: 1, error: refused });
      expect((item.deliveryRetries as Retries)[passing]).toMatchObject({
        attempts: 1,
        error: 'the endpoint answered 503 (a server error on its side)',
      });
      expect(await deadLetters(alert.alertId)).toEqual([
        { body: { alertId: alert.alertId, target: `webhook:${bad.id}`, reason: refused }, reason: refused },
      ]);
      const deadLettered = published.mock.calls.filter(([name]) => name === MetricName.DeliveriesDeadLettered);
      expect(deadLettered).toEqual([[MetricName.DeliveriesDeadLettered, 'Count', 1]]);

      await wakeUp(alert.alertId);
      const settled = await getAlertItem(alert.alertId);
      expect((settled.deliveries as Deliveries)[passing]).toMatchObject({ status: 'sent', attempts: 2 });
      expect(settled.status).toBe('delivered');
      expect(await deadLetters(alert.alertId)).toHaveLength(1);
      expect(refusing.attempts).toHaveLength(1);
    } finally {
      published.mockRestore();
      await refusing.stop();
    }
  });

  it('sends nothing for a duplicate request that arrives during a long wait, and keeps the wait as it was', async () => {
    const { clientId, key } = await clientWithEndpoint('Duplicate Freight');
    const rule = await putRule({ parentId: clientId, toClient: true });
    const alert = await putAlert(rule, 9704);
    receiver.script(503, 503, 503);
    await sim.enqueue({ alertId: alert.alertId });
    await sim.drain();
    await wakeUp(alert.alertId);
    await wakeUp(alert.alertId);
    const waiting = await getAlertItem(alert.alertId);
    expect(nextWake(waiting)?.via).toBe('due');
    expect(receiver.attempts).toHaveLength(3);

    // a copy of the request (an SQS duplicate, an operator's stray redrive) half-way through the wait
    sim.now += 10 * 60_000;
    await sim.enqueue({ alertId: alert.alertId });
    expect(await sim.drain()).toBe(1);
    expect(receiver.attempts).toHaveLength(3);
    const after = await getAlertItem(alert.alertId);
    for (const field of ['retryAt', 'dueAt', 'dueShard', 'deliveryRetries', 'deliveries', 'status'])
      expect(after[field], field).toEqual(waiting[field]);
    expect(after.outbox).toBeUndefined();
    expect(after.retryHolder).toBeUndefined();
    expect((after.deliveryRetries as Retries)[key]!.attempts).toBe(3);

    await wakeUp(alert.alertId);
    expect(receiver.attempts.map((attempt) => attempt.status)).toEqual([503, 503, 503, 200]);
  });

  it('sends once when the due pass hands an alert back while a redelivered copy of its request arrives', async () => {
    const { clientId, key } = await clientWithEndpoint('Racing Logistics');
    const rule = await putRule({ parentId: clientId, toClient: true });
    const alert = await putAlert(rule, 9705);
    receiver.script(503, 503, 503);
    await sim.enqueue({ alertId: alert.alertId });
    await sim.drain();
    await wakeUp(alert.alertId);
    await wakeUp(alert.alertId);
    const wake = nextWake(await getAlertItem(alert.alertId))!;
    expect(wake.via).toBe('due');

    sim.now = wake.at;
    // both in one batch: the deliver function works on them at the same time
    await sim.enqueue({ alertId: alert.alertId });
    expect((await runAlertDuePass(sim.now)).retried).toEqual([alert.alertId]);
    await sim.drain();
    await sim.drain();

    expect(receiver.attempts.map((attempt) => attempt.status)).toEqual([503, 503, 503, 200]);
    const settled = await getAlertItem(alert.alertId);
    expect(settled.status).toBe('delivered');
    expect((settled.deliveries as Deliveries)[key]).toMatchObject({ status: 'sent', attempts: 4 });
    // and the sweep, a minute later, has nothing left to hand back
    sim.now += 60_000;
    expect((await runAlertDuePass(sim.now)).retried).toEqual([]);
    expect(receiver.attempts).toHaveLength(4);
  });

  it('sends a target given up on again once its DLQ record is redriven, and only that target', async () => {
    const { clientId, dispatcher, key } = await clientWithEndpoint('Redrive Transport');
    const rule = await putRule({ parentId: clientId, toClient: true, toEmail: true, userId: dispatcher.id, recipientIds: [dispatcher.id] });
    const alert = await putAlert(rule, 9706);
    receiver.script(422);
    await sim.enqueue({ alertId: alert.alertId });
    await sim.drain();
    const failed = await getAlertItem(alert.alertId);
    expect(failed.status).toBe('delivered');
    expect((failed.deliveries as Deliveries)[key]).toMatchObject({ status: 'failed' });
    const [record] = await deadLetters(alert.alertId);
    expect(record?.body).toMatchObject({ alertId: alert.alertId, target: key });

    // the receiver is fixed; the operator redrives the DLQ (the record goes back to the deliveries queue as it was)
    await sim.enqueue(record!.body);
    await sim.enqueue(record!.body);
    await sim.drain();
    expect(receiver.attempts.map((attempt) => attempt.status)).toEqual([422, 200]);
    const settled = await getAlertItem(alert.alertId);
    expect(settled.status).toBe('delivered');
    expect((settled.deliveries as Deliveries)[key]).toMatchObject({ status: 'sent', attempts: 1 });
    expect(settled.outbox).toBeUndefined();
    expect((await sentEmails(harness.emulators)).filter((email) => email.destination.to.includes(dispatcher.email))).toHaveLength(1);
  });
});
