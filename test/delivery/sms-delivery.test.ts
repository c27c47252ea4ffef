import { describe, expect, it, vi } from 'vitest';
import { pollOnce, type SqsHandler } from '../../infra/local/sqs-poller';
import { channelSenders } from '../../shared/delivery/senders';
import type { StoredRule } from '../../shared/schemas/notification';
import { sentEmails } from '../support/emulators';
import { deliverAlert } from '../../shared/delivery/deliver-alert';
import { DeliveryStats } from '../../shared/delivery/delivery-stats';
import { monthOf, smsSpendOf } from '../../shared/store/sms-spend';
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/dynamodb';
import { resourcesConfig } from '../../shared/config';
import { buildAlertItem } from '../../shared/store/alerts/alerts-store';
import { transitionAlert } from '../../shared/store/alerts/alert-lifecycle';
import { runAlertDuePass } from '../../shared/sweep/alert-due-pass';
import { getAlertItem, putAlert, putRule, putUser, putVehicle } from './support/fixtures';
import { useDeliverHarness } from '../support/deliver-harness';
import { directoryKeys } from '../../shared/store/keys';

/**
 * SMS alerts through the deliver function, on DynamoDB Local and the SMS fake: a loopback HTTP server speaking the
 * AWS JSON 1.0 protocol of pinpoint-sms-voice-v2, which the real client reaches through its endpoint, since no
 * emulator of AWS End User Messaging SMS exists.
 */
describe('SMS delivery', () => {
  const harness = useDeliverHarness({ name: 'deliver-sms', sms: true });
  const { sms } = harness;
  let vehicle = 700;

  const enqueue = (alertId: string) => harness.enqueue(alertId);
  // a handler made for each drain, after the test set its environment
  const drain = (handler: SqsHandler = harness.createHandler()) => harness.drainDeliveries({ rounds: 10, handler });
  async function smsRule(phoneNumber: string, verified = true, settings: Record<string, string> = {}): Promise<StoredRule> {
    const user = await putUser({
      login: `sms-${phoneNumber}-${vehicle}`,
      email: `sms${vehicle}@example.com`,
      phoneNumber,
      phoneVerifiedAt: verified ? '2026-03-01T08:00:00.000Z' : null,
    });
    return putRule({ userId: user.id, recipientIds: [user.id], toSms: true, settings });
  }
  const deliveryOf = async (alertId: string, phoneNumber: string) =>
    ((await getAlertItem(alertId)).deliveries as Record<string, Record<string, unknown>>)[`sms:${phoneNumber}`];

  it('sends a critical alert once, in one segment, with the alert id as Context; a warning one not by default', async () => {
    const number = '+994501110001';
    const rule = await smsRule(number);
    const critical = await putAlert(rule, vehicle++, { kind: 'panic', values: {} }, { severity: 'critical' });
    const warning = await putAlert(rule, vehicle++, {}, { severity: 'warning' });
    await enqueue(critical.alertId);
    await enqueue(warning.alertId);
    await drain();
    expect(sms.sent).toHaveLength(1);
    expect(sms.sent[0]).toMatchObject({
      to: number,
      messageType: 'TRANSACTIONAL',
      from: 'pool-fleetwatch',
      configurationSet: 'fleetwatch',
      segments: 1,
    });
    expect(sms.sent[0]!.context).toEqual({ alertId: critical.alertId });
    expect(sms.sent[0]!.timeToLive).toBe(30 * 60);
    expect(await deliveryOf(critical.alertId, number)).toMatchObject({ status: 'sent', sms: { segments: 1, messageId: sms.sent[0]!.messageId } });
    expect(await deliveryOf(warning.alertId, number)).toMatchObject({ status: 'skipped', error: expect.stringContaining('smsMinSeverity') });
  });

  it('follows settings.smsMinSeverity, and leaves out a number not verified yet', async () => {
    const rule = await smsRule('+994501110002', true, { smsMinSeverity: 'warning' });
    const alert = await putAlert(rule, vehicle++, {}, { severity: 'warning' });
    const unverified = await smsRule('+994501110003', false);
    const other = await putAlert(unverified, vehicle++, {}, { severity: 'critical' });
    await enqueue(alert.alertId);
    await enqueue(other.alertId);
    await drain();
    expect(sms.sent.map((message) => message.to)).toEqual(['+994501110002']);
    expect(await deliveryOf(other.alertId, '+994501110003')).toMatchObject({ status: 'skipped', error: expect.stringContaining('not verified') });
  });

  it('sends exactly one SMS when the request is redelivered', async () => {
    const rule = await smsRule('+994501110004');
    const alert = await putAlert(rule, vehicle++, {}, { severity: 'critical' });
    await enqueue(alert.alertId);
    await enqueue(alert.alertId);
    await drain();
    await enqueue(alert.alertId);
    await drain();
    expect(sms.sent).toHaveLength(1);
    expect((await getAlertItem(alert.alertId)).status).toBe('delivered');
  });

  it('sends exactly one SMS when a deliver crashed after sending, before recording it', async () => {
    const number = '+994501110005';
    const rule = await smsRule(number);
    const alert = await putAlert(rule, vehicle++, {}, { severity: 'critical' });
    let crashed = false;
    const crashing = harness.createHandler({
      senders: {
        ...channelSenders,
        async sms(message) {
          await channelSenders.sms(message);
          crashed = true;
          throw new Error('the invocation died after the send');
        },
      },
    });
    await enqueue(alert.alertId);
    await pollOnce({ queueUrl: harness.emulators.queues.deliveries, handler: crashing, functionName: 'deliver', visibilityTimeoutSeconds: 0 });
    expect(crashed).toBe(true);
    expect(sms.sent).toHaveLength(1);
    await drain();
    await enqueue(alert.alertId);
    await drain();
    expect(sms.sent).toHaveLength(1);
    expect(await deliveryOf(alert.alertId, number)).toMatchObject({ status: 'sent', error: expect.stringContaining('never sent twice') });
  });

  it('stops SMS to a number that replied STOP, records why, and never retries it', async () => {
    const number = '+994501110006';
    const rule = await smsRule(number);
    await sms.reply(number, 'STOP');
    const first = await putAlert(rule, vehicle++, {}, { severity: 'critical' });
    await enqueue(first.alertId);
    await drain();
    expect(sms.sent).toHaveLength(0);
    expect(await deliveryOf(first.alertId, number)).toMatchObject({ status: 'failed', sms: { outcome: 'optedOut' } });
    expect(sms.requests.filter((request) => request.operation === 'SendTextMessage')).toHaveLength(1);
    // the next alert does not even ask the service
    const second = await putAlert(rule, vehicle++, {}, { severity: 'critical' });
    await enqueue(second.alertId);
    await enqueue(first.alertId);
    await drain();
    expect(sms.requests.filter((request) => request.operation === 'SendTextMessage')).toHaveLength(1);
    expect(await deliveryOf(second.alertId, number)).toMatchObject({ status: 'skipped', sms: { outcome: 'optedOut' } });
  });

  it('refuses at delivery a number whose country is off the allow-list, without a send', async () => {
    const number = '+12025550123';
    const rule = await smsRule(number);
    const alert = await putAlert(rule, vehicle++, {}, { severity: 'critical' });
    await enqueue(alert.alertId);
    await drain();
    expect(sms.requests).toHaveLength(0);
    expect(await deliveryOf(alert.alertId, number)).toMatchObject({ status: 'skipped', sms: { outcome: 'countryNotAllowed' } });
  });

  it('retries a throttled send through the retry schedule, and sends it once', async () => {
    const number = '+994501110007';
    const rule = await smsRule(number);
    const alert = await putAlert(rule, vehicle++, {}, { severity: 'critical' });
    sms.script(
      { error: 'InternalServerException' },
      { error: 'InternalServerException' },
      { error: 'InternalServerException' },
      { error: 'InternalServerException' },
    );
    await enqueue(alert.alertId);
    await drain();
    const item = await getAlertItem(alert.alertId);
    expect(item.status).toBe('pending');
    expect((item.deliveryRetries as Record<string, { attempts: number }>)[`sms:${number}`]?.attempts).toBeGreaterThanOrEqual(1);
  });

  it('stops at the monthly cap under parallel deliveries, overshooting by less than one SMS, and tells the users once', async () => {
    vi.stubEnv('SMS_MONTHLY_CAP_USD', '1');
    vi.stubEnv('SMS_PRICES', '{"AZ": 0.3}');
    try {
      const clientId = randomUUID();
      const user = await putUser({
        login: `cap-${clientId}`,
        email: `cap-${clientId}@example.com`,
        parentId: clientId,
        phoneNumber: '+994501110099',
        phoneVerifiedAt: '2026-03-01T08:00:00.000Z',
      });
      // the client's users are found through their client links, as users the API creates have them
      await documentClient().send(
        new PutCommand({ TableName: resourcesConfig().DIRECTORY_TABLE, Item: { ...directoryKeys.userLink(clientId, user.id), userId: user.id } }),
      );
      const rule = await putRule({ userId: user.id, parentId: clientId, recipientIds: [user.id], toSms: true });
      const alerts = await Promise.all(Array.from({ length: 10 }, () => putAlert(rule, vehicle, {}, { severity: 'critical' })));
      vehicle++;
      await Promise.all(
        alerts.map((alert, index) =>
          deliverAlert(alert.alertId, {
            senders: channelSenders,
            stats: new DeliveryStats(),
            messageId: `m-${index}`,
            receiveCount: 1,
            maxReceiveCount: 5,
          }),
        ),
      );
      expect(sms.sent).toHaveLength(4);
      const { spentMicroUsd } = await smsSpendOf(clientId, monthOf(Date.now()));
      expect(spentMicroUsd).toBe(1_200_000);
      expect(spentMicroUsd - 1_000_000).toBeLessThan(300_000);
      const outcomes = await Promise.all(alerts.map((alert) => deliveryOf(alert.alertId, '+994501110099')));
      expect(outcomes.filter((outcome) => outcome?.status === 'sent')).toHaveLength(4);
      expect(outcomes.filter((outcome) => (outcome?.sms as { outcome?: string } | undefined)?.outcome === 'capReached')).toHaveLength(6);
      const notices = (await sentEmails(harness.emulators)).filter((email) => email.destination.to.includes(user.email));
      expect(notices).toHaveLength(1);
      expect(notices[0]!.subject).toContain('SMS spend cap');
      // the lifecycle template's words, the month and the cap filled in, in both formats
      expect(notices[0]!.body.text).toContain(`SMS spend for ${monthOf(Date.now())} reached its cap ($1)`);
      expect(notices[0]!.body.html).toContain(`<b>Your client&#39;s SMS spend for ${monthOf(Date.now())} reached its cap ($1).</b>`);
    } finally {
      vi.stubEnv('SMS_MONTHLY_CAP_USD', undefined);
      vi.stubEnv('SMS_PRICES', undefined);
    }
  });

  const snsEvent = (...messages: string[]) => ({
    Records: messages.map((Message, index) => ({ EventSource: 'aws:sns', Sns: { Message, MessageId: `sns-${index}` } })),
  });

  it('records a TimeToLive-expired SMS on the alert from its delivery event, and never sends it again', async () => {
    const number = '+994501110008';
    const rule = await smsRule(number);
    const alert = await putAlert(rule, vehicle++, {}, { severity: 'critical' });
    await enqueue(alert.alertId);
    await drain();
    expect(sms.sent).toHaveLength(1);
    const { handler: deliverEntry } = await import('../../functions/deliver/handler');
    await deliverEntry(snsEvent(sms.event(sms.sent[0]!, 'TEXT_TTL_EXPIRED', 'The message expired before the carrier took it')) as never, {} as never);
    expect(await deliveryOf(alert.alertId, number)).toMatchObject({
      status: 'failed',
      sms: { outcome: 'expired', carrierReason: 'The message expired before the carrier took it' },
    });
    await enqueue(alert.alertId);
    await drain();
    expect(sms.sent).toHaveLength(1);
  });

  it('records delivered and a carrier failure with its reason; an interim event or another message id changes nothing', async () => {
    const rule = await smsRule('+994501110009');
    const first = await putAlert(rule, vehicle++, {}, { severity: 'critical' });
    const second = await putAlert(rule, vehicle++, {}, { severity: 'critical' });
    await enqueue(first.alertId);
    await enqueue(second.alertId);
    await drain();
    const [a, b] = [first, second].map((alert) => sms.sent.find((message) => message.context.alertId === alert.alertId)!);
    const { handler: deliverEntry } = await import('../../functions/deliver/handler');
    await deliverEntry(
      snsEvent(
        sms.event(a!, 'TEXT_SUCCESSFUL'),
        sms.event(a!, 'TEXT_DELIVERED'),
        sms.event({ ...b!, messageId: 'someone-else' }, 'TEXT_CARRIER_UNREACHABLE'),
        sms.event(b!, 'TEXT_CARRIER_UNREACHABLE', 'The carrier could not reach the phone'),
      ) as never,
      {} as never,
    );
    expect(await deliveryOf(first.alertId, '+994501110009')).toMatchObject({ status: 'sent', sms: { outcome: 'delivered' } });
    expect(await deliveryOf(second.alertId, '+994501110009')).toMatchObject({
      status: 'failed',
      sms: { outcome: 'carrierFailed', carrierReason: 'The carrier could not reach the phone' },
    });
  });

  describe('on escalation levels', () => {
    const MINUTE = 60_000;

    /**
     * A stored alert of `severity`, as evaluation writes it (with its escalateAt), of a rule with toSms whose one
     * level, after 5 minutes, names the user of `number` with `level`'s other fields; delivered once.
     */
    async function raiseEscalating(number: string, severity: 'warning' | 'critical', level: Record<string, unknown>) {
      const user = await putUser({
        login: `esc-${number}`,
        email: `esc${number.slice(1)}@example.com`,
        phoneNumber: number,
        phoneVerifiedAt: '2026-03-01T08:00:00.000Z',
      });
      const escalation = JSON.stringify([{ after: 5, userIds: [user.id], ...level }]);
      const rule = await putRule({ userId: user.id, recipientIds: [user.id], toSms: true, stored: true, settings: { severity, escalation } });
      const raisedAt = Date.now();
      const vehicleId = vehicle++;
      await putVehicle(vehicleId, `Truck ${vehicleId}`);
      const event = {
        kind: 'speeding',
        time: new Date(raisedAt).toISOString(),
        latitude: 55.7558,
        longitude: 37.6173,
        speed: 104,
        values: { limit: 90 },
      };
      const item = buildAlertItem(rule, vehicleId, event, raisedAt);
      await documentClient().send(new PutCommand({ TableName: resourcesConfig().ALERTS_TABLE, Item: item }));
      await enqueue(item.alertId);
      await drain();
      return { alertId: item.alertId, raisedAt };
    }
    const sentTo = (number: string) => sms.sent.filter((message) => message.to === number);

    it('sends the level by SMS once, to its user with a verified number, for a warning below smsMinSeverity', async () => {
      const number = '+994501110101';
      const { alertId, raisedAt } = await raiseEscalating(number, 'warning', { sms: true });
      // the alert itself is below the rule's smsMinSeverity (critical by default)
      expect(sentTo(number)).toEqual([]);
      expect(await deliveryOf(alertId, number)).toMatchObject({ status: 'skipped', error: expect.stringContaining('smsMinSeverity') });

      const [fired, again] = await Promise.all([runAlertDuePass(raisedAt + 6 * MINUTE), runAlertDuePass(raisedAt + 6 * MINUTE)]);
      const escalated = [...fired!.escalated, ...again!.escalated];
      expect(escalated).toHaveLength(1);
      await drain();
      await enqueue(escalated[0]!);
      await drain();
      expect(sentTo(number)).toHaveLength(1);
      expect(sentTo(number)[0]!.body).toContain('not acknowledged in 5 min');
      expect(sentTo(number)[0]!.context).toEqual({ alertId: escalated[0] });
      expect(await deliveryOf(escalated[0]!, number)).toMatchObject({ status: 'sent', sms: { messageId: sentTo(number)[0]!.messageId } });
    });

    it('sends none for a level without sms, though the rule has toSms and its critical alert went by SMS', async () => {
      const number = '+994501110102';
      const { raisedAt } = await raiseEscalating(number, 'critical', {});
      expect(sentTo(number)).toHaveLength(1);
      const { escalated } = await runAlertDuePass(raisedAt + 6 * MINUTE);
      expect(escalated).toHaveLength(1);
      await drain();
      expect(sentTo(number)).toHaveLength(1);
      const escalation = await getAlertItem(escalated[0]!);
      expect(escalation.status).toBe('delivered');
      expect(Object.keys(escalation.deliveries as object)).toEqual([`email:esc${number.slice(1)}@example.com`]);
    });

    it('sends nothing once the alert is acknowledged before the level', async () => {
      const number = '+994501110103';
      const { alertId, raisedAt } = await raiseEscalating(number, 'warning', { sms: true });
      const acknowledged = await transitionAlert(alertId, { to: 'acknowledged', by: 'dispatcher', via: 'api', now: raisedAt + 2 * MINUTE });
      expect(acknowledged.outcome).toBe('changed');
      expect((await runAlertDuePass(raisedAt + 6 * MINUTE)).escalated).toEqual([]);
      await drain();
      expect(sentTo(number)).toEqual([]);
    });
  });
});
