import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { documentClient, sqsClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { startWebhookReceiver, type RunningWebhookReceiver } from '../../infra/local/webhook-receiver';
import { deliverAlert } from '../../shared/delivery/deliver-alert';
import { throughCircuit } from '../../shared/delivery/circuit-gate';
import { DeliveryStats } from '../../shared/delivery/delivery-stats';
import { recoveryVerdict } from '../../shared/store/alerts/recovered-delivery';
import { channelSenders } from '../../shared/delivery/senders';
import { FAILURES_TO_OPEN, HOLD_RECHECK_MS, PROBE_INTERVAL_MS } from '../../shared/delivery/circuit-breaker';
import { RETRY_HORIZON_SECONDS } from '../../shared/delivery/retry-backoff';
import { holdDeadline } from '../../shared/delivery/target-retry';
import { runAlertDuePass } from '../../shared/sweep/alert-due-pass';
import { runCircuitPass } from '../../shared/sweep/circuit-pass';
import { alertSchema } from '../../shared/schemas/alert';
import { createAgent } from '../../shared/store/directory-store';
import { forgetDestinationHealth, forgetWebhookHealth } from '../../shared/store/circuit-store';
import { countOpenCircuits } from '../../shared/store/failing-webhooks';
import { listWebhookAttempts } from '../../shared/store/webhook-deliveries';
import { createWebhook, disableWebhook, getWebhookWithSecrets } from '../../shared/store/webhooks-store';
import { useDeliverHarness } from '../support/deliver-harness';
import { getAlertItem, linkChat, putAlert, putRule, putUser } from '../delivery/support/fixtures';
import { DELIVERY_T0 as T0 } from '../support/fixtures';
import { circuitKeys, FAILING_WEBHOOKS, HELD_LISTS, heldPartition } from '../../shared/store/keys';

type Deliveries = Record<string, { status: string; attempts: number; error?: string }>;
type Retries = Record<string, { attempts: number; error: string; nextAttemptAt: string; heldBy?: string }>;

const BOT_TOKEN = '123456:circuit-bot-token';
const HELD = /^not attempted: the circuit of /;
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The circuit breaker per destination, through the real delivery of alerts (`deliverAlert`, as the deliver
 * handler calls it for each queue message, each alert's own attempts carried by one message as the queue would),
 * the sweep's real circuit pass and the deliver handler taking what it hands back from the deliveries queue, on
 * DynamoDB Local and fauxqs, with a loopback webhook receiver scripted to fail and recover and the Telegram Bot
 * API fake stopped as an outage. The clock is the test's, so minutes pass at once.
 */
describe('circuit breaker', () => {
  let now = T0;
  const clock = () => now;
  const harness = useDeliverHarness({
    name: 'webhook-circuit',
    telegram: { botToken: BOT_TOKEN, secretId: 'fleetwatch/circuit-telegram' },
    env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
    dependencies: { clock, maxReceiveCount: 100 },
  });
  const { telegram } = harness;
  let receiver: RunningWebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver.stop();
  });
  beforeEach(() => {
    receiver.attempts.length = 0;
    receiver.received.length = 0;
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
  /** The deliver handler on what the sweep put on the deliveries queue, until it is empty. */
  async function deliverQueued(): Promise<void> {
    await harness.drainDeliveries({ rounds: 20, mustEmpty: true });
  }
  /** The sweep's circuit pass at the test's time, then the deliveries it handed back. */
  async function sweep(options: { drainPerRun?: number } = {}) {
    const report = await runCircuitPass(now, options);
    await deliverQueued();
    return report;
  }

  async function clientWithEndpoint(name: string) {
    const client = await createAgent({ name });
    const endpoint = await createWebhook({ parentId: client.agentId, url: `${receiver.url}${name}`, description: name }, now);
    receiver.secret = endpoint.secret;
    const rule = await putRule({ parentId: client.agentId, toClient: true, stored: true });
    return { clientId: client.agentId, endpoint, rule, key: `webhook:${endpoint.id}`, destination: `webhook#${endpoint.id}` };
  }
  /** An endpoint whose receiver answered 503 five times in a row at the test's time: its circuit is open. */
  async function openEndpoint(name: string, vehicleId: number) {
    const opened = await clientWithEndpoint(name);
    receiver.script(...Array.from({ length: FAILURES_TO_OPEN }, () => 503));
    const failed = [];
    for (let index = 0; index < FAILURES_TO_OPEN; index++) failed.push(await putAlert(opened.rule, vehicleId));
    await attemptAll(failed);
    expect((await healthOf(opened.clientId, opened.endpoint.id)).openSince).toBe(iso(now));
    return { ...opened, failed };
  }
  const healthOf = async (clientId: string, endpointId: string) => (await getWebhookWithSecrets(clientId, endpointId))!.health;
  const directoryItem = async (key: { pk: string; sk: string }) =>
    (await documentClient().send(new GetCommand({ TableName: resourcesConfig().DIRECTORY_TABLE, Key: key, ConsistentRead: true }))).Item;
  const partition = async (pk: string) =>
    (
      await documentClient().send(
        new QueryCommand({
          TableName: resourcesConfig().DIRECTORY_TABLE,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ConsistentRead: true,
        }),
      )
    ).Items ?? [];
  /** The alerts on a destination's held list, in the list's order. */
  const heldList = async (destination: string) => (await partition(heldPartition(destination))).map((item) => String(item.alertId));
  const retryOf = async (alertId: string, key: string) => ((await getAlertItem(alertId)).deliveryRetries as Retries | undefined)?.[key];
  /** Requests the receiver answered 2xx, per alert. */
  const taken = () => {
    const counts = new Map<string, number>();
    for (const entry of receiver.attempts) {
      if (typeof entry.status === 'number' && entry.status < 300 && entry.idempotencyKey)
        counts.set(entry.idempotencyKey, (counts.get(entry.idempotencyKey) ?? 0) + 1);
    }
    return counts;
  };

  it('opens after 5 failures in a row, holds what follows without a request or a spent attempt, probes once a minute through the oldest held alert, and drains every held alert, oldest first, once it recovers', async () => {
    now = T0;
    const { clientId, endpoint, rule, key, destination } = await clientWithEndpoint('Down Receiver Ltd');
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
      openSince: iso(T0),
      lastFailureAt: iso(T0),
      lastError: 'the endpoint answered 503 (a server error on its side)',
      lastSuccessAt: null,
    });
    // on the sparse list the sweep reads, sorted by when it opened
    expect(await directoryItem(circuitKeys.failingWebhook(opened.openSince!, endpoint.id))).toMatchObject({ clientId, endpointId: endpoint.id });
    expect((await countOpenCircuits()).webhooks).toBe(1);

    // a new alert and the five retries: none reaches the receiver, none spends an attempt, each waits on its alert
    // (the due index, where it is looked at again at the latest HOLD_RECHECK_MS on) and on the held list, oldest first
    now = T0 + 30_000;
    const all = [...first, await putAlert(rule, 8199)];
    await attemptAll(all);
    expect(receiver.attempts).toHaveLength(FAILURES_TO_OPEN);
    for (const alert of all) {
      const item = await getAlertItem(alert.alertId);
      expect(item.status, alert.alertId).toBe('pending');
      expect((item.deliveryRetries as Retries)[key]).toMatchObject({
        attempts: alert === all.at(-1) ? 0 : 1,
        error: expect.stringMatching(HELD),
        heldBy: destination,
        nextAttemptAt: iso(now + HOLD_RECHECK_MS),
      });
      expect(item).toMatchObject({ retryAt: iso(now + HOLD_RECHECK_MS), dueAt: iso(now + HOLD_RECHECK_MS) });
      expect(item.retryHolder).toBeUndefined();
    }
    expect(await heldList(destination)).toEqual(all.map((alert) => alert.alertId));
    expect(await directoryItem(circuitKeys.heldList(destination))).toMatchObject({
      destination,
      owner: { kind: 'webhook', clientId, endpointId: endpoint.id },
    });
    // holding counts no failure of the destination
    expect((await healthOf(clientId, endpoint.id)).consecutiveFailures).toBe(FAILURES_TO_OPEN);

    // a minute after it opened, the sweep hands the oldest held alert to deliver to carry the probe; the receiver still
    // fails it, and the alert is held again with its attempts as they were
    now = T0 + PROBE_INTERVAL_MS;
    receiver.script(503);
    expect(await sweep()).toMatchObject({ probes: [all[0]!.alertId], drained: [] });
    expect(receiver.attempts).toHaveLength(FAILURES_TO_OPEN + 1);
    expect(receiver.attempts.at(-1)?.idempotencyKey).toBe(all[0]!.alertId);
    expect(await healthOf(clientId, endpoint.id)).toMatchObject({
      consecutiveFailures: FAILURES_TO_OPEN + 1,
      openSince: iso(T0),
      lastProbeAt: iso(now),
      probeBy: null,
    });
    expect(await retryOf(all[0]!.alertId, key)).toMatchObject({
      attempts: 1,
      heldBy: destination,
      error: `sent as the probe of the open circuit of ${destination}, which failed: the endpoint answered 503 (a server error on its side)`,
    });

    // half a minute on, within the probe's interval: neither the sweep nor a delivery probes
    now += PROBE_INTERVAL_MS / 2;
    expect((await sweep()).probes).toEqual([]);
    await attemptAll(all);
    expect(receiver.attempts).toHaveLength(FAILURES_TO_OPEN + 1);

    // the next minute the receiver is back: the probe goes out and closes the circuit, which leaves the open list
    now = T0 + 2 * PROBE_INTERVAL_MS;
    expect((await sweep()).probes).toEqual([all[0]!.alertId]);
    expect(taken()).toEqual(new Map([[all[0]!.alertId, 1]]));
    expect(await healthOf(clientId, endpoint.id)).toMatchObject({
      consecutiveFailures: 0,
      openSince: null,
      lastProbeAt: null,
      lastSuccessAt: iso(now),
      // the last failure stays on record
      lastError: 'the endpoint answered 503 (a server error on its side)',
    });
    expect(await directoryItem(circuitKeys.failingWebhook(opened.openSince!, endpoint.id))).toBeUndefined();
    expect((await countOpenCircuits()).webhooks).toBe(0);

    // then a minute at a time the sweep hands the held alerts back, oldest first, a bounded number a run
    now += PROBE_INTERVAL_MS;
    expect((await sweep({ drainPerRun: 3 })).drained).toEqual(all.slice(0, 3).map((alert) => alert.alertId));
    expect(await heldList(destination)).toEqual(all.slice(3).map((alert) => alert.alertId));
    expect([...taken().keys()].sort()).toEqual(
      all
        .slice(0, 3)
        .map((alert) => alert.alertId)
        .sort(),
    );
    now += PROBE_INTERVAL_MS;
    expect((await sweep({ drainPerRun: 3 })).drained).toEqual(all.slice(3).map((alert) => alert.alertId));
    // found empty, the list is forgotten
    now += PROBE_INTERVAL_MS;
    expect(await sweep({ drainPerRun: 3 })).toMatchObject({ probes: [], drained: [] });
    expect(await directoryItem(circuitKeys.heldList(destination))).toBeUndefined();

    // every alert went out once, each within a minute of the drain reaching it, its attempts those actually made
    expect(taken()).toEqual(new Map(all.map((alert) => [alert.alertId, 1])));
    for (const alert of all) {
      const item = await getAlertItem(alert.alertId);
      expect(item.status, alert.alertId).toBe('delivered');
      expect((item.deliveries as Deliveries)[key]).toMatchObject({ status: 'sent', attempts: alert === all.at(-1) ? 1 : 2 });
      expect(item.retryAt).toBeUndefined();
      expect(item.dueAt).toBeUndefined();
    }
  });

  it('counts passing failures only: a refusal (422) neither counts nor resets, a success resets', async () => {
    now = T0 + 5 * PROBE_INTERVAL_MS;
    const { clientId, endpoint, rule } = await clientWithEndpoint('Picky Parser Ltd');
    receiver.script(503, 503, 422, 503);
    await attemptAll([await putAlert(rule, 8150), await putAlert(rule, 8151), await putAlert(rule, 8152), await putAlert(rule, 8153)]);
    expect((await healthOf(clientId, endpoint.id)).consecutiveFailures).toBe(3);
    await attempt((await putAlert(rule, 8154)).alertId);
    expect(await healthOf(clientId, endpoint.id)).toMatchObject({ consecutiveFailures: 0, lastSuccessAt: iso(now) });
  });

  it('lets exactly one probe go per interval, however many deliveries and sweeps ask at once and however stale their view', async () => {
    now = T0 + 10 * PROBE_INTERVAL_MS;
    const { clientId, endpoint, rule, key, destination } = await openEndpoint('Racing Probes Inc', 8200);

    // four deliveries that all read the endpoint before any of them claimed the probe slot
    now += PROBE_INTERVAL_MS;
    const stale = (await getWebhookWithSecrets(clientId, endpoint.id))!;
    const target = { key, channel: 'webhook', endpoint: stale, language: 2 } as const;
    const waiting = [await putAlert(rule, 8205), await putAlert(rule, 8206), await putAlert(rule, 8207), await putAlert(rule, 8208)];
    let sends = 0;
    const results = await Promise.all(
      waiting.map((alert) =>
        throughCircuit(
          target,
          { alertId: alert.alertId, createdAt: alert.createdAt, heldBy: undefined, deadline: holdDeadline(alert.createdAt) },
          now,
          () => {
            sends++;
            return Promise.resolve({ status: 'retry', error: 'the endpoint answered 500 (a server error on its side)' } as const);
          },
        ),
      ),
    );
    expect(sends).toBe(1);
    expect(results.filter((result) => result.kind === 'sent')).toEqual([{ kind: 'sent', outcome: expect.anything(), probed: destination }]);
    expect(results.filter((result) => result.kind === 'held' && HELD.test(result.reason))).toHaveLength(3);
    expect((await healthOf(clientId, endpoint.id)).lastProbeAt).toBe(iso(now));
    // their alerts' deliveries, at the same minute: the slot is taken, each is held
    await attemptAll(waiting);
    for (const alert of waiting) expect(await retryOf(alert.alertId, key), alert.alertId).toMatchObject({ attempts: 0, heldBy: destination });

    // the next minute two sweeps and three new alerts at once, with a second copy of each request the sweeps made,
    // while the receiver still fails: one request reaches it
    now += PROBE_INTERVAL_MS;
    receiver.attempts.length = 0;
    receiver.script(500);
    const racers = [await putAlert(rule, 8210), await putAlert(rule, 8211), await putAlert(rule, 8212)];
    await Promise.all([runCircuitPass(now), runCircuitPass(now), ...racers.map((alert) => attempt(alert.alertId))]);
    const { Messages = [] } = await sqsClient().send(
      new ReceiveMessageCommand({ QueueUrl: harness.emulators.queues.deliveries, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }),
    );
    for (const message of Messages)
      await sqsClient().send(new SendMessageCommand({ QueueUrl: harness.emulators.queues.deliveries, MessageBody: message.Body }));
    await deliverQueued();
    expect(receiver.attempts).toHaveLength(1);
    const errors = await Promise.all(racers.map(async (alert) => (await retryOf(alert.alertId, key))?.error));
    expect(errors.filter((error) => error !== undefined && HELD.test(error)).length).toBeGreaterThanOrEqual(2);
    expect((await healthOf(clientId, endpoint.id)).openSince).not.toBeNull();

    // the receiver answers again: the next minute's probe closes the circuit, and the minute after the held alerts
    // go out, each once; a racer whose own first attempt was the probe retries on its schedule
    now += PROBE_INTERVAL_MS;
    await sweep();
    expect((await healthOf(clientId, endpoint.id)).openSince).toBeNull();
    now += PROBE_INTERVAL_MS;
    await sweep();
    await attemptAll(racers);
    const held = [...waiting, ...racers];
    for (const alert of held) expect((await getAlertItem(alert.alertId)).status, alert.alertId).toBe('delivered');
    expect([...taken().entries()].filter(([, count]) => count !== 1)).toEqual([]);
    expect([...taken().keys()].sort()).toEqual(held.map((alert) => alert.alertId).sort());
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
    const openSince = iso(now);
    expect((await directoryItem(circuitKeys.destination('telegram')))?.health).toMatchObject({ consecutiveFailures: FAILURES_TO_OPEN, openSince });
    expect((await countOpenCircuits()).destinations).toBe(1);

    // Telegram answers again, but its circuit holds the retries and the next alert until a probe; the webhook takes
    // the new alert at once
    await telegram.start(port);
    now += 10_000;
    const next = await putAlert(rule, 8399);
    await attemptAll([...alerts, next]);
    expect(telegram.calls.filter((call) => call.method === 'sendMessage')).toHaveLength(0);
    expect(((await getAlertItem(next.alertId)).deliveries as Deliveries)[webhookKey]?.status).toBe('sent');
    expect(await retryOf(next.alertId, 'telegram:9090')).toMatchObject({
      attempts: 0,
      heldBy: 'telegram',
      error: expect.stringMatching(/^not attempted: the circuit of telegram is open since/),
    });
    expect(await heldList('telegram')).toEqual([...alerts, next].map((alert) => alert.alertId));
    // every alert reached the webhook, each once; its endpoint's circuit stayed closed
    expect(taken()).toEqual(new Map([...alerts, next].map((alert) => [alert.alertId, 1])));
    expect(await healthOf(clientId, endpoint.id)).toMatchObject({ consecutiveFailures: 0, openSince: null });

    // a minute after it opened, the oldest held alert carries the probe, which closes the circuit; the next minute
    // the rest are drained, each sent once
    now = Date.parse(openSince) + PROBE_INTERVAL_MS;
    expect((await sweep()).probes).toEqual([alerts[0]!.alertId]);
    expect((await countOpenCircuits()).destinations).toBe(0);
    now += PROBE_INTERVAL_MS;
    expect((await sweep()).drained).toEqual([...alerts, next].map((alert) => alert.alertId));
    expect(telegram.delivered().filter((message) => message.chatId === '9090')).toHaveLength(alerts.length + 1);
    for (const alert of [...alerts, next]) expect((await getAlertItem(alert.alertId)).status).toBe('delivered');
    expect(taken()).toEqual(new Map([...alerts, next].map((alert) => [alert.alertId, 1])));
  });

  it("gives up on a target held past the retry schedule's horizon: failed, on the DLQ, and in the endpoint's log for its recovery", async () => {
    now = T0 + 200 * PROBE_INTERVAL_MS;
    const { clientId, endpoint, rule, key, destination } = await openEndpoint('Gone Quiet Ltd', 8400);
    const createdAt = iso(now - RETRY_HORIZON_SECONDS * 1000 + 2 * 3_600_000);
    const late = await putAlert(rule, 8401, {}, { createdAt });
    await attempt(late.alertId);
    // held no longer than the horizon after it was raised, two hours from now
    expect(await retryOf(late.alertId, key)).toMatchObject({ attempts: 0, heldBy: destination, nextAttemptAt: iso(holdDeadline(createdAt)) });

    // still down then: the probe its wake-up carries fails, and it is given up on
    now = holdDeadline(createdAt);
    receiver.script(503);
    expect((await runAlertDuePass(now)).retried).toContain(late.alertId);
    await deliverQueued();
    const item = await getAlertItem(late.alertId);
    expect(item.status).toBe('failed');
    expect((item.deliveries as Deliveries)[key]).toMatchObject({
      status: 'failed',
      attempts: 0,
      error: expect.stringMatching(new RegExp(`^its destination ${destination} did not take deliveries for about 27.6 h after the alert`)),
    });
    const logged = await listWebhookAttempts(endpoint.id, { status: 'failed', limit: 20 });
    // the probe's own request, which a recovery finds
    expect(logged.attempts.filter((entry) => entry.alertId === late.alertId)).toEqual([
      expect.objectContaining({ status: 'failed', httpStatus: 503 }),
    ]);
    const { Messages = [] } = await sqsClient().send(
      new ReceiveMessageCommand({ QueueUrl: harness.emulators.queues.deliveriesDlq, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }),
    );
    expect(Messages.map((message) => JSON.parse(message.Body ?? '{}') as Record<string, unknown>)).toContainEqual(
      expect.objectContaining({ alertId: late.alertId, target: key }),
    );
    // enabled again, it starts closed; the given-up alert's entry leaves the held list with the drain, sending nothing
    await forgetWebhookHealth(clientId, endpoint.id);
    receiver.attempts.length = 0;
    now += PROBE_INTERVAL_MS;
    expect((await sweep()).drained).toEqual([late.alertId]);
    expect(receiver.attempts).toEqual([]);
  });

  it('fails and logs the held deliveries of an endpoint disabled while its circuit was open, so that its recovery sends them', async () => {
    now = T0 + 300 * PROBE_INTERVAL_MS;
    const { clientId, endpoint, rule, key, destination } = await openEndpoint('Switched Off Ltd', 8500);
    const held = await putAlert(rule, 8501, {}, { createdAt: iso(now) });
    await attempt(held.alertId);
    expect(await heldList(destination)).toEqual([held.alertId]);

    expect(await disableWebhook(clientId, endpoint.id, 'disabled by its client', now)).toBe(true);
    now += PROBE_INTERVAL_MS;
    expect((await sweep()).drained).toEqual([held.alertId]);
    const item = await getAlertItem(held.alertId);
    expect((item.deliveries as Deliveries)[key]).toMatchObject({
      status: 'failed',
      error: 'held by its open circuit until the endpoint is disabled (disabled by its client)',
    });
    expect((await listWebhookAttempts(endpoint.id, { status: 'failed', limit: 20 })).attempts.map((entry) => entry.alertId)).toContain(held.alertId);
    const stored = (await getWebhookWithSecrets(clientId, endpoint.id))!;
    expect(recoveryVerdict({ alert: alertSchema.parse(item), deliveryLease: null }, { ...stored, enabled: true }, now)).toBe('resend');
    await forgetWebhookHealth(clientId, endpoint.id);
  });

  it('keeps the open and held lists sparse: nothing is left once every circuit closed and its held alerts went out', async () => {
    for (let run = 0; run < 3; run++) {
      now += PROBE_INTERVAL_MS;
      await sweep();
    }
    expect(await partition(FAILING_WEBHOOKS)).toEqual([]);
    expect(await partition(HELD_LISTS)).toEqual([]);
  });
});
