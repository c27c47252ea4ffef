import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { sqsClient } from '../../shared/aws/clients';
import { pollOnce } from '../../infra/local/sqs-poller';
import { startWebhookReceiver, type RunningWebhookReceiver } from '../../infra/local/webhook-receiver';
import { FAILURES_TO_OPEN } from '../../shared/delivery/circuit-breaker';
import { deliverAlert } from '../../shared/delivery/deliver-alert';
import { DeliveryStats } from '../../shared/delivery/delivery-stats';
import { channelSenders } from '../../shared/delivery/senders';
import { NOTICE_RETRY_MS, runCircuitPass } from '../../shared/sweep/circuit-pass';
import { createWebhook, deleteWebhook, getWebhookWithSecrets } from '../../shared/store/webhooks-store';
import { sentEmails } from '../support/emulators';
import { useDeliverHarness } from '../support/deliver-harness';
import { getAlertItem, linkChat, putAlert, putRule } from '../delivery/support/fixtures';
import { TestClock, login, seedTenants, session, typedApiClient, type TypedApi } from '../api/support';

const T0 = Date.parse('2026-03-01T08:00:00.000Z');
const MINUTE = 60_000;
const DAY = 86_400_000;
const BOT_TOKEN = '123456:notice-bot-token';

/**
 * A webhook endpoint's health in the API, and what happens to one that keeps failing: its circuit open for 5
 * days, the sweep's pass disables it and writes one notice, which the deliver handler sends to its client's users
 * by e-mail (the SES emulator's inbox) and in their linked Telegram chats (the Bot API fake), once each, however
 * often the pass runs or the request arrives. Time is the test's clock: the days pass at once.
 */
describe('webhook endpoint health and the disable after days of failure', () => {
  const clock = new TestClock(T0);
  const harness = useDeliverHarness({
    name: 'webhook-notice',
    telegram: { botToken: BOT_TOKEN, secretId: 'fleetwatch/notice-telegram' },
    env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
    dependencies: { clock: clock.now, maxReceiveCount: 100 },
  });
  const { telegram } = harness;
  let receiver: RunningWebhookReceiver;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let api: TypedApi;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    tenants = await seedTenants('notice');
    api = typedApiClient({ now: clock.now });
  });
  afterAll(() => receiver.stop());
  beforeEach(() => {
    receiver.attempts.length = 0;
  });

  const attempt = (alertId: string) =>
    deliverAlert(alertId, {
      senders: channelSenders,
      stats: new DeliveryStats(),
      messageId: `message-${alertId}`,
      receiveCount: 1,
      maxReceiveCount: 100,
      now: clock.now,
    });
  async function drain(): Promise<void> {
    await harness.drainDeliveries({ rounds: 10 });
  }
  async function queued(): Promise<string[]> {
    const { Messages = [] } = await sqsClient().send(
      new ReceiveMessageCommand({ QueueUrl: harness.emulators.queues.deliveries, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }),
    );
    return Messages.map((message) => message.Body ?? '');
  }
  async function queueLength(): Promise<number> {
    const { Attributes = {} } = await sqsClient().send(
      new GetQueueAttributesCommand({
        QueueUrl: harness.emulators.queues.deliveries,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    return Number(Attributes.ApproximateNumberOfMessages) + Number(Attributes.ApproximateNumberOfMessagesNotVisible);
  }

  /** An endpoint of the client whose receiver answered 503 five times in a row, at the clock's time: its circuit is open. */
  async function failingEndpoint(clientId: string, name: string, vehicleId: number) {
    const endpoint = await createWebhook(
      { parentId: clientId, url: `${receiver.url}${name}?token=receiver-side-token`, description: name },
      clock.value,
    );
    receiver.secret = endpoint.secret;
    const rule = await putRule({ parentId: clientId, toClient: true, stored: true });
    receiver.script(...Array.from({ length: FAILURES_TO_OPEN }, () => 503));
    for (let index = 0; index < FAILURES_TO_OPEN; index++) await attempt((await putAlert(rule, vehicleId)).alertId);
    return { endpoint, rule, openSince: new Date(clock.value).toISOString() };
  }
  const get = (token: string | undefined, id: string) => api.GET('/api/v3/webhooks/{id}', { headers: session(token), params: { path: { id } } });

  it("answers an endpoint's health in GET /api/v3/webhooks/{id} and its listings; another tenant gets 404", async () => {
    clock.value = T0;
    const rootToken = await login(api, tenants.root);
    const fresh = await createWebhook({ parentId: tenants.root.agentId, url: `${receiver.url}fresh`, description: 'fresh' }, clock.value);
    const answered = await get(rootToken, fresh.id);
    expect(answered.response.status).toBe(200);
    expect(answered.data?.health).toEqual({ lastSuccessAt: null, lastFailureAt: null, consecutiveFailures: 0, lastError: null, openSince: null });
    expect(JSON.stringify(answered.data)).not.toContain(fresh.secret);
    // alone, so that the failing endpoint below is the client's only one
    await deleteWebhook(tenants.root.agentId, fresh.id);

    clock.advance(MINUTE);
    const { endpoint, openSince } = await failingEndpoint(tenants.root.agentId, 'health-shown', 101);
    const failing = await get(rootToken, endpoint.id);
    expect(failing.data?.health).toEqual({
      lastSuccessAt: null,
      lastFailureAt: openSince,
      consecutiveFailures: FAILURES_TO_OPEN,
      lastError: 'the endpoint answered 503 (a server error on its side)',
      openSince,
    });
    const listed = await api.GET('/api/v3/webhooks', { headers: session(rootToken) });
    expect(listed.data?.find((each) => each.id === endpoint.id)?.health.openSince).toBe(openSince);

    for (const other of [tenants.sibling, tenants.child]) {
      const refused = await get(await login(api, other), endpoint.id);
      expect(refused.response.status, other.login).toBe(404);
      expect(refused.error).toEqual({ error: 'NotFound', message: `webhook ${endpoint.id} not found` });
    }
    expect((await get(undefined, endpoint.id)).response.status).toBe(401);
    expect((await get(rootToken, `${tenants.root.agentId}.AAAAAAAAAAAAAAAAAAAAAA`)).response.status).toBe(404);
    const malformed = await get(rootToken, 'not-an-id');
    expect(malformed.response.status).toBe(400);
    expect(malformed.error?.issues?.[0]?.path).toBe('id');
    await deleteWebhook(tenants.root.agentId, endpoint.id);
  });

  it('disables an endpoint open for 5 days once, e-mails and Telegrams each user once, and enabling it again resets its health', async () => {
    clock.value = T0 + DAY;
    await linkChat(tenants.root.userId, '7070');
    const { endpoint, rule, openSince } = await failingEndpoint(tenants.root.agentId, 'erp-bridge', 101);
    await drain();

    // not yet: a minute short of 5 days
    clock.value = Date.parse(openSince) + 5 * DAY - MINUTE;
    expect((await runCircuitPass(clock.value)).disabled).toEqual([]);
    expect((await getWebhookWithSecrets(tenants.root.agentId, endpoint.id))?.enabled).toBe(true);

    // two sweeps at once: one disables it, one notice is written and handed to deliver
    clock.value = Date.parse(openSince) + 5 * DAY + MINUTE;
    const [one, other] = await Promise.all([runCircuitPass(clock.value), runCircuitPass(clock.value)]);
    expect([...one.disabled, ...other.disabled]).toEqual([endpoint.id]);
    expect(one.noticesEnqueued + other.noticesEnqueued).toBe(1);
    expect((await runCircuitPass(clock.value)).disabled).toEqual([]);
    const disabled = await getWebhookWithSecrets(tenants.root.agentId, endpoint.id);
    expect(disabled).toMatchObject({ enabled: false, disabledAt: new Date(clock.value).toISOString() });
    expect(disabled?.disabledReason).toBe(
      `no delivery succeeded for 5 days: its circuit opened at ${openSince} after ${FAILURES_TO_OPEN} failures in a row`,
    );

    // the request arrives twice (a redelivery): each recipient gets it once
    const [request] = await queued();
    expect(JSON.parse(request!)).toEqual({
      webhookDisabled: { clientId: tenants.root.agentId, endpointId: endpoint.id, disabledAt: disabled?.disabledAt },
    });
    await sqsClient().send(new SendMessageCommand({ QueueUrl: harness.emulators.queues.deliveries, MessageBody: request }));
    expect(await queueLength()).toBe(2);
    await drain();

    const emails = await sentEmails(harness.emulators);
    expect(emails.map((email) => email.destination.to).sort()).toEqual([['root@notice.example.com'], ['viewer@notice.example.com']]);
    const [email] = emails;
    expect(email?.subject).toBe('fleetwatch: webhook endpoint "erp-bridge" disabled');
    for (const text of [email!.body.text!, telegram.delivered()[0]!.text]) {
      expect(text).toContain(endpoint.id);
      expect(text).toContain(new URL(receiver.url).host);
      expect(text).toContain(`PUT /api/v3/webhooks/${endpoint.id} with {"enabled": true}`);
      expect(text).toContain(`POST /api/v3/webhooks/${endpoint.id}/recover with {"since": "${openSince}"}`);
      expect(text).not.toContain(endpoint.secret);
      expect(text).not.toContain('receiver-side-token');
    }
    expect(telegram.delivered().map((message) => message.chatId)).toEqual(['7070']);

    // the next sweeps find nothing to send again
    clock.advance(NOTICE_RETRY_MS + MINUTE);
    expect(await runCircuitPass(clock.value)).toEqual({ disabled: [], noticesEnqueued: 0, probes: [], drained: [] });
    await drain();
    expect(await sentEmails(harness.emulators)).toHaveLength(2);
    expect(telegram.delivered()).toHaveLength(1);

    // a disabled endpoint's alerts are skipped; enabled again, it starts afresh and takes the next alert
    const token = await login(api, tenants.root);
    const enabled = await api.PUT('/api/v3/webhooks/{id}', {
      headers: session(token),
      params: { path: { id: endpoint.id } },
      body: { enabled: true },
    });
    expect(enabled.response.status).toBe(200);
    expect(enabled.data).toMatchObject({ enabled: true, disabledAt: null, disabledReason: null });
    expect(enabled.data?.health).toEqual({ lastSuccessAt: null, lastFailureAt: null, consecutiveFailures: 0, lastError: null, openSince: null });
    const next = await putAlert(rule, 101);
    receiver.attempts.length = 0;
    await attempt(next.alertId);
    expect((await getAlertItem(next.alertId)).status).toBe('delivered');
    expect(receiver.attempts.map((entry) => entry.status)).toEqual([200]);
  });

  it('hands a lost notice out again, and reaches a chat that was down once it is back, sending nobody twice', async () => {
    clock.value = T0 + 20 * DAY;
    await linkChat(tenants.sibling.userId, '8080');
    const { endpoint, openSince } = await failingEndpoint(tenants.sibling.agentId, 'lost-notice', 202);
    await drain();

    clock.value = Date.parse(openSince) + 5 * DAY + MINUTE;
    expect(await runCircuitPass(clock.value)).toEqual({ disabled: [endpoint.id], noticesEnqueued: 1, probes: [], drained: [] });
    // the request is lost on the way (taken off the queue, never handled)
    expect(await pollOnce({ queueUrl: harness.emulators.queues.deliveries, handler: async () => undefined, functionName: 'lost' })).toBe(1);
    await drain();
    expect(await sentEmails(harness.emulators)).toEqual([]);

    // the sweep hands it out again; Telegram is down, so only the e-mail goes
    const port = telegram.port;
    await telegram.stop();
    clock.advance(NOTICE_RETRY_MS);
    expect((await runCircuitPass(clock.value)).noticesEnqueued).toBe(1);
    await drain();
    expect((await sentEmails(harness.emulators)).map((email) => email.destination.to)).toEqual([['sibling@notice.example.com']]);

    // once Telegram is back, the next hand-out reaches the chat, and the e-mail is not sent again
    await telegram.start(port);
    clock.advance(NOTICE_RETRY_MS);
    expect((await runCircuitPass(clock.value)).noticesEnqueued).toBe(1);
    await drain();
    expect(telegram.delivered().map((message) => message.chatId)).toEqual(['8080']);
    expect(await sentEmails(harness.emulators)).toHaveLength(1);
    clock.advance(NOTICE_RETRY_MS);
    expect((await runCircuitPass(clock.value)).noticesEnqueued).toBe(0);
  });
});
