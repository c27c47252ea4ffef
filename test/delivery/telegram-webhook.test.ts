import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Emulators } from '../../infra/local/emulators';
import { lambdaContext } from '../../infra/local/sqs-poller';
import { handler, resetTelegramWebhook } from '../../functions/telegram/handler';
import { forgetTelegramCredentials } from '../../shared/channels/telegram/credentials';
import { registerTelegramWebhook } from '../../shared/channels/telegram/register-webhook';
import { issueLinkCode } from '../../shared/store/telegram-links';
import { startTestEmulators } from '../support/emulators';
import { FakeSecretsManager } from './support/fake-secrets-manager';
import { FakeTelegram } from '../../infra/local/telegram-fake';
import { getUser, putUser } from './support/fixtures';

const WEBHOOK_SECRET = 'webhook-secret-token';
let updateId = 1;

function update(chatId: number, text: string, languageCode = 'en') {
  const entityLength = text.split(' ')[0]!.length;
  return {
    update_id: updateId++,
    message: {
      message_id: updateId,
      date: 1_772_000_000,
      chat: { id: chatId, type: 'private', first_name: 'Ops', username: 'ops_night' },
      from: { id: chatId, is_bot: false, first_name: 'Ops', username: 'ops_night', language_code: languageCode },
      text,
      entities: text.startsWith('/') ? [{ type: 'bot_command', offset: 0, length: entityLength }] : [],
    },
  };
}

function request(body: unknown, secret: string | null = WEBHOOK_SECRET): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: 'POST /telegram/webhook',
    rawPath: '/telegram/webhook',
    rawQueryString: '',
    headers: {
      'content-type': 'application/json',
      ...(secret === null ? {} : { 'x-telegram-bot-api-secret-token': secret }),
    },
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method: 'POST', path: '/telegram/webhook', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'telegram' },
      requestId: 'r',
      routeKey: 'POST /telegram/webhook',
      stage: '$default',
      time: '',
      timeEpoch: 0,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    isBase64Encoded: false,
  };
}

async function call(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  return (await handler(event, lambdaContext('telegram') as Context)) as APIGatewayProxyStructuredResultV2;
}

describe('Telegram webhook', () => {
  let emulators: Emulators;
  const telegram = new FakeTelegram();
  const secrets = new FakeSecretsManager();

  beforeAll(async () => {
    emulators = await startTestEmulators('tg-webhook');
    vi.stubEnv('TELEGRAM_API_ROOT', await telegram.start());
    vi.stubEnv('AWS_ENDPOINT_URL_SECRETS_MANAGER', await secrets.start());
    vi.stubEnv('TELEGRAM_SECRET_ID', 'fleetwatch/telegram-webhook');
    secrets.secrets.set('fleetwatch/telegram-webhook', JSON.stringify({ botToken: '42:webhook-bot', webhookSecret: WEBHOOK_SECRET }));
    forgetTelegramCredentials();
    resetTelegramWebhook();
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await Promise.all([emulators.stop(), telegram.stop(), secrets.stop()]);
  });
  beforeEach(() => telegram.reset());

  const replies = () => telegram.calls.filter((entry) => entry.method === 'sendMessage').map((entry) => entry.payload);

  it('links the chat on /start <code> and says to whom', async () => {
    const user = await putUser({ login: 'night<ops>', email: 'night@example.com' });
    const { code } = await issueLinkCode(user.id, Date.now());
    const response = await call(request(update(31337, `/start ${code}`)));
    expect(response.statusCode).toBe(200);

    const chats = Object.values((await getUser(user.id)).telegramChats ?? {});
    expect(chats).toEqual([expect.objectContaining({ chatId: '31337', username: 'ops_night', active: true })]);
    expect(replies()).toEqual([
      expect.objectContaining({ chat_id: 31337, parse_mode: 'HTML', text: expect.stringContaining('linked to <b>night&lt;ops&gt;</b>') }),
    ]);
  });

  it('answers a used or unknown code clearly, in the sender language, and links nothing', async () => {
    const user = await putUser({ login: 'second', email: 'second@example.com' });
    const { code } = await issueLinkCode(user.id, Date.now());
    await call(request(update(1001, `/start ${code}`)));
    telegram.reset();
    await call(request(update(1002, `/start ${code}`, 'ru')));
    await call(request(update(1003, '/start')));
    expect(replies().map((reply) => reply.text)).toEqual([
      expect.stringContaining('Код привязки неверен, уже использован или истёк'),
      expect.stringContaining('send /start followed by the link code'),
    ]);
    expect(Object.values((await getUser(user.id)).telegramChats ?? {}).map((chat) => chat.chatId)).toEqual(['1001']);
  });

  it("tells the user's other chats, in the user's language, when a new chat is linked; one that blocked the bot is marked inactive", async () => {
    const user = await putUser({ login: 'watch<er>', email: 'watcher@example.com', language: 1 });
    for (const chatId of [5001, 5003]) await call(request(update(chatId, `/start ${(await issueLinkCode(user.id, Date.now())).code}`)));
    telegram.reset();
    telegram.block('5003');

    // someone who got hold of a link code links a chat of their own
    expect((await call(request(update(5002, `/start ${(await issueLinkCode(user.id, Date.now())).code}`)))).statusCode).toBe(200);

    const delivered = telegram.delivered();
    expect(delivered.map((message) => message.chatId).sort()).toEqual(['5001', '5002']);
    expect(delivered.find((message) => message.chatId === '5002')?.text).toContain('This chat is now linked');
    const notice = delivered.find((message) => message.chatId === '5001');
    expect(notice).toMatchObject({ parseMode: 'HTML' });
    expect(notice?.text).toContain('К пользователю <b>watch&lt;er&gt;</b> привязан новый чат Telegram (@ops_night)');
    // the blocked chat was tried, and gets nothing more
    expect(
      replies()
        .map((reply) => String(reply.chat_id))
        .sort(),
    ).toEqual(['5001', '5002', '5003']);
    const chats = (await getUser(user.id)).telegramChats;
    expect(Object.fromEntries(Object.values(chats).map((chat) => [chat.chatId, chat.active]))).toEqual({ '5001': true, '5002': true, '5003': false });

    // a chat that links again tells the others, never itself
    telegram.reset();
    await call(request(update(5001, `/start ${(await issueLinkCode(user.id, Date.now())).code}`)));
    expect(
      telegram
        .delivered()
        .map((message) => message.chatId)
        .sort(),
    ).toEqual(['5001', '5002']);
  });

  it('unlinks the chat on /stop', async () => {
    const user = await putUser({ login: 'leaver', email: 'leaver@example.com' });
    await call(request(update(2002, `/start ${(await issueLinkCode(user.id, Date.now())).code}`)));
    await call(request(update(2002, '/stop')));
    expect(Object.values((await getUser(user.id)).telegramChats ?? {})).toEqual([]);
    expect(replies().at(-1)?.text).toContain('This chat is unlinked');
  });

  it('rejects a request without the right secret header with 401 and does nothing', async () => {
    const user = await putUser({ login: 'guarded', email: 'guarded@example.com' });
    const { code } = await issueLinkCode(user.id, Date.now());
    expect((await call(request(update(4004, `/start ${code}`), 'wrong-secret'))).statusCode).toBe(401);
    expect((await call(request(update(4004, `/start ${code}`), null))).statusCode).toBe(401);
    expect(Object.values((await getUser(user.id)).telegramChats ?? {})).toEqual([]);
    expect(replies()).toEqual([]);
    // the code was not spent: the real update still links
    await call(request(update(4004, `/start ${code}`)));
    expect(Object.values((await getUser(user.id)).telegramChats ?? {}).map((chat) => chat.chatId)).toEqual(['4004']);
  });

  it('answers 400 to a body that is not JSON', async () => {
    expect((await call(request('{not json'))).statusCode).toBe(400);
  });

  it('registers the webhook with Telegram together with its secret token', async () => {
    await registerTelegramWebhook('https://api.fleetwatch.example/telegram/webhook');
    expect(telegram.calls.find((entry) => entry.method === 'setWebhook')?.payload).toMatchObject({
      url: 'https://api.fleetwatch.example/telegram/webhook',
      secret_token: WEBHOOK_SECRET,
      allowed_updates: ['message'],
    });
  });
});
