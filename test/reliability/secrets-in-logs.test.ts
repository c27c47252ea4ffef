import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import { lambdaContext, pollOnce, toSqsRecord } from '../../infra/local/sqs-poller';
import { logger } from '../../shared/observability/logger';
import { resetTelegramSender } from '../../shared/delivery/senders';
import { notificationBodySchema } from '../../shared/schemas/notification';
import { createRule } from '../../shared/store/rules-store';
import { projectRules } from '../support/project-rules';
import { useDeliverHarness } from '../support/deliver-harness';
import { captureOutput, type CapturedOutput } from '../support/replay-output';
import { apiClient, seedTenants, session, typedApiClient, type Api, type Tenant, type TypedApi } from '../api/support';
import { linkChats } from '../support/owned-fleet';

/**
 * Secrets never reach the logs: a login (right and wrong password), API calls with the session token, an
 * evaluate batch and Telegram deliveries (accepted, refused, and with the Bot API unreachable) run with the
 * logger at DEBUG while everything written to stdout, stderr and the console is captured. Neither the
 * password, nor the session token, nor the bot token or webhook secret may appear in it.
 * Telegram and Secrets Manager have no emulator: D's loopback stand-ins answer for them.
 */
const BOT_TOKEN = '987654:SECRETbotTOKENpart-xyz';
const BOT_TOKEN_SECRET_PART = 'SECRETbotTOKENpart-xyz';
const WEBHOOK_SECRET = 'whsec-NEVER-LOG-ME-42';
const NOW = Date.parse('2026-03-02T12:00:00.000Z');
const VEHICLE = 101;

/** Powertools keeps the POWERTOOLS_LOGGER_LOG_EVENT setting in a field it only sets in its constructor. */
function eventLogging(enabled: boolean): void {
  (logger as unknown as { logEvent: boolean }).logEvent = enabled;
}

describe('secrets in logs', () => {
  const harness = useDeliverHarness({
    name: 'secrets-in-logs',
    telegram: { botToken: BOT_TOKEN, webhookSecret: WEBHOOK_SECRET, secretId: 'fleetwatch/telegram-secrets-test' },
    resetEach: false,
  });
  const { telegram } = harness;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let api: TypedApi;
  /** For the requests the typed client cannot express: malformed JSON and a body of the wrong types. */
  let rawApi: Api;
  let output: CapturedOutput;
  let level: string;
  const sessionTokens: string[] = [];

  beforeAll(async () => {
    tenants = await seedTenants('secrets');
    api = typedApiClient({ now: () => NOW });
    rawApi = apiClient({ now: () => NOW });
    const created = new Date(NOW - 86_400_000).toISOString();
    const rule = await createRule({
      ...notificationBodySchema.parse({
        type: 2,
        parentId: tenants.root.agentId,
        name: 'Speeding, Telegram',
        active: true,
        vehicleIds: [VEHICLE],
        settings: { limit: '90', minDuration: '0' },
        toTelegram: true,
        telegrams: [
          { id: '4242', info: 'dispatch' },
          { id: '5151', info: 'night shift' },
        ],
      }),
      parentName: '',
      version: 1,
      createdAt: created,
      updatedAt: created,
      validFrom: created,
      expiresAt: new Date(NOW + 30 * 86_400_000).toISOString(),
    });
    await projectRules([rule]);
    await linkChats(tenants.root.userId, ['4242', '5151']);
    level = logger.getLevelName();
    logger.setLogLevel('DEBUG');
    // as if POWERTOOLS_LOGGER_LOG_EVENT=true had been set at cold start (the logger reads it once, when built):
    // the handlers must still not log their events, which carry passwords and webhook updates
    eventLogging(true);
    output = captureOutput({ silent: true });
  });

  afterAll(() => {
    output.restore();
    eventLogging(false);
    logger.setLogLevel(level as Parameters<typeof logger.setLogLevel>[0]);
  });

  const loginAs = (tenant: Tenant, password: string) => api.POST('/api/v3/auth/login', { body: { login: tenant.login, password } });

  it('logs in, fails a login, and uses the session token', async () => {
    const wrong = await loginAs(tenants.root, `${tenants.root.password}-typo`);
    expect(wrong.response.status).toBe(401);
    // raw: malformed JSON, which the typed client cannot send
    const malformed = await rawApi({
      method: 'POST',
      path: '/api/v3/auth/login',
      body: `{"login": "${tenants.root.login}", "password": "${tenants.root.password}"`,
    });
    expect(malformed.status).toBe(400);
    const ok = await loginAs(tenants.root, tenants.root.password);
    expect(ok.response.status).toBe(200);
    const token = ok.data!.AuthId;
    sessionTokens.push(token);
    expect((await api.GET('/api/v3/auth/check', { headers: session(token) })).response.status).toBe(200);
    const found = await api.POST('/api/v3/notifications/find', { headers: session(token), body: { parentId: tenants.root.agentId } });
    expect(found.response.status).toBe(200);
    // a request the API refuses, carrying the token (raw: a body of the wrong types, which the typed client cannot send)
    expect((await rawApi({ method: 'PUT', path: '/api/v3/notifications', token, body: { type: 'nonsense' } })).status).toBeGreaterThanOrEqual(400);
    // a token one character off is unknown
    const forged = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    expect((await api.GET('/api/v3/auth/check', { headers: session(forged) })).response.status).toBe(401);
  });

  it('evaluates a batch that raises an alert, and delivers it to Telegram', async () => {
    const evaluate = createEvaluateHandler({ clock: () => NOW });
    const body = (seconds: number, speed: number) =>
      JSON.stringify({ vehicleId: VEHICLE, deviceTime: new Date(NOW - seconds * 1000).toISOString(), latitude: 55.75, longitude: 37.62, speed });
    const records = [body(20, 60), body(10, 130), 'not json'].map((text, index) =>
      toSqsRecord(
        { MessageId: `secrets-${index}`, ReceiptHandle: `rh-${index}`, Body: text, Attributes: { MessageGroupId: String(VEHICLE) } },
        'arn:aws:sqs:us-east-1:000000000000:in.fifo',
      ),
    );
    const response = await evaluate({ Records: records }, lambdaContext('evaluate'));
    expect(response?.batchItemFailures).toEqual([]);

    telegram.script('5151', { code: 500 });
    await harness.drainDeliveries({ rounds: 5, handler: harness.createHandler() });
    expect(
      telegram
        .delivered()
        .map((message) => message.chatId)
        .sort(),
    ).toEqual(['4242', '5151']);
    expect(telegram.calls.every((call) => call.token === BOT_TOKEN)).toBe(true);
  });

  it('gives up on an unreachable Bot API without hanging the deliver function', async () => {
    const apiRoot = process.env.TELEGRAM_API_ROOT;
    // nothing listens on the discard port: every Bot API call fails at the connection
    vi.stubEnv('TELEGRAM_API_ROOT', 'http://127.0.0.1:9');
    resetTelegramSender();
    try {
      const evaluate = createEvaluateHandler({ clock: () => NOW + 600_000 });
      const text = JSON.stringify({
        vehicleId: VEHICLE,
        deviceTime: new Date(NOW + 590_000).toISOString(),
        latitude: 55.75,
        longitude: 37.62,
        speed: 140,
      });
      const record = toSqsRecord(
        { MessageId: 'secrets-late', ReceiptHandle: 'rh-late', Body: text, Attributes: { MessageGroupId: String(VEHICLE) } },
        'arn:aws:sqs:us-east-1:000000000000:in.fifo',
      );
      expect((await evaluate({ Records: [record] }, lambdaContext('evaluate')))?.batchItemFailures).toEqual([]);
      const before = telegram.calls.length;
      // the last receive: the deliver function records why and leaves the retry to the sweep
      const deliver = harness.createHandler({ maxReceiveCount: 1 });
      expect(
        await pollOnce({ queueUrl: harness.emulators.queues.deliveries, handler: deliver, functionName: 'deliver', visibilityTimeoutSeconds: 0 }),
      ).toBe(1);
      expect(telegram.calls.length).toBe(before);
    } finally {
      vi.stubEnv('TELEGRAM_API_ROOT', apiRoot);
      resetTelegramSender();
    }
    expect(output.text()).toMatch(/delivery attempt 1 of 8 failed: network: .*; retried in \d s/);
    expect(output.text()).toContain('delivery waits for the sweep to hand it back');
  }, 20_000);

  it('wrote logs, and none of them holds a password, a session token, the bot token or the webhook secret', () => {
    const text = output.text();
    // the capture did see the work above
    expect(text).toContain('alert raised');
    expect(text).toContain('"ApiRequests"');
    expect(sessionTokens).toHaveLength(1);

    const forbidden: [string, string][] = [
      ['password', tenants.root.password],
      ['mistyped password', `${tenants.root.password}-typo`],
      ['session token', sessionTokens[0]!],
      ['bot token', BOT_TOKEN],
      ['bot token (secret part)', BOT_TOKEN_SECRET_PART],
      ['bot token (URL-encoded)', encodeURIComponent(BOT_TOKEN)],
      ['webhook secret', WEBHOOK_SECRET],
    ];
    const leaks = forbidden.filter(([, secret]) => text.includes(secret)).map(([name]) => name);
    const context = (secret: string) => {
      const at = text.indexOf(secret);
      return at < 0 ? '' : text.slice(Math.max(0, at - 200), at + 50);
    };
    expect(leaks, leaks.map((name) => `${name}: …${context(forbidden.find(([n]) => n === name)![1])}`).join('\n')).toEqual([]);
  });
});
