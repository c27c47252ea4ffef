import { describe, expect, it } from 'vitest';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { sqsClient } from '../../shared/aws/clients';
import { pollOnce, type SqsHandler } from '../../infra/local/sqs-poller';
import { sentEmails } from '../support/emulators';
import { useDeliverHarness } from '../support/deliver-harness';
import { PARENT_ID, getAlertItem, getUser, linkChat, putAlert, putRule, putUser, putVehicle } from './support/fixtures';
import { markSideEmailConfirmed } from '../../shared/store/email-consent/confirmation';
import { SimulatedDelivery } from './support/simulated-delivery';

const BOT_TOKEN = '123456:test-bot-token';

describe('deliver function', () => {
  const harness = useDeliverHarness({
    name: 'deliver',
    telegram: { botToken: BOT_TOKEN },
    // SNS has no local emulator: Publish and CreatePlatformEndpoint are answered by a stub in the client's middleware
    sns: true,
  });
  const { telegram, sns, secrets } = harness;

  async function enqueue(body: string): Promise<void> {
    await sqsClient().send(new SendMessageCommand({ QueueUrl: harness.emulators.queues.deliveries, MessageBody: body }));
  }

  /** One batch, as Lambda's event source mapping would hand it over; failed records come back at once. */
  async function deliverOnce(handler: SqsHandler = harness.createHandler()): Promise<number> {
    return pollOnce({ queueUrl: harness.emulators.queues.deliveries, handler, functionName: 'deliver', visibilityTimeoutSeconds: 0 });
  }

  /** Chats named on rules must be linked by a user of the rule owner's scope. */
  async function linkRuleChats(...chatIds: string[]): Promise<void> {
    const linker = await putUser({ login: `linker-${chatIds.join('-')}`, email: `linker${chatIds.join('')}@example.com` });
    for (const chatId of chatIds) await linkChat(linker.id, chatId);
  }

  /** Side addresses receive alerts only once confirmed. */
  async function confirmSideEmails(...addresses: string[]): Promise<void> {
    for (const address of addresses) await markSideEmailConfirmed(PARENT_ID, address, Date.now());
  }

  async function drain(): Promise<void> {
    await harness.drainDeliveries({ rounds: 10 });
  }

  it('e-mails each recipient user and side address once, each in its language, then settles the alert', async () => {
    const owner = await putUser({ login: 'owner-ru', email: 'owner@example.com', language: 1 });
    const colleague = await putUser({ login: 'colleague', email: 'Colleague@Example.com', language: 2 });
    const rule = await putRule({
      userId: owner.id,
      toEmail: true,
      recipientIds: [owner.id, colleague.id],
      enableSideEmails: true,
      sideEmails: ['fleet@example.com', 'colleague@example.com'],
      timezone: 'Europe/Moscow',
    });
    await putVehicle(12, 'Truck <A&B>');
    await confirmSideEmails('fleet@example.com', 'colleague@example.com');
    const alert = await putAlert(rule, 12);
    await enqueue(JSON.stringify({ alertId: alert.alertId }));
    await drain();

    const emails = await sentEmails(harness.emulators);
    const to = (address: string) => emails.filter((email) => email.destination.to.includes(address));
    expect(emails).toHaveLength(3);
    expect(to('owner@example.com')[0]?.subject).toBe('[ВНИМАНИЕ] Truck <A&B>: превышение скорости, 104 км/ч');
    expect(to('Colleague@Example.com')[0]?.subject).toBe('[WARNING] Truck <A&B>: speeding, 104 km/h');
    // side addresses are written in the rule owner's language
    expect(to('fleet@example.com')[0]?.subject).toBe('[ВНИМАНИЕ] Truck <A&B>: превышение скорости, 104 км/ч');
    const english = to('Colleague@Example.com')[0]!;
    expect(english.body.text).toContain('Time: 2026-03-01 13:00 (Europe/Moscow)');
    expect(english.body.html).toContain('<b>Truck &lt;A&amp;B&gt;</b>');
    expect(english.body.html).toContain('https://www.openstreetmap.org/?mlat=55.75580&amp;mlon=37.61730');

    const item = await getAlertItem(alert.alertId);
    expect(item.status).toBe('delivered');
    expect(item.outbox).toBeUndefined();
    expect(item.deliveryLease).toBeUndefined();
    expect(Object.keys(item.deliveries as object).sort()).toEqual([
      'email:colleague@example.com',
      'email:fleet@example.com',
      'email:owner@example.com',
    ]);
    expect(Object.values(item.deliveries as Record<string, { status: string }>).map((entry) => entry.status)).toEqual(['sent', 'sent', 'sent']);
  });

  it('sends Telegram messages in HTML, waiting out a 429, and marks a chat that blocked the bot inactive', async () => {
    const user = await putUser({
      login: 'dispatcher',
      email: 'dispatcher@example.com',
      telegramChats: [
        { chatId: '4242', username: 'disp', active: true, linkedAt: '2026-01-01T00:00:00.000Z' },
        { chatId: '666', username: 'gone', active: true, linkedAt: '2026-01-01T00:00:00.000Z' },
        { chatId: '777', username: 'old', active: false, linkedAt: '2026-01-01T00:00:00.000Z' },
      ],
    });
    const rule = await putRule({ userId: user.id, recipientIds: [user.id], toTelegram: true, telegrams: [{ id: '-100500', info: 'night shift' }] });
    await putVehicle(13, 'Tanker "Q" <1>');
    await linkRuleChats('-100500');
    telegram.script('4242', { code: 429, retryAfter: 1 });
    telegram.block('666');
    const alert = await putAlert(rule, 13);
    await enqueue(JSON.stringify({ alertId: alert.alertId }));
    await drain();

    const delivered = telegram.delivered();
    expect(delivered.map((message) => message.chatId).sort()).toEqual(['-100500', '4242']);
    expect(delivered[0]?.parseMode).toBe('HTML');
    expect(delivered[0]?.text).toContain('<b>Tanker &quot;Q&quot; &lt;1&gt;</b> is speeding: 104 km/h (limit 90 km/h).');
    expect(telegram.calls.every((call) => call.token === BOT_TOKEN)).toBe(true);
    // the blocked chat was tried once and not again; the inactive one not at all
    expect(telegram.calls.filter((call) => call.payload.chat_id === '666')).toHaveLength(1);
    expect(telegram.calls.filter((call) => call.payload.chat_id === '777')).toHaveLength(0);

    const chats = Object.values((await getUser(user.id)).telegramChats ?? {});
    expect(chats.find((chat) => chat.chatId === '666')?.active).toBe(false);
    expect(chats.find((chat) => chat.chatId === '4242')?.active).toBe(true);
    const item = await getAlertItem(alert.alertId);
    const deliveries = item.deliveries as Record<string, { status: string; error?: string }>;
    expect(deliveries['telegram:4242']?.status).toBe('sent');
    expect(deliveries['telegram:-100500']?.status).toBe('sent');
    expect(deliveries['telegram:666']).toMatchObject({ status: 'failed', error: expect.stringContaining('403') });
    expect(deliveries['telegram:777']?.status).toBe('skipped');
    expect(item.status).toBe('delivered');
  });

  it('retries a delivery whose Telegram send failed after the e-mail went out, without e-mailing twice', async () => {
    const user = await putUser({
      login: 'retry-user',
      email: 'retry@example.com',
      telegramChats: [{ chatId: '5151', username: '', active: true, linkedAt: '2026-01-01T00:00:00.000Z' }],
    });
    const rule = await putRule({ userId: user.id, recipientIds: [user.id], toEmail: true, toTelegram: true });
    // a retry_after longer than the function may wait: the send is left to a later attempt, not before it
    telegram.script('5151', { code: 429, retryAfter: 600 });
    const alert = await putAlert(rule, 14);
    const sim = new SimulatedDelivery(harness.emulators.queues.deliveries);
    try {
      await sim.enqueue({ alertId: alert.alertId });
      expect(await sim.deliverOnce()).toBe(1);
      const afterFirst = await getAlertItem(alert.alertId);
      expect(afterFirst.status).toBe('pending');
      expect(afterFirst.outbox).toBe('pending');
      expect((afterFirst.deliveries as Record<string, unknown>)['email:retry@example.com']).toMatchObject({ status: 'sent' });
      expect((afterFirst.deliveryRetries as Record<string, unknown>)['telegram:5151']).toMatchObject({
        attempts: 1,
        error: expect.stringContaining('429'),
      });
      expect(sim.askedWaits()).toEqual([600]);

      sim.now += 599_000;
      expect(await sim.deliverOnce()).toBe(0);
      sim.now += 1_000;
      expect(await sim.deliverOnce()).toBe(1); // the failed record came back, 10 minutes later
      expect(await sim.deliverOnce()).toBe(0);
    } finally {
      sim.stop();
    }
    expect((await sentEmails(harness.emulators)).filter((email) => email.destination.to.includes('retry@example.com'))).toHaveLength(1);
    expect(telegram.delivered().map((message) => message.chatId)).toEqual(['5151']);
    const settled = await getAlertItem(alert.alertId);
    expect(settled.status).toBe('delivered');
    expect(settled.outbox).toBeUndefined();
    expect((settled.deliveries as Record<string, unknown>)['telegram:5151']).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it('on the last receive of its request, lets a throttled target wait for the sweep rather than the DLQ, and sends it then', async () => {
    const rule = await putRule({
      toTelegram: true,
      telegrams: [{ id: '8080', info: '' }],
      enableSideEmails: true,
      sideEmails: ['parked@example.com'],
    });
    await linkRuleChats('8080');
    await confirmSideEmails('parked@example.com');
    telegram.script('8080', { code: 429, retryAfter: 600 }, { code: 429, retryAfter: 600 });
    const alert = await putAlert(rule, 15);
    // the queue hands each request out twice at most: the second receive is its last
    const sim = new SimulatedDelivery(harness.emulators.queues.deliveries, Date.now(), { maxReceiveCount: 2 });
    try {
      await sim.enqueue({ alertId: alert.alertId });
      await sim.settle();
      const waiting = await getAlertItem(alert.alertId);
      expect(waiting.status).toBe('pending');
      expect(waiting.outbox).toBeUndefined(); // the due index holds it now, not the queue nor the DLQ
      expect(waiting.retryHolder).toBeUndefined();
      expect(waiting.retryAt).toBe((waiting.deliveryRetries as Record<string, { nextAttemptAt: string }>)['telegram:8080']!.nextAttemptAt);
      expect(waiting.dueAt).toBe(waiting.retryAt);
      expect((waiting.deliveries as Record<string, unknown>)['email:parked@example.com']).toMatchObject({ status: 'sent' });
      expect((waiting.deliveryRetries as Record<string, unknown>)['telegram:8080']).toMatchObject({ attempts: 2 });
      const { Messages = [] } = await sqsClient().send(
        new ReceiveMessageCommand({ QueueUrl: harness.emulators.queues.deliveriesDlq, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }),
      );
      expect(Messages.filter((message) => message.Body?.includes(alert.alertId))).toEqual([]);

      // Telegram works again: the sweep hands the alert back when its retry is due
      sim.now = Date.parse(String(waiting.retryAt));
      expect((await sim.sweepDue()).retried).toEqual([alert.alertId]);
    } finally {
      sim.stop();
    }
    const settled = await getAlertItem(alert.alertId);
    expect(settled.status).toBe('delivered');
    expect(settled.deliveryError).toBeUndefined();
    expect((settled.deliveries as Record<string, unknown>)['telegram:8080']).toMatchObject({ status: 'sent', attempts: 3 });
    expect(telegram.delivered().map((message) => message.chatId)).toEqual(['8080']);
    expect((await sentEmails(harness.emulators)).filter((email) => email.destination.to.includes('parked@example.com'))).toHaveLength(1);
  });

  it('pushes to the users devices through SNS and removes a disabled endpoint', async () => {
    const good = 'arn:aws:sns:us-east-1:000000000000:endpoint/GCM/fleetwatch/good';
    const dead = 'arn:aws:sns:us-east-1:000000000000:endpoint/APNS/fleetwatch/dead';
    const user = await putUser({
      login: 'mobile',
      email: 'mobile@example.com',
      pushDevices: [
        { platform: 'fcm', endpointArn: good, registeredAt: '2026-01-01T00:00:00.000Z' },
        { platform: 'apns', endpointArn: dead, registeredAt: '2026-01-01T00:00:00.000Z' },
      ],
    });
    sns.failFor(dead, 'EndpointDisabledException', 'Endpoint is disabled');
    const rule = await putRule({ userId: user.id, recipientIds: [user.id], toMobile: true, type: 6, name: 'Panic' });
    const alert = await putAlert(rule, 16, { kind: 'panic', values: {} });
    await enqueue(JSON.stringify({ alertId: alert.alertId }));
    await drain();

    const publishes = sns.calls.filter((call) => call.command === 'Publish');
    expect(publishes.map((call) => call.input.TargetArn).sort()).toEqual([dead, good].sort());
    const sent = publishes.find((call) => call.input.TargetArn === good)!;
    expect(sent.input.MessageStructure).toBe('json');
    const message = JSON.parse(String(sent.input.Message)) as Record<string, string>;
    const fcm = JSON.parse(message.GCM!) as { fcmV1Message: { message: { notification: { title: string }; data: Record<string, string> } } };
    expect(fcm.fcmV1Message.message.notification.title).toBe('[CRITICAL] PANIC: Vehicle 16');
    expect(fcm.fcmV1Message.message.data).toMatchObject({ alertId: alert.alertId, vehicleId: '16', severity: 'critical' });
    const apns = JSON.parse(message.APNS!) as { aps: { alert: { title: string } }; severity: string };
    expect(apns.aps.alert.title).toBe('[CRITICAL] PANIC: Vehicle 16');
    expect(apns.severity).toBe('critical');

    expect(Object.values((await getUser(user.id)).pushDevices ?? {}).map((device) => device.endpointArn)).toEqual([good]);
    expect(sns.calls.filter((call) => call.command === 'DeleteEndpoint').map((call) => call.input.EndpointArn)).toEqual([dead]);
    const deliveries = (await getAlertItem(alert.alertId)).deliveries as Record<string, { status: string }>;
    expect(deliveries[`push:${good}`]?.status).toBe('sent');
    expect(deliveries[`push:${dead}`]?.status).toBe('failed');
  });

  it("marks a critical alert in the e-mail subject and the Telegram message, in each recipient's language", async () => {
    const russian = await putUser({ login: 'severity-ru', email: 'severity-ru@example.com', language: 1 });
    const english = await putUser({
      login: 'severity-en',
      email: 'severity-en@example.com',
      language: 2,
      telegramChats: [{ chatId: '5151', username: 'duty', active: true, linkedAt: '2026-01-01T00:00:00.000Z' }],
    });
    const rule = await putRule({
      userId: english.id,
      recipientIds: [russian.id, english.id],
      toEmail: true,
      toTelegram: true,
      settings: { limit: '90', severity: 'critical' },
    });
    await putVehicle(21, 'Truck 21');
    const alert = await putAlert(rule, 21, {}, { severity: 'critical' });
    await enqueue(JSON.stringify({ alertId: alert.alertId }));
    await drain();

    const emails = await sentEmails(harness.emulators);
    const to = (address: string) => emails.filter((email) => email.destination.to.includes(address)).map((email) => email.subject);
    expect(to('severity-en@example.com')).toEqual(['[CRITICAL] Truck 21: speeding, 104 km/h']);
    expect(to('severity-ru@example.com')).toEqual(['[КРИТИЧНО] Truck 21: превышение скорости, 104 км/ч']);
    const [message] = telegram.delivered().filter((sent) => sent.chatId === '5151');
    expect(message?.parseMode).toBe('HTML');
    expect(message?.text).toMatch(/^🔴 <b>CRITICAL<\/b>\n<b>Truck 21<\/b> is speeding: 104 km\/h/);
  });

  it('renders an alert stored before severities as its type default, never as its rule says now', async () => {
    const user = await putUser({
      login: 'severity-legacy',
      email: 'severity-legacy@example.com',
      telegramChats: [{ chatId: '5252', username: 'legacy', active: true, linkedAt: '2026-01-01T00:00:00.000Z' }],
    });
    // the rule now says info; the panic press was raised before there were severities
    const rule = await putRule({
      userId: user.id,
      recipientIds: [user.id],
      toEmail: true,
      toTelegram: true,
      type: 6,
      name: 'Panic',
      settings: { severity: 'info' },
    });
    await putVehicle(22, 'Bus 22');
    const pressed = await putAlert(rule, 22, { kind: 'panic', values: { parameter: 'panic' } });
    expect(pressed).not.toHaveProperty('severity');
    await enqueue(JSON.stringify({ alertId: pressed.alertId }));
    await drain();

    const [email] = (await sentEmails(harness.emulators)).filter((sent) => sent.destination.to.includes('severity-legacy@example.com'));
    expect(email?.subject).toBe('[CRITICAL] PANIC: Bus 22');
    expect(telegram.delivered().find((sent) => sent.chatId === '5252')?.text).toMatch(/^🔴 <b>CRITICAL<\/b>\n/);
    expect((await getAlertItem(pressed.alertId)).status).toBe('delivered');
  });

  it('sends a duplicated queue message only once', async () => {
    const user = await putUser({ login: 'dup', email: 'dup@example.com' });
    const rule = await putRule({ userId: user.id, recipientIds: [user.id], toEmail: true });
    const alert = await putAlert(rule, 17);
    await enqueue(JSON.stringify({ alertId: alert.alertId }));
    await enqueue(JSON.stringify({ alertId: alert.alertId }));
    await drain();
    // and a late third copy, e.g. re-enqueued by the outbox sweep
    await enqueue(JSON.stringify({ alertId: alert.alertId }));
    await drain();
    expect((await sentEmails(harness.emulators)).filter((email) => email.destination.to.includes('dup@example.com'))).toHaveLength(1);
    expect((await getAlertItem(alert.alertId)).status).toBe('delivered');
  });

  it("renders a rule's own message template with escaped placeholders", async () => {
    const rule = await putRule({
      toTelegram: true,
      telegrams: [{ id: '9090', info: '' }],
      settings: { messageTemplate: 'Alarm: {{vehicle}} at {{speed}} km/h <i>{{unknown}}</i>' },
    });
    await putVehicle(18, '<script>&');
    await linkRuleChats('9090');
    const alert = await putAlert(rule, 18);
    await enqueue(JSON.stringify({ alertId: alert.alertId }));
    await drain();
    expect(telegram.delivered()[0]?.text).toBe('🟠 <b>WARNING</b>\nAlarm: &lt;script&gt;&amp; at 104 km/h &lt;i&gt;&lt;/i&gt;');
  });

  it('sends a message too long for Telegram HTML as shortened plain text rather than have it refused', async () => {
    const rule = await putRule({
      toTelegram: true,
      telegrams: [{ id: '9191', info: '' }],
      settings: { messageTemplate: `${'&'.repeat(1990)} {{speed}}` },
    });
    await linkRuleChats('9191');
    const alert = await putAlert(rule, 19);
    await enqueue(JSON.stringify({ alertId: alert.alertId }));
    await drain();
    const [message] = telegram.delivered();
    expect(message?.parseMode).toBeUndefined();
    expect(message?.text).toBe(`${'&'.repeat(1990)} 104`);
    expect((await getAlertItem(alert.alertId)).status).toBe('delivered');
  });

  it('reads the Telegram secret once per process', () => {
    expect(secrets.reads).toBe(1);
  });

  it('parks malformed requests on the DLQ with the reason, without failing the batch', async () => {
    await enqueue('not json');
    await enqueue(JSON.stringify({ alert: 'x' }));
    expect(await deliverOnce()).toBe(2);
    expect(await deliverOnce()).toBe(0);
    const { Messages = [] } = await sqsClient().send(
      new ReceiveMessageCommand({ QueueUrl: harness.emulators.queues.deliveriesDlq, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'] }),
    );
    const reasons = Object.fromEntries(Messages.map((message) => [message.Body, message.MessageAttributes?.reason?.StringValue]));
    expect(reasons['not json']).toBe('body is not JSON');
    expect(reasons['{"alert":"x"}']).toMatch(/^body is not \{"alertId": "..."\}: alertId/);
  });

  it('acknowledges a request for an alert that no longer exists', async () => {
    await enqueue(JSON.stringify({ alertId: 'expired-alert' }));
    expect(await deliverOnce()).toBe(1);
    expect(await deliverOnce()).toBe(0);
  });
});
