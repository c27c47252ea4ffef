import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { sqsClient } from '../../shared/aws/clients';
import { createSweepHandler } from '../../functions/sweep/handler';
import { sendQuota } from '../../shared/channels/email/send-quota';
import { replaceUserPreferences } from '../../shared/store/user-preferences';
import { dueDigests, holdForDigest } from '../../shared/store/email-digests';
import { countCapacity } from '../support/count-capacity';
import type { Severity } from '../../shared/schemas/severity';
import { sesClient } from '../../shared/aws/ses';
import { sentEmails } from '../support/emulators';
import { useDeliverHarness } from '../support/deliver-harness';
import { SesQuotaStub } from './support/ses-quota-stub';
import { getAlertItem, putAlert, putRule, putUser } from './support/fixtures';

type Deliveries = Record<string, { status: string; reason?: string; at: string; error?: string }>;

/**
 * Quiet hours on the real deliver and sweep handlers, with DynamoDB Local, fauxqs, aws-ses-v2-local's inbox and
 * the fake Bot API; SNS (no emulator) and SES's GetAccount (no quotas in the emulator) are stubbed. The clock is
 * the test's: each night is 22:00–07:00 in Berlin (UTC+1 in winter).
 */
describe('quiet hours', () => {
  let now = Date.parse('2026-01-05T12:00:00.000Z');
  const clock = () => now;
  const harness = useDeliverHarness({ name: 'quiet-hours', telegram: { botToken: '123456:quiet-bot' }, sns: true, dependencies: { clock } });
  const { telegram, sns } = harness;
  const ses = new SesQuotaStub();
  const sweep = createSweepHandler({ clock, readBacklog: async () => ({ kind: 'unmonitored' }) });
  let seed = 6100;

  beforeAll(async () => ses.install(await sesClient()));
  afterAll(async () => ses.uninstall(await sesClient()));
  beforeEach(() => {
    sendQuota.reset();
    ses.used(10);
    // a night of its own for each test
    now += 7 * 86_400_000;
  });

  /** The test's day: a Berlin wall-clock time in winter as an instant, `days` after it. */
  function testDay(): (time: string, days?: number) => number {
    const day = new Date(now);
    const base = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate());
    return (time, days = 0) => {
      const [hours, minutes] = time.split(':').map(Number);
      return base + days * 86_400_000 + ((hours! - 1) * 60 + minutes!) * 60_000;
    };
  }

  /** A client of its own: a dispatcher with an address, a linked chat and a phone, quiet from 22:00 to 07:00 in Berlin. */
  async function dispatcher(name: string) {
    const chatId = String(seed++);
    const endpointArn = `arn:aws:sns:us-east-1:000000000000:endpoint/GCM/fleetwatch/${name}`;
    const user = await putUser({
      parentId: randomUUID(),
      login: name,
      email: `${name}@example.com`,
      language: 2,
      telegramChats: [{ chatId, username: name, active: true, linkedAt: '2026-01-01T00:00:00.000Z' }],
      pushDevices: [{ platform: 'fcm', endpointArn, registeredAt: '2026-01-01T00:00:00.000Z' }],
    });
    await replaceUserPreferences(user.id, {
      quietHours: { from: '22:00', to: '07:00', timezone: 'Europe/Berlin' },
      minSeverity: { email: 'info', telegram: 'info', push: 'info' },
    });
    const rule = await putRule({
      parentId: user.parentId,
      userId: user.id,
      recipientIds: [user.id],
      toEmail: true,
      toTelegram: true,
      toMobile: true,
    });
    return { user, chatId, endpointArn, rule, vehicleId: seed++ };
  }
  type Dispatcher = Awaited<ReturnType<typeof dispatcher>>;

  async function request(alertId: string): Promise<void> {
    await sqsClient().send(new SendMessageCommand({ QueueUrl: harness.emulators.queues.deliveries, MessageBody: JSON.stringify({ alertId }) }));
  }
  const drain = () => harness.drainDeliveries({ rounds: 20 });

  /** Raises an alert of the dispatcher's rule at `at` and delivers it. */
  async function raise(setup: Dispatcher, at: number, speed: number, severity?: Severity): Promise<string> {
    now = at;
    const alert = await putAlert(setup.rule, setup.vehicleId, { speed }, severity ? { severity } : {});
    await request(alert.alertId);
    await drain();
    return alert.alertId;
  }

  async function runSweepAt(at: number): Promise<void> {
    now = at;
    await sweep({}, {} as never);
    await drain();
  }

  const inbox = async (setup: Dispatcher) => (await sentEmails(harness.emulators)).filter((email) => email.destination.to.includes(setup.user.email));
  const chat = (setup: Dispatcher) => telegram.delivered().filter((message) => message.chatId === setup.chatId);
  const pushes = (setup: Dispatcher) => sns.calls.filter((call) => call.command === 'Publish' && call.input.TargetArn === setup.endpointArn);
  const deliveriesOf = async (alertId: string) => (await getAlertItem(alertId)).deliveries as Deliveries;
  const subject = (setup: Dispatcher, speed: number) => `Vehicle ${setup.vehicleId}: speeding, ${speed} km/h`;

  it('sends a critical alert through the night at once, holds a warning, and sends it once in the morning digest by e-mail and Telegram', async () => {
    const berlin = testDay();
    const setup = await dispatcher('night-owl');
    const warning = await raise(setup, berlin('22:30'), 101, 'warning');
    const critical = await raise(setup, berlin('23:10'), 150, 'critical');
    // an alert raised before severities counts as its type's default, warning for speeding: held too
    const unrated = await raise(setup, berlin('02:00', 1), 102);

    // the night: only the critical alert went out, on every channel
    expect((await inbox(setup)).map((email) => email.subject)).toEqual([`[CRITICAL] ${subject(setup, 150)}`]);
    expect(chat(setup)).toHaveLength(1);
    expect(chat(setup)[0]!.text).toContain('150 km/h');
    expect(pushes(setup)).toHaveLength(1);
    const until = new Date(berlin('07:00', 1)).toISOString();
    for (const alertId of [warning, unrated]) {
      const deliveries = await deliveriesOf(alertId);
      expect(deliveries[`email:${setup.user.email}`]).toMatchObject({ status: 'digest', reason: 'quietHours' });
      expect(deliveries[`telegram:${setup.chatId}`]).toMatchObject({ status: 'digest', reason: 'quietHours' });
      expect(deliveries[`push:${setup.endpointArn}`]).toMatchObject({ status: 'skipped', reason: 'quietHours' });
      expect(deliveries[`push:${setup.endpointArn}`]?.error).toContain(until);
      // the alert itself is settled; what waits is on the user's digest
      expect((await getAlertItem(alertId)).status).toBe('delivered');
    }
    expect(Object.values(await deliveriesOf(critical)).map((entry) => [entry.status, entry.reason])).toEqual(Array(3).fill(['sent', undefined]));

    // a minute before the end: still nothing
    await runSweepAt(berlin('06:59', 1));
    expect(await inbox(setup)).toHaveLength(1);
    expect(chat(setup)).toHaveLength(1);

    // the first sweep after 07:00: one e-mail and one Telegram message listing both held alerts, in order
    await runSweepAt(berlin('07:00', 1) + 20_000);
    const emails = await inbox(setup);
    expect(emails).toHaveLength(2);
    const digest = emails[1]!;
    expect(digest.subject).toBe('fleetwatch: 2 alerts from your quiet hours');
    const text = digest.body.text ?? '';
    expect(text).toContain(`1. [WARNING] ${subject(setup, 101)}`);
    expect(text).toContain(`2. [WARNING] ${subject(setup, 102)}`);
    expect(text).not.toContain('150 km/h');
    const messages = chat(setup);
    expect(messages).toHaveLength(2);
    expect(messages[1]!.text).toBe(
      `<b>Your quiet hours are over.</b> 2 alerts came while they lasted, in the order raised:\n1. [WARNING] ${subject(setup, 101)}\n2. [WARNING] ${subject(setup, 102)}`,
    );
    expect(pushes(setup)).toHaveLength(1);
    for (const alertId of [warning, unrated]) {
      const deliveries = await deliveriesOf(alertId);
      for (const key of [`email:${setup.user.email}`, `telegram:${setup.chatId}`]) {
        expect(deliveries[key]).toMatchObject({ status: 'sent', reason: 'quietHours', at: new Date(now).toISOString() });
      }
    }

    // the day: a warning goes out at once, and nothing goes again
    await raise(setup, berlin('09:00', 1), 103, 'warning');
    await runSweepAt(berlin('12:00', 1));
    expect((await inbox(setup)).map((email) => email.subject)).toEqual([
      `[CRITICAL] ${subject(setup, 150)}`,
      digest.subject,
      `[WARNING] ${subject(setup, 103)}`,
    ]);
    expect(chat(setup)).toHaveLength(3);
    expect(pushes(setup)).toHaveLength(2);
  });

  it('lists a held alert in exactly one digest, never also at once, under redelivered requests and doubled sweeps', async () => {
    const berlin = testDay();
    const setup = await dispatcher('redelivered');
    const first = await raise(setup, berlin('23:00'), 111, 'info');
    // the same delivery request twice more, at night and after the night ended
    await request(first);
    await request(first);
    await drain();
    const second = await raise(setup, berlin('03:00', 1), 112, 'warning');
    now = berlin('08:30', 1);
    await request(second);
    await drain();
    expect(await inbox(setup)).toEqual([]);
    expect(chat(setup)).toEqual([]);

    // two sweeps at once, and again a minute later; then the digest request itself arrives twice
    now = berlin('08:31', 1);
    await Promise.all([sweep({}, {} as never), sweep({}, {} as never)]);
    await drain();
    await runSweepAt(berlin('08:32', 1));
    for (const body of [
      { quietHoursDigest: { userId: setup.user.id, targetKey: `email:${setup.user.email}`, until: new Date(berlin('07:00', 1)).toISOString() } },
      { quietHoursDigest: { userId: setup.user.id, targetKey: `telegram:${setup.chatId}`, until: new Date(berlin('07:00', 1)).toISOString() } },
    ]) {
      await sqsClient().send(new SendMessageCommand({ QueueUrl: harness.emulators.queues.deliveries, MessageBody: JSON.stringify(body) }));
    }
    await drain();
    await runSweepAt(berlin('09:30', 1));

    const emails = await inbox(setup);
    expect(emails).toHaveLength(1);
    const text = emails[0]!.body.text ?? '';
    for (const speed of [111, 112]) expect(text.split(subject(setup, speed))).toHaveLength(2);
    expect(chat(setup)).toHaveLength(1);
    expect(chat(setup)[0]!.text.split(subject(setup, 111))).toHaveLength(2);
    for (const alertId of [first, second]) {
      const deliveries = await deliveriesOf(alertId);
      expect(deliveries[`email:${setup.user.email}`]).toMatchObject({ status: 'sent', reason: 'quietHours' });
      expect(deliveries[`telegram:${setup.chatId}`]).toMatchObject({ status: 'sent', reason: 'quietHours' });
    }
  });

  it('keeps each night a digest of its own, and leaves recipients without quiet hours alone', async () => {
    const berlin = testDay();
    const setup = await dispatcher('two-nights');
    const awake = await putUser({ parentId: setup.user.parentId, login: 'awake', email: 'awake@example.com' });
    const rule = await putRule({ parentId: setup.user.parentId, userId: setup.user.id, recipientIds: [setup.user.id, awake.id], toEmail: true });
    now = berlin('23:00');
    const alert = await putAlert(rule, setup.vehicleId, { speed: 121 });
    await request(alert.alertId);
    await drain();
    expect((await sentEmails(harness.emulators)).map((email) => email.destination.to)).toEqual([['awake@example.com']]);

    await runSweepAt(berlin('07:01', 1));
    const second = await raise(setup, berlin('23:30', 1), 122, 'warning');
    await runSweepAt(berlin('23:45', 1));
    expect((await deliveriesOf(second))[`email:${setup.user.email}`]?.status).toBe('digest');
    await runSweepAt(berlin('07:01', 2));
    const digests = await inbox(setup);
    expect(digests.map((email) => email.subject)).toEqual(['fleetwatch: 1 alert from your quiet hours', 'fleetwatch: 1 alert from your quiet hours']);
    expect(digests[0]!.body.text).toContain(subject(setup, 121));
    expect(digests[1]!.body.text).toContain(subject(setup, 122));
    expect(digests[1]!.body.text).not.toContain(subject(setup, 121));
  });

  it("reads no running night's digest in the sweep's due pass, however many users are asleep", async () => {
    const berlin = testDay();
    const until = berlin('07:00', 1);
    const asleep: string[] = Array.from({ length: 120 }, () => randomUUID());
    now = berlin('23:00');
    for (const userId of asleep) {
      const email = {
        alertId: `sleeper-${userId}`,
        targetKey: `email:${userId}@example.com`,
        subject: 's',
        text: 't',
        heldAt: new Date(now).toISOString(),
      };
      await holdForDigest(
        { kind: 'quietHours', userId, targetKey: email.targetKey, until },
        { channel: 'email', address: `${userId}@example.com` },
        2,
        email,
        now,
        until,
      );
    }
    const counter = countCapacity();
    try {
      expect(await dueDigests(berlin('06:59', 1))).toEqual([]);
      // nothing read but each shard query's minimum: the running night's items are outside the key condition
      expect(counter.readUnits()).toBe(0);
      expect(counter.itemsRead()).toBe(0);
      counter.reset();
      const due = (await dueDigests(until)).filter((digest) => digest.id.kind === 'quietHours' && asleep.includes(digest.id.userId));
      expect(due).toHaveLength(asleep.length);
      expect(counter.itemsRead()).toBe(asleep.length);
    } finally {
      counter.detach();
    }
  });
});
