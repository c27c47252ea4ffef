import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { buildAlertItem } from '../../shared/store/alerts/alerts-store';
import { clearAlert } from '../../shared/store/alerts/alert-lifecycle';
import { markSideEmailConfirmed } from '../../shared/store/email-consent/confirmation';
import { getRule } from '../../shared/store/rules-store';
import { escalationIdFor } from '../../shared/store/alert-id';
import { runAlertDuePass } from '../../shared/sweep/alert-due-pass';
import { clearSentEmails, sentEmails } from '../support/emulators';
import { useDeliverHarness } from '../support/deliver-harness';
import { getAlertItem, linkChat } from '../delivery/support/fixtures';
import { countCapacity } from '../support/count-capacity';
import { TestClock, login, ruleBody, seedTenants, session, typedApiClient, type JsonBody, type TypedApi } from './support';

const MINUTE = 60_000;
/**
 * Write units of one escalation as DynamoDB bills them: the transaction's two items of under 1 KB at twice the
 * price (the delivered alert, the escalation), the alert's two history index copies and its due entry, and the
 * escalation's two history index entries and its outbox entry.
 */
const ESCALATION_WRITE_UNITS = 10;
const DUTY = 'duty@escalation.example.com';
/** The address seedTenants gives each of its users. */
const emailOf = (name: string) => `${name}@escalation.example.com`;

/**
 * Escalation end to end: a rule saved through the API with `escalateAfter` and escalation targets, its alert
 * delivered by the deliver handler, the sweep's due pass escalating it, and the escalation delivered by the
 * same handler to the SES emulator's inbox and the Telegram fake.
 */
describe('escalation', () => {
  const harness = useDeliverHarness({
    name: 'api-escalation',
    telegram: { botToken: '123456:escalation-bot', webhookSecret: 'escalation-secret', secretId: 'fleetwatch/telegram-escalation' },
  });
  const { telegram } = harness;
  const clock = new TestClock();
  let api: TypedApi;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let token = '';
  let ruleId = 0;
  let minute = 0;

  const settings = () => ({
    limit: '90',
    escalateAfter: '15',
    escalateUserIds: tenants.child.userId,
    escalateTelegrams: '8404',
    escalateEmails: DUTY,
  });
  const createRule = (overrides: Record<string, unknown>) =>
    api.POST('/api/v3/notifications', {
      headers: session(token),
      body: ruleBody(tenants.root.agentId, {
        toEmail: true,
        recipientIds: [tenants.root.userId],
        enableSideEmails: false,
        sideEmails: [],
        ...overrides,
      }) as JsonBody<'createNotificationRule'>,
    });

  async function drainDeliveries(): Promise<void> {
    await harness.drainDeliveries({ rounds: 5, handler: harness.createHandler() });
  }
  const requestDelivery = (alertId: string) => harness.enqueue(alertId);

  /** An alert of the rule as evaluate raises it, at the clock's time, delivered to the rule's own recipients. */
  async function raise(id = ruleId): Promise<{ alertId: string; raisedAt: number }> {
    minute++;
    const raisedAt = clock.now();
    const time = new Date(raisedAt - minute * 1000).toISOString();
    const event = { kind: 'speeding', time, latitude: 55.7558, longitude: 37.6173, speed: 104, values: { limit: 90, maxSpeed: 104 } };
    const item = buildAlertItem((await getRule(id))!, 101, event, raisedAt);
    await documentClient().send(new PutCommand({ TableName: resourcesConfig().ALERTS_TABLE, Item: item }));
    await requestDelivery(item.alertId);
    await drainDeliveries();
    return { alertId: item.alertId, raisedAt };
  }

  const mailsTo = async (address: string) => (await sentEmails(harness.emulators)).filter((email) => email.destination.to.includes(address));
  const telegramTo = (chatId: string) =>
    telegram.calls
      .filter((call) => call.method === 'sendMessage' && String(call.payload.chat_id) === chatId)
      .map((call) => String(call.payload.text));

  beforeAll(async () => {
    tenants = await seedTenants('escalation');
    api = typedApiClient({ now: clock.now });
    token = await login(api, tenants.root);
    // the escalation user's own chat, a chat of the rule owner named as an escalation chat, a chat of another tenant
    await linkChat(tenants.child.userId, '8303');
    await linkChat(tenants.root.userId, '8404');
    await linkChat(tenants.sibling.userId, '8202');
    const created = await createRule({ settings: settings() });
    expect(created.response.status).toBe(200);
    ruleId = created.data!.id;
    await markSideEmailConfirmed(tenants.root.agentId, DUTY, clock.now());
    await drainDeliveries();
  });
  beforeEach(() => {
    clock.advance(MINUTE);
  });

  it('escalates an alert still open after escalateAfter exactly once, to the escalation targets only', async () => {
    const { alertId, raisedAt } = await raise();
    expect(await mailsTo(emailOf('root'))).toHaveLength(1);
    await clearSentEmails(harness.emulators);
    telegram.reset();

    // not yet due: nothing
    expect((await runAlertDuePass(raisedAt + 14 * MINUTE)).escalated).toEqual([]);
    // due: two sweeps at once, then one more, make one escalation
    const at = raisedAt + 16 * MINUTE;
    const runs = await Promise.all([runAlertDuePass(at), runAlertDuePass(at)]);
    const again = await runAlertDuePass(at + MINUTE);
    const escalations = [...runs.flatMap((run) => run.escalated), ...again.escalated];
    expect(escalations).toHaveLength(1);
    await drainDeliveries();
    // the delivery request comes again (redelivery, the outbox): nothing goes out twice
    await requestDelivery(escalations[0]!);
    await requestDelivery(escalations[0]!);
    await drainDeliveries();

    for (const address of [emailOf('child'), DUTY]) {
      const mails = await mailsTo(address);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.subject).toBe('[WARNING] Truck 101: not acknowledged in 15 min: Speeding on the highway');
      expect(mails[0]!.body.text).toContain('Truck 101 is speeding: 104 km/h');
    }
    expect(await mailsTo(emailOf('root'))).toEqual([]);
    expect(await mailsTo(emailOf('sibling'))).toEqual([]);
    for (const chatId of ['8303', '8404']) {
      const texts = telegramTo(chatId);
      expect(texts).toHaveLength(1);
      expect(texts[0]).toContain('was not acknowledged in <b>15 min</b>.\n\nTruck 101: speeding, 104 km/h');
    }
    expect(telegramTo('8202')).toEqual([]);
    // the escalation offers to acknowledge the alert it escalates, or to mute its vehicle or rule
    const sent = telegram.calls.find((call) => call.method === 'sendMessage' && String(call.payload.chat_id) === '8404')!;
    expect(sent.payload.reply_markup).toEqual({
      inline_keyboard: [
        [{ text: 'Acknowledge', callback_data: `ack:${alertId}` }],
        [{ text: 'Mute this vehicle 1 h', callback_data: `mv:${alertId}` }],
        [{ text: 'Mute this rule until tomorrow 08:00', callback_data: `mr:${alertId}` }],
      ],
    });
    expect((await mailsTo(DUTY))[0]!.body.text).toMatch(/\nAcknowledge: \S+\/alerts\/acknowledge\/\S+$/);

    const item = await getAlertItem(alertId);
    expect(item).toMatchObject({ state: 'open', escalatedAt: new Date(at).toISOString() });
    expect(item.dueAt).toBeUndefined();
    const history = await api.POST('/api/v3/notifications/history', {
      headers: session(token),
      body: { from: new Date(raisedAt - 3_600_000).toISOString(), to: new Date(raisedAt + 3_600_000).toISOString() },
    });
    const shown = history.data!.items.filter((entry) => entry.ruleId === ruleId);
    // the escalation is no alert of its own in the history: the alert it escalates says it was
    expect(shown.map((entry) => entry.alertId)).toEqual([alertId]);
    expect(shown[0]).toMatchObject({ escalatedAt: new Date(at).toISOString() });
  });

  it('costs one read of the alert and one transaction of two writes per escalation', async () => {
    const { alertId, raisedAt } = await raise();
    const counter = countCapacity();
    try {
      const { escalated } = await runAlertDuePass(raisedAt + 16 * MINUTE);
      expect(escalated).toEqual([escalationIdFor(alertId)]);
      const units = { read: counter.readUnits(), write: counter.billedWriteUnits(), itemsWritten: counter.itemsWritten() };
      console.log(`one escalation: ${JSON.stringify({ ...units, byTable: counter.byTable() })}`);
      expect(units.itemsWritten).toBe(2);
      expect(units.write).toBeLessThanOrEqual(ESCALATION_WRITE_UNITS);
    } finally {
      counter.detach();
    }
    await drainDeliveries();
  });

  it('does not escalate an alert acknowledged through the API first', async () => {
    const { alertId, raisedAt } = await raise();
    const acknowledged = await api.POST('/api/v3/notifications/history/{alertId}/acknowledge', {
      headers: session(token),
      params: { path: { alertId } },
      body: {},
    });
    expect(acknowledged.response.status).toBe(200);
    await clearSentEmails(harness.emulators);
    telegram.reset();

    expect((await runAlertDuePass(raisedAt + 16 * MINUTE)).escalated).not.toContain(escalationIdFor(alertId));
    await drainDeliveries();
    expect(await sentEmails(harness.emulators)).toEqual([]);
    expect(telegram.calls.filter((call) => call.method === 'sendMessage')).toEqual([]);
    const item = await getAlertItem(alertId);
    expect(item.escalatedAt).toBeUndefined();
    // the acknowledgement took the alert off the due index
    expect(item.dueAt).toBeUndefined();
  });

  it('does not escalate an alert cleared or closed first', async () => {
    const cleared = await raise();
    const closed = await raise();
    await clearAlert(cleared.alertId, clock.now());
    const closing = await api.POST('/api/v3/notifications/history/{alertId}/close', {
      headers: session(token),
      params: { path: { alertId: closed.alertId } },
      body: {},
    });
    expect(closing.response.status).toBe(200);
    await clearSentEmails(harness.emulators);
    telegram.reset();

    const { escalated } = await runAlertDuePass(closed.raisedAt + 16 * MINUTE);
    expect(escalated).not.toContain(escalationIdFor(cleared.alertId));
    expect(escalated).not.toContain(escalationIdFor(closed.alertId));
    await drainDeliveries();
    expect(await sentEmails(harness.emulators)).toEqual([]);
    expect(telegram.calls.filter((call) => call.method === 'sendMessage')).toEqual([]);
    for (const { alertId } of [cleared, closed]) expect((await getAlertItem(alertId)).escalatedAt).toBeUndefined();
  });

  it('escalates only alerts at or above escalateMinSeverity, judged by the severity each was raised with', async () => {
    const below = await createRule({ settings: { ...settings(), escalateMinSeverity: 'critical' } });
    const critical = await createRule({ settings: { ...settings(), escalateMinSeverity: 'critical', severity: 'critical' } });
    expect([below.response.status, critical.response.status]).toEqual([200, 200]);
    await drainDeliveries();
    // a speeding alert is a warning: below the threshold, it is never due for escalation
    const skipped = await raise(below.data!.id);
    const escalating = await raise(critical.data!.id);
    expect(await getAlertItem(skipped.alertId)).toMatchObject({ severity: 'warning', state: 'open' });
    expect((await getAlertItem(skipped.alertId)).escalateAt).toBeUndefined();
    expect(await getAlertItem(escalating.alertId)).toMatchObject({ severity: 'critical', escalateAt: expect.any(String) });
    await clearSentEmails(harness.emulators);
    telegram.reset();

    const { escalated } = await runAlertDuePass(escalating.raisedAt + 16 * MINUTE);
    expect(escalated).toContain(escalationIdFor(escalating.alertId));
    expect(escalated).not.toContain(escalationIdFor(skipped.alertId));
    await drainDeliveries();
    const mails = await mailsTo(DUTY);
    expect(mails).toHaveLength(1);
    // the escalation carries the severity of the alert it escalates
    expect(mails[0]!.subject).toBe('[CRITICAL] Truck 101: not acknowledged in 15 min: Speeding on the highway');
    expect((await getAlertItem(skipped.alertId)).escalatedAt).toBeUndefined();
    expect(await getAlertItem(escalationIdFor(escalating.alertId))).toMatchObject({ severity: 'critical' });
  });

  it('refuses escalation targets outside the rule owner’s scope, and an escalation of unstored alerts, naming the setting', async () => {
    const refused = async (overrides: Record<string, string>) => {
      const response = await createRule({ settings: { ...settings(), ...overrides } });
      expect(response.response.status).toBe(400);
      return response.error?.issues?.map((issue) => issue.path);
    };
    expect(await refused({ escalateUserIds: tenants.sibling.userId })).toEqual(['settings.escalateUserIds']);
    expect(await refused({ escalateTelegrams: '8202' })).toEqual(['settings.escalateTelegrams']);
    expect(await refused({ escalateTelegrams: '9999' })).toEqual(['settings.escalateTelegrams']);
    expect(await refused({ escalateEmails: 'not an address' })).toEqual(['settings.escalateEmails']);
    expect(await refused({ escalateAfter: '1441' })).toEqual(['settings.escalateAfter']);
    expect(await refused({ escalateUserIds: '', escalateTelegrams: '', escalateEmails: '' })).toEqual(['settings.escalateAfter']);
    expect(await refused({ escalateMinSeverity: 'urgent' })).toEqual(['settings.escalateMinSeverity']);
    // a threshold without an escalation would do nothing
    expect(await refused({ escalateAfter: '0', escalateMinSeverity: 'critical' })).toEqual(['settings.escalateMinSeverity']);
    const unstored = await createRule({ stored: false, settings: settings() });
    expect(unstored.response.status).toBe(400);
    expect(unstored.error?.issues?.map((issue) => issue.path)).toEqual(['settings.escalateAfter']);
  });
});
