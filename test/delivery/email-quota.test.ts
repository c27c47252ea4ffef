import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { sesClient } from '../../shared/aws/ses';
import { sqsClient } from '../../shared/aws/clients';
import { startWebhookReceiver, type RunningWebhookReceiver } from '../../infra/local/webhook-receiver';
import { createSweepHandler } from '../../functions/sweep/handler';
import { sendQuota } from '../../shared/channels/email/send-quota';
import { DEFAULT_EMAIL_DIGEST_INTERVAL_MINUTES, DEFAULT_SES_QUOTA_CACHE_SECONDS } from '../../shared/config';
import { createWebhook } from '../../shared/store/webhooks-store';
import { sentEmails } from '../support/emulators';
import { useDeliverHarness } from '../support/deliver-harness';
import { SesQuotaStub } from './support/ses-quota-stub';
import { getAlertItem, putAlert, putRule, putUser } from './support/fixtures';

type Deliveries = Record<string, { status: string; at: string }>;
const INTERVAL_MS = DEFAULT_EMAIL_DIGEST_INTERVAL_MINUTES * 60_000;
const CACHE_MS = DEFAULT_SES_QUOTA_CACHE_SECONDS * 1000;

/**
 * The account's SES daily quota, on the real deliver and sweep handlers: e-mails go to aws-ses-v2-local, Telegram
 * to the fake Bot API, webhooks to a loopback receiver; only GetAccount is stubbed (SesQuotaStub). The clock is
 * the test's, so the quota cache and the digest interval pass at once.
 */
describe('the SES daily quota', () => {
  let now = Date.parse('2026-03-02T08:00:00.000Z');
  const clock = () => now;
  const harness = useDeliverHarness({
    name: 'email-quota',
    telegram: { botToken: '123456:quota-bot' },
    env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
    dependencies: { clock },
  });
  const { telegram } = harness;
  let receiver: RunningWebhookReceiver;
  const ses = new SesQuotaStub();
  const sweep = createSweepHandler({ clock, readBacklog: async () => ({ kind: 'unmonitored' }) });
  let chatSeed = 7100;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    ses.install(await sesClient());
  });
  afterAll(() => receiver.stop());
  beforeEach(() => {
    receiver.requests.length = 0;
    receiver.received.length = 0;
    receiver.attempts.length = 0;
    sendQuota.reset();
    ses.getAccountCalls = 0;
    now += 7 * 86_400_000;
  });

  /** A client of its own: two users, each with an address and a linked chat, on one rule that also posts to the client's webhook. */
  async function fleet(name: string) {
    const clientId = randomUUID();
    const chats = [String(chatSeed++), String(chatSeed++)];
    const users = await Promise.all(
      chats.map((chatId, index) =>
        putUser({
          parentId: clientId,
          login: `${name}-${index}`,
          email: `${name}-${index}@example.com`,
          telegramChats: [{ chatId, username: name, active: true, linkedAt: '2026-01-01T00:00:00.000Z' }],
        }),
      ),
    );
    const endpoint = await createWebhook({ parentId: clientId, url: `${receiver.url}${name}`, description: name }, now);
    // the receiver takes the fleet's webhooks: a refused one would be on the DLQ, which these tests watch for e-mails
    receiver.secret = endpoint.secret;
    const rule = await putRule({
      parentId: clientId,
      userId: users[0]!.id,
      recipientIds: users.map((user) => user.id),
      toEmail: true,
      toTelegram: true,
      toClient: true,
    });
    const vehicleId = 8000 + chatSeed;
    return { users, chats, endpoint, rule, vehicleId };
  }

  async function drain(): Promise<void> {
    await harness.drainDeliveries({ rounds: 10 });
  }

  /** Raises alerts of the fleet's rule and delivers each before the next, as they would come one by one. */
  async function raiseAlerts(setup: Awaited<ReturnType<typeof fleet>>, speeds: number[]): Promise<string[]> {
    const ids: string[] = [];
    for (const speed of speeds) {
      const alert = await putAlert(setup.rule, setup.vehicleId, { speed });
      await sqsClient().send(
        new SendMessageCommand({ QueueUrl: harness.emulators.queues.deliveries, MessageBody: JSON.stringify({ alertId: alert.alertId }) }),
      );
      await drain();
      ids.push(alert.alertId);
    }
    return ids;
  }

  async function runSweepAt(at: number): Promise<void> {
    now = at;
    await sweep({}, {} as never);
    await drain();
  }

  const inbox = async (address: string) => (await sentEmails(harness.emulators)).filter((email) => email.destination.to.includes(address));
  /** E-mails to the fleet's users (other tests' digests go out on the same sweeps). */
  const fleetInbox = async (setup: Awaited<ReturnType<typeof fleet>>) =>
    (await sentEmails(harness.emulators)).filter((email) => setup.users.some((user) => email.destination.to.includes(user.email)));
  const webhookPosts = (alertId: string) => receiver.requests.filter((request) => JSON.parse(request.body).alertId === alertId);
  const deliveriesOf = async (alertId: string) => (await getAlertItem(alertId)).deliveries as Deliveries;

  async function deadLetters(): Promise<number> {
    const { Attributes } = await sqsClient().send(
      new GetQueueAttributesCommand({ QueueUrl: harness.emulators.queues.deliveriesDlq, AttributeNames: ['ApproximateNumberOfMessages'] }),
    );
    return Number(Attributes?.ApproximateNumberOfMessages ?? 0);
  }

  /** Telegram and the webhook got every alert at once, whatever became of the e-mail. */
  function expectOtherChannelsImmediate(setup: Awaited<ReturnType<typeof fleet>>, alertIds: string[]): void {
    for (const chatId of setup.chats) expect(telegram.delivered().filter((message) => message.chatId === chatId)).toHaveLength(alertIds.length);
    for (const alertId of alertIds) expect(webhookPosts(alertId)).toHaveLength(1);
  }

  it('below the digest threshold, sends each alert e-mail on its own, counting its own sends against the quota', async () => {
    const setup = await fleet('below');
    ses.used(10);
    const alertIds = await raiseAlerts(setup, [101, 102, 103]);

    for (const user of setup.users) {
      const emails = await inbox(user.email);
      expect(emails.map((email) => email.subject)).toEqual([
        `[WARNING] Vehicle ${setup.vehicleId}: speeding, 101 km/h`,
        `[WARNING] Vehicle ${setup.vehicleId}: speeding, 102 km/h`,
        `[WARNING] Vehicle ${setup.vehicleId}: speeding, 103 km/h`,
      ]);
    }
    for (const alertId of alertIds) {
      const deliveries = await deliveriesOf(alertId);
      for (const user of setup.users) expect(deliveries[`email:${user.email}`]?.status).toBe('sent');
    }
    expectOtherChannelsImmediate(setup, alertIds);
    expect(ses.getAccountCalls).toBe(1);
  });

  it('crosses the threshold by its own sends, between two reads of the quota', async () => {
    const setup = await fleet('crossing');
    // two e-mails short of 90 %: the first alert's two e-mails reach it, the cache is not read again
    ses.quota = { ...ses.quota, SentLast24Hours: 44_998 };
    const [first, second] = await raiseAlerts(setup, [111, 112]);
    expect(ses.getAccountCalls).toBe(1);
    for (const user of setup.users) {
      expect((await deliveriesOf(first!))[`email:${user.email}`]?.status).toBe('sent');
      expect((await deliveriesOf(second!))[`email:${user.email}`]?.status).toBe('digest');
    }
  });

  it('near the limit, merges several alerts to one recipient into one digest listing all of them', async () => {
    const setup = await fleet('near');
    ses.used(92);
    const start = now;
    const alertIds = await raiseAlerts(setup, [121, 122, 123]);

    expect(await fleetInbox(setup)).toEqual([]);
    expectOtherChannelsImmediate(setup, alertIds);
    for (const alertId of alertIds) {
      const item = await getAlertItem(alertId);
      expect(item.status).toBe('delivered');
      for (const user of setup.users) expect((item.deliveries as Deliveries)[`email:${user.email}`]?.status).toBe('digest');
    }

    // not before the interval has passed since the first held e-mail
    await runSweepAt(start + INTERVAL_MS - 1000);
    expect(await fleetInbox(setup)).toEqual([]);
    await runSweepAt(start + INTERVAL_MS + 1000);
    for (const user of setup.users) {
      const emails = await inbox(user.email);
      expect(emails).toHaveLength(1);
      expect(emails[0]!.subject).toBe('fleetwatch: 3 alerts in one e-mail');
      const text = emails[0]!.body.text ?? '';
      const listed = ['121', '122', '123'].map((speed) => text.indexOf(`Vehicle ${setup.vehicleId}: speeding, ${speed} km/h`));
      expect(listed.every((position) => position >= 0)).toBe(true);
      expect([...listed].sort((a, b) => a - b)).toEqual(listed);
    }
    for (const alertId of alertIds) {
      const deliveries = await deliveriesOf(alertId);
      for (const user of setup.users) expect(deliveries[`email:${user.email}`]).toMatchObject({ status: 'sent', at: new Date(now).toISOString() });
    }

    await runSweepAt(now + 2 * INTERVAL_MS);
    expect(await fleetInbox(setup)).toHaveLength(setup.users.length);
  });

  it('at exhaustion parks nothing on the DLQ, and sends everything held exactly once when the quota returns', async () => {
    const setup = await fleet('spent');
    ses.used(100);
    const dlqBefore = await deadLetters();
    const alertIds = await raiseAlerts(setup, [131, 132, 133]);
    // a redelivered request lists nothing twice
    await sqsClient().send(
      new SendMessageCommand({ QueueUrl: harness.emulators.queues.deliveries, MessageBody: JSON.stringify({ alertId: alertIds[0] }) }),
    );
    await drain();

    expectOtherChannelsImmediate(setup, alertIds);
    await runSweepAt(now + INTERVAL_MS + 1000);
    await runSweepAt(now + INTERVAL_MS + 1000);
    expect(await fleetInbox(setup)).toEqual([]);
    expect(await deadLetters()).toBe(dlqBefore);
    for (const alertId of alertIds) {
      const item = await getAlertItem(alertId);
      expect(item.status).toBe('delivered');
      for (const user of setup.users) expect((item.deliveries as Deliveries)[`email:${user.email}`]?.status).toBe('digest');
    }

    // SES's rolling 24 hours free room again; the next read of the quota sees it
    ses.used(40);
    await runSweepAt(now + Math.max(INTERVAL_MS, CACHE_MS) + 1000);
    await runSweepAt(now + INTERVAL_MS + 1000);
    await runSweepAt(now + INTERVAL_MS + 1000);
    for (const user of setup.users) {
      const emails = await inbox(user.email);
      expect(emails).toHaveLength(1);
      for (const speed of ['131', '132', '133']) expect(emails[0]!.body.text).toContain(`Vehicle ${setup.vehicleId}: speeding, ${speed} km/h`);
      expect(emails[0]!.body.text?.split(`Vehicle ${setup.vehicleId}: speeding, 131 km/h`)).toHaveLength(2);
    }
    for (const alertId of alertIds) {
      const deliveries = await deliveriesOf(alertId);
      for (const user of setup.users) expect(deliveries[`email:${user.email}`]?.status).toBe('sent');
    }
    expect(await deadLetters()).toBe(dlqBefore);
    expectOtherChannelsImmediate(setup, alertIds);
  });

  it('holds an e-mail SES refused over the quota for the digest, and sends no more one by one until the quota is read again', async () => {
    const setup = await fleet('refused');
    ses.used(50);
    ses.refuseSends = 1;
    const dlqBefore = await deadLetters();
    const [refused, next] = await raiseAlerts(setup, [151, 152]);
    const emailStatuses = async (alertId: string) =>
      Object.entries(await deliveriesOf(alertId))
        .filter(([key]) => key.startsWith('email:'))
        .map(([, status]) => status.status)
        .sort();
    // the alert's two e-mails went out together: SES refused one, which waits for the digest, and took the other
    expect(await emailStatuses(refused!)).toEqual(['digest', 'sent']);
    // the instance counts the quota as spent: the next alert's e-mails wait too, without another GetAccount
    expect(await emailStatuses(next!)).toEqual(['digest', 'digest']);
    expect(ses.getAccountCalls).toBe(1);
    expect(await fleetInbox(setup)).toHaveLength(1);
    expect(await deadLetters()).toBe(dlqBefore);
    expectOtherChannelsImmediate(setup, [refused!, next!]);
  });

  it('reads the quota with GetAccount at most once per cache interval', async () => {
    const setup = await fleet('cached');
    ses.used(10);
    await raiseAlerts(setup, [141, 142, 143, 144]);
    expect(ses.getAccountCalls).toBe(1);
    now += CACHE_MS - 1000;
    await raiseAlerts(setup, [145]);
    expect(ses.getAccountCalls).toBe(1);
    now += 2000;
    await raiseAlerts(setup, [146, 147]);
    expect(ses.getAccountCalls).toBe(2);
    // an alert without e-mail targets never reads it
    const chatOnly = await putRule({ userId: setup.users[0]!.id, recipientIds: [setup.users[0]!.id], toTelegram: true });
    now += CACHE_MS + 1000;
    await raiseAlerts({ ...setup, rule: chatOnly }, [148]);
    expect(ses.getAccountCalls).toBe(2);
  });
});
