import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Emulators } from '../../infra/local/emulators';
import { lambdaContext } from '../../infra/local/sqs-poller';
import { handler, resetTelegramWebhook } from '../../functions/telegram/handler';
import { forgetTelegramCredentials } from '../../shared/channels/telegram/credentials';
import { startTestEmulators } from '../support/emulators';
import { FakeSecretsManager } from '../delivery/support/fake-secrets-manager';
import { FakeTelegram } from '../../infra/local/telegram-fake';

const WEBHOOK_SECRET = 'the-webhook-secret-token';

function request(secret: string | null): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: 'POST /telegram/webhook',
    rawPath: '/telegram/webhook',
    rawQueryString: '',
    headers: { 'content-type': 'application/json', ...(secret === null ? {} : { 'x-telegram-bot-api-secret-token': secret }) },
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method: 'POST', path: '/telegram/webhook', protocol: 'HTTP/1.1', sourceIp: '203.0.113.9', userAgent: 'curl' },
      requestId: 'r',
      routeKey: 'POST /telegram/webhook',
      stage: '$default',
      time: '',
      timeEpoch: 0,
    },
    body: JSON.stringify({
      update_id: 77,
      message: {
        message_id: 1,
        date: 1_772_000_000,
        chat: { id: 5005, type: 'private', first_name: 'X' },
        from: { id: 5005, is_bot: false, first_name: 'X' },
        text: '/stop',
        entities: [{ type: 'bot_command', offset: 0, length: 5 }],
      },
    }),
    isBase64Encoded: false,
  };
}

async function call(event: APIGatewayProxyEventV2): Promise<{ result: APIGatewayProxyStructuredResultV2; ms: number }> {
  const started = Date.now();
  const result = (await handler(event, lambdaContext('telegram') as Context)) as APIGatewayProxyStructuredResultV2;
  return { result, ms: Date.now() - started };
}

/**
 * Replays an update posted to the Telegram webhook by someone who is not Telegram: the secret header is checked
 * before anything else, so a request without it is answered 401 at once, with no Bot API call (the fake's call
 * log stays empty, getMe included) and no read of Secrets Manager.
 */
describe('Telegram webhook secret', () => {
  let emulators: Emulators;
  const telegram = new FakeTelegram();
  const secrets = new FakeSecretsManager();

  beforeAll(async () => {
    emulators = await startTestEmulators('tg-secret');
    vi.stubEnv('TELEGRAM_API_ROOT', await telegram.start());
    vi.stubEnv('AWS_ENDPOINT_URL_SECRETS_MANAGER', await secrets.start());
    vi.stubEnv('TELEGRAM_SECRET_ID', 'fleetwatch/telegram-secret-test');
    secrets.secrets.set('fleetwatch/telegram-secret-test', JSON.stringify({ botToken: '42:secret-test-bot', webhookSecret: WEBHOOK_SECRET }));
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await Promise.all([emulators.stop(), telegram.stop(), secrets.stop()]);
  });
  beforeEach(() => {
    // a cold start each time: nothing cached, neither the secret nor an initialised bot
    forgetTelegramCredentials();
    resetTelegramWebhook();
    telegram.reset();
    secrets.reads = 0;
  });

  it('answers an update without the secret header 401 at once, calling neither Telegram nor Secrets Manager', async () => {
    const { result, ms } = await call(request(null));
    expect(result.statusCode).toBe(401);
    expect(ms).toBeLessThan(1000);
    expect(telegram.calls).toEqual([]);
    expect(secrets.reads).toBe(0);
  });

  it('answers a wrong secret 401 without calling Telegram', async () => {
    const { result } = await call(request('not-the-secret'));
    expect(result.statusCode).toBe(401);
    expect(telegram.calls).toEqual([]);
    // a second wrong request on the warm function reads the secret from the cache
    await call(request('not-the-secret-either'));
    expect(secrets.reads).toBe(1);
  });

  it('runs the bot for the right secret', async () => {
    const { result } = await call(request(WEBHOOK_SECRET));
    expect(result.statusCode).toBe(200);
    expect(telegram.calls.map((entry) => entry.method)).toContain('getMe');
  });
});
