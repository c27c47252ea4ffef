import { beforeAll, describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { documentClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { lambdaContext } from '../../infra/local/sqs-poller';
import { handler as telegramHandler, resetTelegramWebhook } from '../../functions/telegram/handler';
import { buildAlertItem } from '../../shared/store/alerts/alerts-store';
import { createAgent } from '../../shared/store/directory-store';
import type { StoredRule } from '../../shared/schemas/notification';
import { sentEmails } from '../support/emulators';
import { useDeliverHarness } from '../support/deliver-harness';
import { getAlertItem, linkChat, PARENT_ID, putRule, putUser, putVehicle } from './support/fixtures';
import { listSilences } from '../../shared/store/silences-store';
import { formatEventTime } from '../../shared/delivery/format-time';
import { apiEvent, typedApiClient } from '../api/support';

const BOT_TOKEN = '123456:ack-bot-token';
const WEBHOOK_SECRET = 'ack-webhook-secret';

describe('acknowledging from the notification', () => {
  const harness = useDeliverHarness({
    name: 'acknowledge',
    telegram: { botToken: BOT_TOKEN, webhookSecret: WEBHOOK_SECRET, secretId: 'fleetwatch/telegram-ack' },
    // SNS has no local emulator: Publish is answered by a stub in the client's middleware
    sns: true,
  });
  const { telegram, sns } = harness;
  let minute = 0;
  let updateId = 1;

  beforeAll(() => resetTelegramWebhook());

  /** An alert as evaluate raises it (its id derived from rule, vehicle, kind and time), delivered once. */
  async function deliver(rule: StoredRule, vehicleId: number, event: Record<string, unknown> = {}): Promise<string> {
    minute++;
    const time = new Date(Date.parse('2026-03-01T10:00:00.000Z') + minute * 60_000).toISOString();
    const item = buildAlertItem(
      rule,
      vehicleId,
      { kind: 'speeding', time, latitude: 55.7558, longitude: 37.6173, speed: 104, values: { limit: 90 }, ...event },
      Date.parse(time),
    );
    await documentClient().send(new PutCommand({ TableName: resourcesConfig().ALERTS_TABLE, Item: item }));
    await harness.enqueue(item.alertId);
    await harness.drainDeliveries({ rounds: 5, handler: harness.createHandler() });
    return item.alertId;
  }

  /** The button pressed by Telegram user `fromId` under the message the bot sent to `chatId`. */
  async function press(fromId: number, chatId: string, data: string, languageCode = 'en') {
    const sent = telegram.calls.find((call) => call.method === 'sendMessage' && String(call.payload.chat_id) === chatId)!;
    const update = {
      update_id: updateId++,
      callback_query: {
        id: `cb-${updateId}`,
        chat_instance: 'ci',
        data,
        from: { id: fromId, is_bot: false, first_name: 'Ops', language_code: languageCode },
        message: {
          message_id: 77,
          date: 1_772_000_000,
          chat: { id: Number(chatId), type: 'private', first_name: 'Ops' },
          from: { id: 1000, is_bot: true, first_name: 'fleetwatch' },
          text: 'Truck 41 is speeding: 104 km/h (limit 90 km/h).',
          entities: [{ type: 'bold', offset: 0, length: 8 }],
        },
      },
    };
    expect(sent).toBeDefined();
    const event: APIGatewayProxyEventV2 = {
      ...apiEvent({ method: 'POST', path: '/telegram/webhook', body: update, headers: { 'x-telegram-bot-api-secret-token': WEBHOOK_SECRET } }),
    };
    const response = (await telegramHandler(event, lambdaContext('telegram') as Context)) as APIGatewayProxyStructuredResultV2;
    expect(response.statusCode).toBe(200);
    return {
      answer: telegram.calls.filter((call) => call.method === 'answerCallbackQuery').at(-1)?.payload,
      edits: telegram.calls.filter((call) => call.method === 'editMessageText').map((call) => call.payload),
    };
  }

  it('puts an acknowledge button under the Telegram message; a linked user in scope presses it and the message says who', async () => {
    const user = await putUser({ login: 'night-lead', email: 'lead@example.com' });
    await linkChat(user.id, '5151');
    const rule = await putRule({ stored: true, userId: user.id, recipientIds: [user.id], toTelegram: true });
    await putVehicle(41, 'Truck 41');
    const alertId = await deliver(rule, 41);

    const sent = telegram.calls.find((call) => call.method === 'sendMessage')!;
    const keyboard = (sent.payload.reply_markup as { inline_keyboard: { text: string; callback_data: string }[][] }).inline_keyboard;
    expect(keyboard).toEqual([
      [{ text: 'Acknowledge', callback_data: `ack:${alertId}` }],
      [{ text: 'Mute this vehicle 1 h', callback_data: `mv:${alertId}` }],
      [{ text: 'Mute this rule until tomorrow 08:00', callback_data: `mr:${alertId}` }],
    ]);

    const { answer, edits } = await press(5151, '5151', `ack:${alertId}`);
    expect(answer).toMatchObject({ text: 'Acknowledged.' });
    expect(edits).toHaveLength(1);
    expect(edits[0]).toMatchObject({ chat_id: 5151, message_id: 77, entities: [{ type: 'bold', offset: 0, length: 8 }] });
    expect(String(edits[0]!.text)).toMatch(
      /^Truck 41 is speeding: 104 km\/h \(limit 90 km\/h\)\.\n\n✅ Acknowledged by night-lead at \d{4}-\d\d-\d\d \d\d:\d\d/,
    );
    expect(edits[0]!.reply_markup).toBeUndefined();
    expect(await getAlertItem(alertId)).toMatchObject({ state: 'acknowledged', acknowledgement: { by: 'night-lead', via: 'telegram' } });

    // pressed again (a second tap, or Telegram's redelivery): nothing new is written, the answer says by whom
    const again = await press(5151, '5151', `ack:${alertId}`);
    expect(again.answer).toMatchObject({ text: 'This alert was already acknowledged. (night-lead)' });
    expect(((await getAlertItem(alertId)).lifecycle as unknown[]).length).toBe(1);
  });

  it('refuses a chat linked to a user outside the rule scope, and one not linked at all, changing nothing', async () => {
    const owner = await putUser({ login: 'owner-tg', email: 'owner-tg@example.com' });
    await linkChat(owner.id, '6161');
    const rule = await putRule({ stored: true, userId: owner.id, recipientIds: [owner.id], toTelegram: true });
    await putVehicle(42, 'Truck 42');
    const alertId = await deliver(rule, 42);

    const stranger = await createAgent({ name: 'Other Transport' });
    const outsider = await putUser({ login: 'outsider', email: 'outsider@example.com', parentId: stranger.agentId });
    await linkChat(outsider.id, '7171');
    const refused = await press(7171, '6161', `ack:${alertId}`, 'ru');
    expect(refused.answer).toMatchObject({
      show_alert: true,
      text: 'Ваш пользователь fleetwatch не может принимать в работу уведомления этого клиента.',
    });
    expect(refused.edits).toEqual([]);

    const unknown = await press(8181, '6161', `ack:${alertId}`);
    expect(unknown.answer).toMatchObject({ show_alert: true, text: expect.stringContaining('Link your own Telegram chat') });
    expect((await getAlertItem(alertId)).state).toBe('open');
  });

  it('mutes the vehicle for an hour from the Telegram button, once: a second press says who muted and until when', async () => {
    const user = await putUser({ login: 'yard-lead', email: 'yard@example.com' });
    await linkChat(user.id, '5252');
    const rule = await putRule({ stored: true, userId: user.id, recipientIds: [user.id], toTelegram: true, timezone: 'Europe/Berlin' });
    await putVehicle(45, 'Truck 45');
    const alertId = await deliver(rule, 45);
    const before = Date.now();

    const first = await press(5252, '5252', `mv:${alertId}`);
    const silences = (await listSilences(PARENT_ID, Date.now())).filter((silence) => silence.reason.includes(alertId));
    expect(silences).toHaveLength(1);
    const [silence] = silences;
    expect(silence).toMatchObject({ vehicleIds: [45], ruleIds: [], createdBy: 'yard-lead', via: 'telegram', timezone: 'Europe/Berlin' });
    const from = Date.parse(silence!.from);
    expect(from).toBeGreaterThanOrEqual(before);
    expect(Date.parse(silence!.to) - from).toBe(3_600_000);
    const until = formatEventTime(silence!.to, 'Europe/Berlin', 2);
    expect(first.answer).toMatchObject({ text: `🔕 Muted by yard-lead until ${until}: vehicle 45` });
    expect(first.edits).toEqual([]);

    const again = await press(5252, '5252', `mv:${alertId}`);
    expect(again.answer).toMatchObject({ text: `🔕 Already muted by yard-lead until ${until}: vehicle 45` });
    expect((await listSilences(PARENT_ID, Date.now())).filter((each) => each.reason.includes(alertId))).toEqual([silence]);

    // the rule until 08:00 the next day, in the rule's timezone
    const rulePress = await press(5252, '5252', `mr:${alertId}`);
    const ruleSilence = (await listSilences(PARENT_ID, Date.now())).find((each) => each.reason.includes(alertId) && each.ruleIds.length > 0)!;
    expect(ruleSilence).toMatchObject({ ruleIds: [rule.id], vehicleIds: [] });
    expect(formatEventTime(ruleSilence.to, 'Europe/Berlin', 2)).toMatch(/ 08:00 \(Europe\/Berlin\)$/);
    expect(Date.parse(ruleSilence.to) - Date.parse(ruleSilence.from)).toBeGreaterThan(0);
    expect(Date.parse(ruleSilence.to) - Date.parse(ruleSilence.from)).toBeLessThanOrEqual(32 * 3_600_000);
    expect(rulePress.answer).toMatchObject({
      text: `🔕 Muted by yard-lead until ${formatEventTime(ruleSilence.to, 'Europe/Berlin', 2)}: rule ${rule.name}`,
    });
  });

  it("refuses the mute buttons to another tenant's user, a read-only user and an unlinked chat, writing nothing", async () => {
    const owner = await putUser({ login: 'owner-mute', email: 'owner-mute@example.com' });
    await linkChat(owner.id, '6262');
    const rule = await putRule({ stored: true, userId: owner.id, recipientIds: [owner.id], toTelegram: true });
    await putVehicle(46, 'Truck 46');
    const alertId = await deliver(rule, 46);
    const stranger = await createAgent({ name: 'Other Haulage' });
    const outsider = await putUser({ login: 'outsider-mute', email: 'outsider-mute@example.com', parentId: stranger.agentId });
    await linkChat(outsider.id, '7272');
    const viewer = await putUser({ login: 'viewer-mute', email: 'viewer-mute@example.com', isReadOnly: true });
    await linkChat(viewer.id, '7373');

    const refused = await press(7272, '6262', `mv:${alertId}`);
    expect(refused.answer).toMatchObject({ show_alert: true, text: 'Your fleetwatch user cannot mute alerts of this client.' });
    const readOnly = await press(7373, '6262', `mr:${alertId}`, 'ru');
    expect(readOnly.answer).toMatchObject({ show_alert: true, text: expect.stringContaining('только на чтение') });
    const unknown = await press(8282, '6262', `mv:${alertId}`);
    expect(unknown.answer).toMatchObject({ show_alert: true, text: expect.stringContaining('Link your own Telegram chat') });
    for (const client of [PARENT_ID, stranger.agentId]) {
      expect((await listSilences(client, Date.now())).filter((silence) => silence.reason.includes(alertId))).toEqual([]);
    }
  });

  it('puts a signed acknowledge link in the e-mail that acknowledges as the address, and an action in the push payload', async () => {
    const device = 'arn:aws:sns:us-east-1:000000000000:endpoint/APNS/fleetwatch/ack';
    const user = await putUser({
      login: 'mobile-ack',
      email: 'Mobile@Example.com',
      pushDevices: [{ platform: 'apns', endpointArn: device, registeredAt: '2026-01-01T00:00:00.000Z' }],
    });
    const rule = await putRule({ stored: true, userId: user.id, recipientIds: [user.id], toEmail: true, toMobile: true });
    await putVehicle(43, 'Truck 43');
    const alertId = await deliver(rule, 43);

    const [email] = await sentEmails(harness.emulators);
    const link = /Acknowledge: (http\S+)/.exec(email!.body.text ?? '')?.[1];
    expect(link).toMatch(/\/api\/v3\/alerts\/acknowledge\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(email!.body.html).toContain(`<a href="${link}">Acknowledge</a>`);

    const publish = sns.calls.find((call) => call.command === 'Publish')!;
    const apns = JSON.parse((JSON.parse(String(publish.input.Message)) as Record<string, string>).APNS!) as Record<string, unknown>;
    expect(apns).toMatchObject({ aps: { category: 'FLEETWATCH_ALERT' }, acknowledgeLabel: 'Acknowledge', alertId });
    expect(apns.acknowledgeUrl).toMatch(/\/api\/v3\/alerts\/acknowledge\//);

    const api = typedApiClient();
    const params = { path: { token: new URL(link!).pathname.split('/').at(-1)! } };
    expect((await api.GET('/api/v3/alerts/acknowledge/{token}', { params, parseAs: 'text' })).response.status).toBe(200);
    expect((await getAlertItem(alertId)).state).toBe('open');
    expect((await api.POST('/api/v3/alerts/acknowledge/{token}', { params, parseAs: 'text' })).response.status).toBe(200);
    expect(await getAlertItem(alertId)).toMatchObject({ state: 'acknowledged', acknowledgement: { by: 'mobile@example.com', via: 'email' } });
  });

  it("puts mute links in a user's e-mail, before the acknowledge link: the page mutes nothing, the button mutes once", async () => {
    const user = await putUser({ login: 'mail-lead', email: 'mail-lead@example.com' });
    const rule = await putRule({ stored: true, userId: user.id, recipientIds: [user.id], toEmail: true, timezone: 3 });
    await putVehicle(47, 'Truck 47');
    const alertId = await deliver(rule, 47);

    const [email] = await sentEmails(harness.emulators);
    const text = email!.body.text ?? '';
    const vehicleLink = /Mute this vehicle 1 h: (http\S+)/.exec(text)?.[1];
    const ruleLink = /Mute this rule until tomorrow 08:00: (http\S+)/.exec(text)?.[1];
    expect(vehicleLink).toMatch(/\/api\/v3\/alerts\/mute\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(ruleLink).toMatch(/\/api\/v3\/alerts\/mute\//);
    expect(text).toMatch(/\nAcknowledge: \S+\/alerts\/acknowledge\/\S+$/);
    expect(email!.body.html).toContain(`<a href="${vehicleLink}">Mute this vehicle 1 h</a>`);

    const api = typedApiClient();
    const params = { path: { token: new URL(vehicleLink!).pathname.split('/').at(-1)! } };
    const mine = async () => (await listSilences(PARENT_ID, Date.now())).filter((silence) => silence.reason.includes(alertId));
    const shown = await api.GET('/api/v3/alerts/mute/{token}', { params, parseAs: 'text' });
    expect(shown.response.status).toBe(200);
    expect(shown.data).toContain('<form method="post"><button type="submit">Mute this vehicle 1 h</button></form>');
    expect(await mine()).toEqual([]);

    const posted = await api.POST('/api/v3/alerts/mute/{token}', { params, parseAs: 'text' });
    expect(posted.response.status).toBe(200);
    const [silence] = await mine();
    expect(silence).toMatchObject({ vehicleIds: [47], createdBy: 'mail-lead', via: 'email' });
    expect(posted.data).toContain(`Muted by mail-lead until ${formatEventTime(silence!.to, 3, 2)}: vehicle 47`);
    const again = await api.POST('/api/v3/alerts/mute/{token}', { params, parseAs: 'text' });
    expect(again.data).toContain(`Already muted by mail-lead until ${formatEventTime(silence!.to, 3, 2)}: vehicle 47`);
    expect(await mine()).toHaveLength(1);

    // the user it was sent to lost write rights: the rule's link now mutes nothing
    await putUser({ id: user.id, login: user.login, email: user.email, isReadOnly: true });
    const ruleParams = { path: { token: new URL(ruleLink!).pathname.split('/').at(-1)! } };
    expect((await api.POST('/api/v3/alerts/mute/{token}', { params: ruleParams, parseAs: 'text' })).response.status).toBe(403);
    expect(await mine()).toHaveLength(1);
    // an altered link is no link
    const altered = { path: { token: `${params.path.token.slice(0, -2)}xx` } };
    expect((await api.POST('/api/v3/alerts/mute/{token}', { params: altered, parseAs: 'text' })).response.status).toBe(404);
  });

  it('links the page of an alert not kept in the history too: it shows the alert, mutes, and says it cannot be acknowledged', async () => {
    const user = await putUser({ login: 'unstored-lead', email: 'unstored-lead@example.com' });
    const rule = await putRule({ stored: false, userId: user.id, recipientIds: [user.id], toEmail: true });
    await putVehicle(48, 'Truck 48');
    const alertId = await deliver(rule, 48);

    const [email] = await sentEmails(harness.emulators);
    const text = email!.body.text ?? '';
    expect(text).not.toContain('Acknowledge:');
    const link = /\nOpen the alert page: (http\S+\/alerts\/acknowledge\/\S+)$/.exec(text)?.[1];
    expect(link).toBeDefined();

    const api = typedApiClient();
    const params = { path: { token: new URL(link!).pathname.split('/').at(-1)! } };
    const shown = await api.GET('/api/v3/alerts/acknowledge/{token}', { params, parseAs: 'text' });
    expect(shown.response.status).toBe(200);
    expect(shown.data).toContain('Truck 48');
    expect(shown.data).toContain('Not kept in the history');
    expect(shown.data).not.toContain('value="acknowledge"');
    expect(shown.data).toContain('value="muteVehicle"');
    const posted = await api.POST('/api/v3/alerts/acknowledge/{token}', { params, parseAs: 'text' });
    expect(posted.response.status).toBe(409);
    expect(String(posted.error)).toContain('This alert is not kept in the history, so it cannot be acknowledged or closed.');
    expect(await getAlertItem(alertId)).toMatchObject({ stored: false, lifecycle: [] });
  });

  it('clears the connection-lost alert when the restored one is delivered', async () => {
    const user = await putUser({ login: 'silence', email: 'silence@example.com' });
    const rule = await putRule({
      stored: true,
      type: 7,
      name: 'Silent',
      userId: user.id,
      recipientIds: [user.id],
      toEmail: true,
      settings: { minutes: '10', notifyRestored: 'true' },
    });
    await putVehicle(44, 'Truck 44');
    const silentSince = '2026-03-01T09:00:00.000Z';
    const lost = await deliver(rule, 44, {
      kind: 'connectionLost',
      time: '2026-03-01T09:10:00.000Z',
      values: { minutes: 10, lastSeenAt: silentSince },
    });
    expect((await getAlertItem(lost)).state).toBe('open');
    await deliver(rule, 44, { kind: 'connectionRestored', values: { silentSince, silentMinutes: 70 } });
    expect(await getAlertItem(lost)).toMatchObject({ state: 'cleared', lifecycle: [{ state: 'cleared', by: 'fleetwatch', via: 'system' }] });
  });
});
