import { beforeAll, describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { documentClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { lambdaContext } from '../../infra/local/sqs-poller';
import { handler as telegramHandler, resetTelegramWebhook } from '../../functions/telegram/handler';
import { buildAlertItem } from '../../shared/store/alerts/alerts-store';
import { issueLinkCode } from '../../shared/store/telegram-links';
import type { StoredRule } from '../../shared/schemas/notification';
import { useDeliverHarness } from '../support/deliver-harness';
import { getUser, linkChat, putRule, putUser, putVehicle } from './support/fixtures';
import { apiEvent } from '../api/support';

const BOT_TOKEN = '123456:topics-bot-token';
const WEBHOOK_SECRET = 'topics-webhook-secret';
const GROUP = '-1009001';

/**
 * Telegram where people work: a group's forum topic (message_thread_id) named on a rule's chat, or taken from
 * the topic a chat was linked in, receives the alert in that thread; a rule with telegramLocation sends the
 * event's position right after the alert, as a reply to it. Through the deliver function and the Bot API fake.
 */
describe('Telegram topics and locations', () => {
  const harness = useDeliverHarness({
    name: 'telegram-topics',
    telegram: { botToken: BOT_TOKEN, webhookSecret: WEBHOOK_SECRET, secretId: 'fleetwatch/telegram-topics' },
    // SNS has no local emulator: Publish is answered by a stub in the client's middleware
    sns: true,
  });
  const { telegram } = harness;
  let minute = 0;
  let updateId = 1;

  beforeAll(() => resetTelegramWebhook());

  async function deliver(rule: StoredRule, vehicleId: number, event: Record<string, unknown> = {}): Promise<void> {
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
  }

  const sent = (method: string) => telegram.calls.filter((call) => call.method === method).map((call) => call.payload);

  it("sends a rule's chat entry with a threadId to that forum topic", async () => {
    const owner = await putUser({ login: 'topic-owner', email: 'topic-owner@example.com' });
    await linkChat(owner.id, GROUP);
    await putVehicle(7101, 'Truck 7101');
    const rule = await putRule({
      userId: owner.id,
      toTelegram: true,
      telegrams: [{ id: GROUP, info: 'Dispatch group, alerts topic', threadId: 42 }],
    });
    await deliver(rule, 7101);
    const messages = sent('sendMessage').filter((payload) => String(payload.chat_id) === GROUP);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.message_thread_id).toBe(42);
    // no location unless the rule asks for it
    expect(sent('sendLocation')).toEqual([]);

    const plain = await putRule({ userId: owner.id, toTelegram: true, telegrams: [{ id: GROUP, info: 'Dispatch group' }] });
    await deliver(plain, 7101);
    expect(
      sent('sendMessage')
        .filter((payload) => String(payload.chat_id) === GROUP)
        .at(-1)!.message_thread_id,
    ).toBeUndefined();
  });

  it('remembers the topic a group was linked in, and sends its recipients there', async () => {
    const dispatcher = await putUser({ login: 'topic-dispatcher', email: 'topic-dispatcher@example.com' });
    const { code } = await issueLinkCode(dispatcher.id, Date.now());
    const update = {
      update_id: updateId++,
      message: {
        message_id: 500,
        message_thread_id: 77,
        is_topic_message: true,
        date: 1_772_000_000,
        chat: { id: Number(GROUP) - 1, type: 'supergroup', title: 'Night shift', is_forum: true },
        from: { id: 31, is_bot: false, first_name: 'Ops', username: 'ops_topic', language_code: 'en' },
        text: `/start ${code}`,
        entities: [{ type: 'bot_command', offset: 0, length: 6 }],
      },
    };
    const event = apiEvent({
      method: 'POST',
      path: '/telegram/webhook',
      body: update,
      headers: { 'x-telegram-bot-api-secret-token': WEBHOOK_SECRET },
    });
    const response = (await telegramHandler(event, lambdaContext('telegram') as Context)) as APIGatewayProxyStructuredResultV2;
    expect(response.statusCode).toBe(200);
    const chatId = String(Number(GROUP) - 1);
    expect((await getUser(dispatcher.id))!.telegramChats[chatId]).toMatchObject({ chatId, threadId: 77 });

    telegram.reset();
    await putVehicle(7102, 'Truck 7102');
    const rule = await putRule({ toTelegram: true, recipientIds: [dispatcher.id] });
    await deliver(rule, 7102);
    const messages = sent('sendMessage').filter((payload) => String(payload.chat_id) === chatId);
    expect(messages.map((payload) => payload.message_thread_id)).toEqual([77]);
  });

  it('sends the position right after the alert, as a reply to it, in the same thread', async () => {
    const owner = await putUser({ login: 'location-owner', email: 'location-owner@example.com' });
    await linkChat(owner.id, '-1009002');
    await putVehicle(7103, 'Truck 7103');
    const rule = await putRule({
      userId: owner.id,
      toTelegram: true,
      telegramLocation: true,
      telegrams: [{ id: '-1009002', info: 'Dispatch', threadId: 5 }],
    });
    await deliver(rule, 7103, { latitude: 52.52, longitude: 13.405 });
    const calls = telegram.calls.filter((call) => String(call.payload.chat_id) === '-1009002');
    expect(calls.map((call) => call.method)).toEqual(['sendMessage', 'sendLocation']);
    const message = calls[0]!;
    const location = calls[1]!.payload;
    expect(location).toMatchObject({ latitude: 52.52, longitude: 13.405, message_thread_id: 5 });
    expect(message.messageId).toBeDefined();
    expect(location.reply_parameters).toMatchObject({ message_id: message.messageId });

    // an event without a position sends the alert alone
    telegram.reset();
    await deliver(rule, 7103, { latitude: null, longitude: null });
    expect(telegram.calls.filter((call) => String(call.payload.chat_id) === '-1009002').map((call) => call.method)).toEqual(['sendMessage']);
  });
});
