import { expect, it } from 'vitest';
import { replaceUserPreferences } from '../../shared/store/user-preferences';
import type { Severity } from '../../shared/schemas/severity';
import { sentEmails } from '../support/emulators';
import { useDeliverHarness } from '../support/deliver-harness';
import { getAlertItem, linkChat, putAlert, putRule, putUser, putVehicle } from './support/fixtures';

type Deliveries = Record<string, { status: string; reason?: string; error?: string; attempts: number }>;

/**
 * A recipient's least severity per channel, on the real deliver handler with DynamoDB Local, aws-ses-v2-local
 * and the fake Bot API (SNS has no emulator: its Publish is stubbed). Severity is set on the stored alert.
 */
const harness = useDeliverHarness({ name: 'min-severity', telegram: { botToken: '123456:severity-bot' }, sns: true });
const { telegram, sns } = harness;

async function deliver(alertId: string): Promise<Deliveries> {
  await harness.enqueue(alertId);
  await harness.drainDeliveries({ rounds: 10 });
  return (await getAlertItem(alertId)).deliveries as Deliveries;
}

it("skips a recipient's channel below its least severity, records why, and leaves its other channels and the rule's own chat alone", async () => {
  const endpointArn = 'arn:aws:sns:us-east-1:000000000000:endpoint/GCM/fleetwatch/severity';
  const dispatcher = await putUser({
    login: 'severity-dispatcher',
    email: 'severity@example.com',
    telegramChats: [{ chatId: '5101', username: 'night', active: true, linkedAt: '2026-01-01T00:00:00.000Z' }],
    pushDevices: [{ platform: 'fcm', endpointArn, registeredAt: '2026-01-01T00:00:00.000Z' }],
  });
  await replaceUserPreferences(dispatcher.id, { quietHours: null, minSeverity: { email: 'info', telegram: 'critical', push: 'warning' } });
  // a chat named on the rule, linked by someone who is not a recipient: the dispatcher's preferences are not its
  const owner = await putUser({ login: 'severity-owner', email: 'severity-owner@example.com' });
  await linkChat(owner.id, '5102');
  const rule = await putRule({
    userId: owner.id,
    recipientIds: [dispatcher.id],
    toEmail: true,
    toTelegram: true,
    toMobile: true,
    telegrams: [{ id: '5102', info: 'depot' }],
  });
  await putVehicle(5100, 'Truck 5100');
  const byChat = (chatId: string) => telegram.delivered().filter((message) => message.chatId === chatId);
  const inbox = async () => (await sentEmails(harness.emulators)).filter((email) => email.destination.to.includes('severity@example.com'));

  const outcomes: Partial<Record<Severity, Deliveries>> = {};
  for (const severity of ['info', 'warning', 'critical'] as const) {
    outcomes[severity] = await deliver((await putAlert(rule, 5100, {}, { severity })).alertId);
  }
  // an alert raised before severities counts as warning
  const unrated = await deliver((await putAlert(rule, 5100)).alertId);

  expect(await inbox()).toHaveLength(4);
  expect(byChat('5101')).toHaveLength(1);
  expect(byChat('5102')).toHaveLength(4);
  expect(sns.calls.filter((call) => call.command === 'Publish')).toHaveLength(3);

  const skipped = (channel: string, minimum: string, severity: string) => ({
    status: 'skipped',
    reason: 'minSeverity',
    attempts: 0,
    at: expect.any(String),
    error: `the alert is ${severity}, below the ${minimum} user severity-dispatcher takes on ${channel}`,
  });
  expect(outcomes.info).toMatchObject({
    'email:severity@example.com': { status: 'sent' },
    'telegram:5101': skipped('telegram', 'critical', 'info'),
    'telegram:5102': { status: 'sent' },
    [`push:${endpointArn}`]: skipped('push', 'warning', 'info'),
  });
  expect(outcomes.warning?.['telegram:5101']).toEqual(skipped('telegram', 'critical', 'warning'));
  expect(outcomes.warning?.[`push:${endpointArn}`]?.status).toBe('sent');
  expect(unrated['telegram:5101']?.reason).toBe('minSeverity');
  expect(unrated[`push:${endpointArn}`]?.status).toBe('sent');
  expect(Object.values(outcomes.critical!).map((entry) => [entry.status, entry.reason])).toEqual(Array(4).fill(['sent', undefined]));
  for (const deliveries of [outcomes.info, outcomes.warning, unrated]) expect(deliveries?.['email:severity@example.com']?.reason).toBeUndefined();
});
