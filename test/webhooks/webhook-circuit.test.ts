import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import type { Emulators } from '../../infra/local/emulators';
import { startWebhookReceiver, type RunningWebhookReceiver } from '../../infra/local/webhook-receiver';
import { FakeTelegram } from '../../infra/local/telegram-fake';
import { forgetTelegramCredentials } from '../../shared/channels/telegram/credentials';
import { deliverAlert } from '../../shared/delivery/deliver-alert';
import { throughCircuit } from '../../shared/delivery/circuit-gate';
import { DeliveryStats } from '../../shared/delivery/delivery-stats';
import { channelSenders, resetTelegramSender } from '../../shared/delivery/senders';
import { FAILURES_TO_OPEN, PROBE_INTERVAL_MS } from '../../shared/delivery/circuit-breaker';
import { circuitKeys, FAILING_WEBHOOKS } from '../../shared/schemas/circuit-health';
import { createAgent } from '../../shared/store/directory-store';
import { forgetDestinationHealth } from '../../shared/store/circuit-store';
import { countOpenCircuits } from '../../shared/store/failing-webhooks';
import { createWebhook, getWebhookWithSecrets } from '../../shared/store/webhooks-store';
import { startTestEmulators } from '../support/emulators';
import { FakeSecretsManager } from '../delivery/support/fake-secrets-manager';
import { getAlertItem, linkChat, putAlert, putRule, putUser } from '../delivery/support/fixtures';

type Deliveries = Record<string, { status: string; attempts: number }>;
type Retries = Record<string, { attempts: number; error: string }>;

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const BOT_TOKEN = '123456:circuit-bot-token';
const HELD = /^not attempted: the circuit of /;

/**
 * The circuit breaker per destination, through the real delivery of alerts (`deliverAlert`, as the deliver
 * handler calls it for each queue message, each alert's attempts carried by one message as the queue would),
 * the alerts and directory tables on DynamoDB Local, a loopback webhook receiver scripted to fail and recover,
 * and the Telegram Bot API fake stopped as an outage. The delivery's clock is the test's, so minutes pass at once.
 */
describe('circuit breaker', () => {
  let emulators: Emulators;
  let receiver: RunningWebhookReceiver;
  const telegram = new FakeTelegram();
  const secrets = new FakeSecretsManager();
  let now = T0;
  const clock = () => now;

  beforeAll(async () => {
    emulators = await startTestEmulators('webhook-circuit');
    process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
    receiver = await startWebhookReceiver();
    process.env.TELEGRAM_API_ROOT = await telegram.start();
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = await secrets.start();
    process.env.TELEGRAM_SECRET_ID = 'fleetwatch/circuit-telegram';
    secrets.secrets.set('fleetwatch/circuit-telegram', JSON.stringify({ botToken: BOT_TOKEN, webhookSecret: 'hook-secret' }));
    forgetTelegramCredentials();
    resetTelegramSender();
  });
  afterAll(async () => {
    delete process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS;
    await Promise.all([emulators.stop(), receiver.stop(), telegram.stop(), secrets.stop()]);
  });
  beforeEach(() => {
    receiver.attempts.length = 0;
    receiver.received.length = 0;
    telegram.reset();
    forgetDestinationHealth();
  });

  /** One attempt at an alert, carried by its one queue message; never the last receive, so nothing is parked. */
  const attempt = (alertId: string) =>
    deliverAlert(alertId, {
      senders: channelSenders,
      stats: new DeliveryStats(),
      messageId: `message-${alertId}`,
      receiveCount: 1,
      maxReceiveCount: 100,
      now: clock,
    });
  const attemptAll = async (alerts: readonly { alertId: string }[]) => {
    for (const alert of alerts) await attempt(alert.alertId);
  };

  async function clientWithEndpoint(name: string) {
    const client = await createAgent({ name });
    const endpoint = await createWebhook({ parentId: client.agentId, url: `${receiver.url}${name}`, description: name }, now);
    receiver.secret = endpoint.secret;
    const rule = await putRule({ parentId: client.agentId, toClient: true, stored: true });
    return { clientId: client.agentId, endpoint, rule, key: `webhook:${endpoint.id}` };
  }
  const healthOf = async (clientId: string, endpointId: string) => (await getWebhookWithSecrets(clientId, endpointId))!.health;
  const failingEntry = async (openSince: string, endpointId: string) =>
    (
      await documentClient().send(
        new GetCommand({
          TableName: resourcesConfig().DIRECTORY_TABLE,
          Key: circuitKeys.failingWebhook(openSince, endpointId),
          ConsistentRead: true,
        }),
      )
    ).Item;
  const heldError = async (alertId: string, key: string) => ((await getAlertItem(alertId)).deliveryRetries as Retries | undefined)?.[key]?.error;

  it('opens after 5 failures in a row, holds what follows without a request, probes once a minute, and delivers every held alert once it recovers', async () => {
    now = T0;
    const { clientId, endpoint, rule, key } = await clientWithEndpoint('Down Receiver Ltd');
    receiver.script(...Array.from({ length: FAILURES_TO_OPEN }, () => 503));
    const first = [];
    for (let index = 0; index < FAILURES_TO_OPEN; index++) first.push(await putAlert(rule, 8100 + index));
    // four failures leave it closed: the fifth alert is still sent
    await attemptAll(first.slice(0, -1));
    expect(await healthOf(clientId, endpoint.id)).toMatchObject({ consecutiveFailures: FAILURES_TO_OPEN - 1, openSince: null });
    await attempt(first.at(-1)!.alertId);
    expect(receiver.attempts.map((entry) => entry.status)).toEqual(Array.from({ length: FAILURES_TO_OPEN }, () => 503));
    const opened = await healthOf(clientId, endpoint.id);
    expect(opened).toMatchObject({
      consecutiveFailures: FAILURES_TO_OPEN,
      openSince: new Date(T0).toISOString(),
      lastFailureAt: new Date(T0).toISOString(),
      lastError: 'the endpoint answered 503 (a server error on its side)',
      lastSuccessAt: null,
    });
    // on the sparse list the sweep reads, sorted by when it opened
    expect(await failingEntry(opened.openSince!, endpoint.id)).toMatchObject({ clientId, endpointId: endpoint.id });
    expect((await countOpenCircuits()).webhooks).toBe(1);

    // a new alert and the five retries: none reaches the receiver, each stays pending with the reason
    now = T0 + 30_000;
    const all = [...first, await putAlert(rule, 8199)];
    await attemptAll(all);
    expect(receiver.attempts).toHaveLength(FAILURES_TO_OPEN);
    for (const alert of all) {
      expect((await getAlertItem(alert.alertId)).status, alert.alertId).toBe('pending');
      expect(await heldError(alert.alertId, key)).toMatch(HELD);
    }
    // holding writes nothing: the count stays as it was
    expect((await healthOf(clientId, endpoint.id)).consecutiveFailures).toBe(FAILURES_TO_OPEN);

    // a minute after it opened exactly one attempt goes through as a probe; the receiver still fails it
    now = T0 + PROBE_INTERVAL_MS;
    receiver.script(503);
    await attemptAll(all);
    expect(receiver.attempts).toHaveLength(FAILURES_TO_OPEN + 1);
    expect(await healthOf(clientId, endpoint.id)).toMatchObject({
      consecutiveFailures: FAILURES_TO_OPEN + 1,
      openSince: new Date(T0).toISOString(),
      lastProbeAt: new Date(now).toISOString(),
    });
    // half a minute on, still within the probe's interval: nothing
    now += PROBE_INTERVAL_MS / 2;
    await attemptAll(all);
    expect(receiver.attempts).toHaveLength(FAILURES_TO_OPEN + 1);

    // the next minute the receiver is back: the probe closes the circuit, and every held alert goes out once
    now = T0 + 2 * PROBE_INTERVAL_MS;
    await attemptAll(all);
    now += 1_000;
    await attemptAll(all);
    expect(receiver.received.map((entry) => entry.alertId).sort()).toEqual(all.map((alert) => alert.alertId).sort());
    expect(receiver.attempts.filter((entry) => entry.status === 200)).toHaveLength(all.length);
    for (const alert of all) {
      const item = await getAlertItem(alert.alertId);
      expect(item.status, alert.alertId).toBe('delivered');
      expect((item.deliveries as Deliveries)[key]?.status).toBe('sent');
    }
    expect(await healthOf(clientId, endpoint.id)).toMatchObject({
      consecutiveFailures: 0,
      openSince: null,
      lastProbeAt: null,
      lastSuccessAt: new Date(T0 + 2 * PROBE_INTERVAL_MS).toISOString(),
      // the last failure stays on record
      lastError: 'the endpoint answered 503 (a server error on its side)',
    });
    expect(await failingEntry(opened.openSince!, endpoint.id)).toBeUndefined();
    expect((await countOpenCircuits()).webhooks).toBe(0);
  });

  it('counts passing failures only: a refusal (422) neither counts nor resets, a success resets', async () => {
    now = T0 + 5 * PROBE_INTERVAL_MS;
    const { clientId, endpoint, rule } = await clientWithEndpoint('Picky Parser Ltd');
    receiver.script(503, 503, 422, 503);
    await attemptAll([await putAlert(rule, 8150), await putAlert(rule, 8151), await putAlert(rule, 8152), await putAlert(rule, 8153)]);
    expect((await healthOf(clientId, endpoint.id)).consecutiveFailures).toBe(3);
    await attempt((await putAlert(rule, 8154)).alertId);
    expect(await healthOf(clientId, endpoint.id)).toMatchObject({ consecutiveFailures: 0, lastSuccessAt: new Date(now).toISOString() });
  });

  it('lets exactly one of concurrent deliveries probe, however stale their view of the circuit', async () => {
    now = T0 + 10 * PROBE_INTERVAL_MS;
    const { clientId, endpoint, rule, key } = await clientWithEndpoint('Racing Probes Inc');
    receiver.script(...Array.from({ length: FAILURES_TO_OPEN }, () => 500));
    for (let index = 0; index < FAILURES_TO_OPEN; index++) await attempt((await putAlert(rule, 8200 + index)).alertId);
    expect((await healthOf(clientId, endpoint.id)).openSince).not.toBeNull();

    // four invocations that all read the endpoint before any of them claimed the probe slot
    now += PROBE_INTERVAL_MS;
    const stale = (await getWebhookWithSecrets(clientId, endpoint.id))!;
    const target = { key, channel: 'webhook', endpoint: stale, language: 2 } as const;
    let sends = 0;
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, () =>
        throughCircuit(target, now, () => {
          sends++;
          return Promise.resolve({ status: 'retry', error: 'the endpoint answered 500 (a server error on its side)' } as const);
        }),
      ),
    );
    expect(sends).toBe(1);
    expect(outcomes.filter((outcome) => outcome.status === 'retry' && HELD.test(outcome.error))).toHaveLength(3);
    expect((await healthOf(clientId, endpoint.id)).lastProbeAt).toBe(new Date(now).toISOString());

    // and through whole deliveries at once, the next minute, while the receiver still fails: one request reaches it
    now += PROBE_INTERVAL_MS;
    receiver.attempts.length = 0;
    receiver.script(500);
    const racers = [await putAlert(rule, 8210), await putAlert(rule, 8211), await putAlert(rule, 8212)];
    await Promise.all(racers.map((alert) => attempt(alert.alertId)));
    expect(receiver.attempts).toHaveLength(1);
    const errors = await Promise.all(racers.map((alert) => heldError(alert.alertId, key)));
    expect(errors.filter((error) => error !== undefined && HELD.test(error))).toHaveLength(2);
    expect((await healthOf(clientId, endpoint.id)).openSince).not.toBeNull();

    // the receiver answers again: the next minute's probe closes the circuit
    now += PROBE_INTERVAL_MS;
    await attempt(racers[0]!.alertId);
    expect((await healthOf(clientId, endpoint.id)).openSince).toBeNull();
  });

  it('opens the Telegram circuit when the Bot API is down, while a webhook endpoint of the same alerts goes on', async () => {
    now = T0 + 100 * PROBE_INTERVAL_MS;
    const { clientId, endpoint, key: webhookKey } = await clientWithEndpoint('Two Channels Freight');
    const user = await putUser({ login: 'circuit-dispatcher', email: 'circuit-dispatcher@example.com', parentId: clientId });
    await linkChat(user.id, '9090');
    const rule = await putRule({ parentId: clientId, userId: user.id, recipientIds: [user.id], toTelegram: true, toClient: true, stored: true });
    const port = telegram.port;
    await telegram.stop();

    const alerts = [];
    for (let index = 0; index < FAILURES_TO_OPEN; index++) alerts.push(await putAlert(rule, 8300 + index));
    await attemptAll(alerts);
    const destination = await documentClient().send(
      new GetCommand({ TableName: resourcesConfig().DIRECTORY_TABLE, Key: circuitKeys.destination('telegram'), ConsistentRead: true }),
    );
    expect(destination.Item?.health).toMatchObject({ consecutiveFailures: FAILURES_TO_OPEN, openSince: new Date(now).toISOString() });
    expect((await countOpenCircuits()).destinations).toBe(1);

    // Telegram answers again, but its circuit holds the next alert back until a probe; the webhook takes it at once
    await telegram.start(port);
    now += 1_000;
    const next = await putAlert(rule, 8399);
    await attempt(next.alertId);
    expect(telegram.calls.filter((call) => call.method === 'sendMessage')).toHaveLength(0);
    expect(((await getAlertItem(next.alertId)).deliveries as Deliveries)[webhookKey]?.status).toBe('sent');
    expect(await heldError(next.alertId, 'telegram:9090')).toMatch(/^not attempted: the circuit of telegram is open since/);
    // every alert reached the webhook, each once; its endpoint's circuit stayed closed
    expect(receiver.received.map((entry) => entry.alertId).sort()).toEqual([...alerts, next].map((alert) => alert.alertId).sort());
    expect(await healthOf(clientId, endpoint.id)).toMatchObject({ consecutiveFailures: 0, openSince: null });

    // a minute on, one probe goes to Telegram and closes its circuit; the next attempts send the rest, each once
    now += PROBE_INTERVAL_MS;
    await attemptAll([...alerts, next]);
    now += 10_000;
    await attemptAll([...alerts, next]);
    expect(telegram.delivered().filter((message) => message.chatId === '9090')).toHaveLength(alerts.length + 1);
    for (const alert of [...alerts, next]) expect((await getAlertItem(alert.alertId)).status).toBe('delivered');
    expect((await countOpenCircuits()).destinations).toBe(0);
    expect(receiver.received).toHaveLength(alerts.length + 1);
  });

  it('keeps the open list sparse: no entry is left once every circuit closed', async () => {
    const { Items = [] } = await documentClient().send(
      new QueryCommand({
        TableName: resourcesConfig().DIRECTORY_TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': FAILING_WEBHOOKS },
        ConsistentRead: true,
      }),
    );
    expect(Items).toEqual([]);
  });
});
