import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { startWebhookReceiver, type RunningWebhookReceiver } from '../../infra/local/webhook-receiver';
import { documentClient } from '../../shared/aws/dynamodb';
import { resourcesConfig } from '../../shared/config';
import { markSideEmailConfirmed } from '../../shared/store/email-consent/confirmation';
import { suppressAddress } from '../../shared/store/email-consent/suppression';
import { createWebhook } from '../../shared/store/webhooks-store';
import { sentEmails } from '../support/emulators';
import { useDeliverHarness } from '../support/deliver-harness';
import { linkChat, putRule } from '../delivery/support/fixtures';
import { TestClock, login, seedTenants, session, typedApiClient, type TypedApi } from './support';

const BOT_TOKEN = '123456:test-bot-token';
const HOUR = 3_600_000;

/**
 * `POST /api/v3/notifications/{id}/test` through the real API and deliver handlers: the deliveries queue on
 * fauxqs, SES on aws-ses-v2-local, the Telegram fake and a webhook receiver on loopback.
 */
describe('test alerts of a rule', () => {
  const harness = useDeliverHarness({ name: 'notification-test', telegram: { botToken: BOT_TOKEN }, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  const { telegram } = harness;
  let receiver: RunningWebhookReceiver;
  let api: TypedApi;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  const clock = new TestClock();
  let endpoints = 0;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    api = typedApiClient({ now: clock.now });
    tenants = await seedTenants('testsend');
  });
  afterAll(() => receiver.stop());
  beforeEach(() => {
    receiver.attempts.length = 0;
    // each test in an hour of its own, so that the per-client counter starts at zero
    clock.advance(2 * HOUR);
  });

  async function drain(): Promise<void> {
    await harness.drainDeliveries({ rounds: 10, handler: harness.createHandler({ clock: clock.now }) });
  }

  const startTest = (token: string, id: number) => api.POST('/api/v3/notifications/{id}/test', { headers: session(token), params: { path: { id } } });
  const readTest = (token: string, id: number, testId: string) =>
    api.GET('/api/v3/notifications/{id}/test/{testId}', { headers: session(token), params: { path: { id, testId } } });

  const alertItems = async () => (await documentClient().send(new ScanCommand({ TableName: resourcesConfig().ALERTS_TABLE }))).Items ?? [];

  /** A rule of root on every channel: its owner by e-mail and Telegram, three side addresses (one confirmed, one suppressed), two rule chats (one linked), the client's webhook. */
  async function everyChannelRule() {
    const clientId = tenants.root.agentId;
    await linkChat(tenants.root.userId, '4242');
    await markSideEmailConfirmed(clientId, 'confirmed@outside.test', clock.now());
    await markSideEmailConfirmed(clientId, 'bounced@outside.test', clock.now());
    await suppressAddress('bounced@outside.test', 'bounce', clock.now());
    const endpoint = await createWebhook({ parentId: clientId, url: `${receiver.url}tests-${endpoints++}`, description: 'tests' }, clock.now());
    receiver.secret = endpoint.secret;
    const rule = await putRule({
      parentId: clientId,
      userId: tenants.root.userId,
      recipientIds: [tenants.root.userId],
      name: 'Night speeding',
      toEmail: true,
      toTelegram: true,
      telegrams: [
        { id: '4242', info: 'root' },
        { id: '-100777', info: 'nobody linked it' },
      ],
      enableSideEmails: true,
      sideEmails: ['confirmed@outside.test', 'waiting@outside.test', 'bounced@outside.test'],
      toClient: true,
    });
    return { rule, endpoint };
  }

  it('sends a TEST alert to each reachable target and answers one outcome per target', async () => {
    const { rule, endpoint } = await everyChannelRule();
    const token = await login(api, tenants.root);
    const before = (await alertItems()).length;
    receiver.script(500);

    const accepted = await startTest(token, rule.id);
    expect(accepted.response.status).toBe(202);
    expect(accepted.data).toMatchObject({ ruleId: rule.id, status: 'pending', targets: [] });
    const testId = accepted.data!.testId;
    expect((await readTest(token, rule.id, testId)).data).toMatchObject({ status: 'pending' });

    await drain();
    const answer = await readTest(token, rule.id, testId);
    expect(answer.response.status).toBe(200);
    expect(answer.data?.status).toBe('done');
    const byTarget = Object.fromEntries((answer.data?.targets ?? []).map((entry) => [entry.target, entry.outcome]));
    expect(byTarget).toEqual({
      'email:root@testsend.example.com': 'sent',
      'email:confirmed@outside.test': 'sent',
      'email:waiting@outside.test': 'notConfirmed',
      'email:bounced@outside.test': 'suppressed',
      'telegram:4242': 'sent',
      'telegram:-100777': 'notLinked',
      [`webhook:${endpoint.id}`]: 'failed',
    });
    expect(answer.data?.targets.find((entry) => entry.target.startsWith('webhook:'))?.reason).toMatch(/500/);

    const mails = await sentEmails(harness.emulators);
    expect(
      mails
        .map((mail) => mail.destination.to)
        .flat()
        .sort(),
    ).toEqual(['confirmed@outside.test', 'root@testsend.example.com']);
    for (const mail of mails) {
      expect(mail.subject).toBe('TEST: Night speeding');
      expect(mail.body.text?.split('\n')[0]).toMatch(/^TEST: /);
    }
    // the unconfirmed side address gets neither the test nor a confirmation link
    expect(mails.some((mail) => mail.destination.to.includes('waiting@outside.test'))).toBe(false);
    const messages = telegram.delivered();
    expect(messages.map((message) => message.chatId)).toEqual(['4242']);
    expect(messages[0]!.text).toMatch(/^<b>TEST<\/b>: /);
    expect(receiver.attempts).toEqual([{ idempotencyKey: testId, signatureValid: true, status: 500 }]);
    // nothing in the history
    expect((await alertItems()).length).toBe(before);
  });

  it('answers 404 for a rule of another tenant, 403 to a read-only user, and 404 for a test of another rule', async () => {
    const { rule } = await everyChannelRule();
    const other = await putRule({ parentId: tenants.root.agentId, userId: tenants.root.userId, recipientIds: [tenants.root.userId], toEmail: true });
    const sibling = await login(api, tenants.sibling);
    expect((await startTest(sibling, rule.id)).response.status).toBe(404);
    const viewer = await login(api, tenants.readOnly);
    expect((await startTest(viewer, rule.id)).response.status).toBe(403);

    const token = await login(api, tenants.root);
    const accepted = await startTest(token, rule.id);
    await drain();
    const testId = accepted.data!.testId;
    expect((await readTest(token, other.id, testId)).response.status).toBe(404);
    expect((await readTest(sibling, rule.id, testId)).response.status).toBe(404);
    expect((await sentEmails(harness.emulators)).length).toBeGreaterThan(0);
  });

  it('allows ten tests per client and hour, then answers 429 with Retry-After until the next hour', async () => {
    const rule = await putRule({ parentId: tenants.root.agentId, userId: tenants.root.userId, recipientIds: [tenants.root.userId], toEmail: true });
    const token = await login(api, tenants.root);
    const test = async () => (await startTest(token, rule.id)).response;
    for (let count = 0; count < 10; count++) expect((await test()).status).toBe(202);
    const refused = await test();
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('Retry-After'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3_600);
    clock.advance(retryAfter * 1000);
    const again = await login(api, tenants.root);
    expect((await startTest(again, rule.id)).response.status).toBe(202);
    await drain();
  });
});
