import { randomBytes } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/dynamodb';
import { resourcesConfig } from '../../shared/config';
import type { SentSms } from '../../infra/local/sms-fake';
import { forgetAlertLinkKey, verifyAlertLink } from '../../shared/auth/alert-link-token';
import { newShortLinkCode } from '../../shared/auth/short-link-code';
import { type Language } from '../../shared/schemas/directory';
import { putShortLink } from '../../shared/store/short-links';
import { monthOf, smsSpendOf } from '../../shared/store/sms-spend';
import { login, seedTenants, typedApiClient, type TypedApi } from '../api/support';
import { FakeSecretsManager } from './support/fake-secrets-manager';
import { useDeliverHarness } from '../support/deliver-harness';
import { getAlertItem, PARENT_ID, putAlert, putRule, putUser } from './support/fixtures';
import { directoryKeys } from '../../shared/store/keys';

/** The host of a deployed stack's ApiUrl: as long as execute-api addresses are (a 10-character id, eu-central-1). */
const EXECUTE_API_URL = 'https://abc123defg.execute-api.eu-central-1.amazonaws.com/api/v3';
const SHORT_LINK = /(https?:\/\/\S+\/alerts\/s\/([0-9A-Za-z]+))$/;

/**
 * The short link of alert SMS, end to end: deliver sends through the SMS fake an SMS whose short link, opened
 * through the real API handler, redirects to the alert's page, on DynamoDB Local.
 */
describe('the short link of alert SMS', () => {
  const harness = useDeliverHarness({ name: 'deliver-sms-link', sms: true, env: { PUBLIC_API_URL: EXECUTE_API_URL } });
  const { sms } = harness;
  let api: TypedApi;
  const secrets = new FakeSecretsManager();
  let vehicle = 940;
  let number = 994501120001;

  beforeAll(() => {
    api = typedApiClient();
  });
  beforeEach(() => {
    vi.stubEnv('PUBLIC_API_URL', EXECUTE_API_URL);
  });

  // a handler made for each receive, after the test set its environment
  async function drain(rounds = 10): Promise<void> {
    for (let round = 0; round < rounds; round++) if ((await harness.drainDeliveries({ rounds: 1, handler: harness.createHandler() })) === 0) break;
  }

  async function deliverSms(language: Language = 2): Promise<{ alertId: string; phoneNumber: string; sent: SentSms; userId: string }> {
    const { alertId, phoneNumber, userId } = await enqueueSmsAlert(language);
    await drain();
    const sent = sms.sent.filter((message) => message.to === phoneNumber);
    expect(sent).toHaveLength(1);
    return { alertId, phoneNumber, sent: sent[0]!, userId };
  }

  async function enqueueSmsAlert(language: Language = 2): Promise<{ alertId: string; phoneNumber: string; userId: string }> {
    const phoneNumber = `+${number++}`;
    const user = await putUser({
      login: `sms-link-${phoneNumber}`,
      email: `sms-link-${vehicle}@example.com`,
      phoneNumber,
      phoneVerifiedAt: '2026-03-01T08:00:00.000Z',
      language,
    });
    const rule = await putRule({ stored: true, userId: user.id, recipientIds: [user.id], toSms: true });
    // an alert id as evaluate makes them (32 hex digits): the alert page's link carries no other
    const alertId = randomBytes(16).toString('hex');
    const alert = await putAlert(rule, vehicle++, { kind: 'panic', values: {} }, { severity: 'critical', alertId });
    await harness.enqueue(alert.alertId);
    return { alertId: alert.alertId, phoneNumber, userId: user.id };
  }

  /** The short link through the API handler, which has no PUBLIC_API_URL when deployed (only deliver has it). */
  async function open(code: string, headers: Record<string, string> = {}) {
    const base = process.env.PUBLIC_API_URL;
    vi.stubEnv('PUBLIC_API_URL', undefined);
    try {
      return await api.GET('/api/v3/alerts/s/{code}', { params: { path: { code } }, headers, parseAs: 'text' });
    } finally {
      vi.stubEnv('PUBLIC_API_URL', base);
    }
  }
  const smsDelivery = async (alertId: string, phoneNumber: string) =>
    ((await getAlertItem(alertId)).deliveries as Record<string, { status: string; sms: { segments: number } }>)[`sms:${phoneNumber}`]!;

  it("sends an English alert in one GSM-7 segment with a short link that redirects to that alert's page", async () => {
    const { alertId, phoneNumber, sent, userId } = await deliverSms();
    const [, link, code] = SHORT_LINK.exec(sent.body) ?? [];
    expect(link, sent.body).toBe(`${EXECUTE_API_URL}/alerts/s/${code}`);
    expect(code).toMatch(/^[0-9A-Za-z]{10}$/);
    expect(sent).toMatchObject({ encoding: 'GSM-7', segments: 1 });
    expect(sent.body.length).toBeLessThanOrEqual(160);
    expect(sent.body).toContain('Vehicle');
    expect(await smsDelivery(alertId, phoneNumber)).toMatchObject({ status: 'sent', sms: { segments: sent.segments } });

    const answer = await open(code!);
    expect(answer.response.status).toBe(302);
    const location = answer.response.headers.get('Location')!;
    // a path on the host the SMS's link named, whatever PUBLIC_API_URL deliver had
    expect(location).toMatch(/^\/api\/v3\/alerts\/acknowledge\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const token = location.split('/').at(-1)!;
    const check = await verifyAlertLink(token, Date.now());
    expect(check).toMatchObject({ ok: true, link: { alertId, sentTo: `sms:${phoneNumber}`, userId, language: 2 } });
    expect(answer.response.headers.get('Cache-Control')).toBe('no-store');
    expect(answer.response.headers.get('Referrer-Policy')).toBe('no-referrer');

    // the item lives exactly as long as the link it stands for
    const { Item } = await documentClient().send(
      new GetCommand({ TableName: resourcesConfig().DIRECTORY_TABLE, Key: directoryKeys.shortLink(code!) }),
    );
    expect(Item).toMatchObject({ token, ttl: check.ok ? check.link.expiresAt : -1 });

    const params = { path: { token } };
    const page = await api.GET('/api/v3/alerts/acknowledge/{token}', { params, parseAs: 'text' });
    expect(page.response.status).toBe(200);
    expect(page.data).toContain(`Vehicle ${vehicle - 1}`);
    // acknowledged from the page the SMS led to: recorded as the number, by SMS link
    expect((await api.POST('/api/v3/alerts/acknowledge/{token}', { params, parseAs: 'text' })).response.status).toBe(200);
    expect(await getAlertItem(alertId)).toMatchObject({ state: 'acknowledged', acknowledgement: { by: phoneNumber, via: 'sms' } });
  });

  it('leaves the link out of a Russian SMS that a long API host leaves no room for, and keeps it with a short domain', async () => {
    const long = await deliverSms(1);
    expect(long.sent).toMatchObject({ encoding: 'UCS-2', segments: 1 });
    expect(long.sent.body).not.toMatch(/https?:/);
    expect(await smsDelivery(long.alertId, long.phoneNumber)).toMatchObject({ sms: { segments: 1 } });

    vi.stubEnv('PUBLIC_API_URL', 'https://fw.example.az/api/v3/');
    const short = await deliverSms(1);
    expect(short.sent).toMatchObject({ encoding: 'UCS-2', segments: 1 });
    const code = SHORT_LINK.exec(short.sent.body)?.[2];
    expect(short.sent.body, short.sent.body).toMatch(/^.{8,}\.\.\. https:\/\/fw\.example\.az\/api\/v3\/alerts\/s\/[0-9A-Za-z]{10}$/su);
    const answer = await open(code!);
    expect(answer.response.status).toBe(302);
    expect(answer.response.headers.get('Location')).toMatch(/^\/api\/v3\/alerts\/acknowledge\//);
    expect(await smsDelivery(short.alertId, short.phoneNumber)).toMatchObject({ status: 'sent', sms: { segments: short.sent.segments } });
  });

  it('sends nothing when the link cannot be made, gives back the claim and the spend, and sends the SMS once when it can', async () => {
    const secretId = `fleetwatch/alert-link-${randomBytes(4).toString('hex')}`;
    vi.stubEnv('AWS_ENDPOINT_URL_SECRETS_MANAGER', await secrets.start());
    vi.stubEnv('ALERT_LINK_SECRET_ID', secretId);
    forgetAlertLinkKey();
    try {
      const month = monthOf(Date.now());
      const spentBefore = (await smsSpendOf(PARENT_ID, month)).spentMicroUsd;
      const { alertId, phoneNumber } = await enqueueSmsAlert();
      // the link's key is not there yet: signing fails after the claim and the spend, before the send
      await drain(1);
      expect(sms.sent).toHaveLength(0);
      expect((await smsSpendOf(PARENT_ID, month)).spentMicroUsd).toBe(spentBefore);
      expect((await getAlertItem(alertId))[`smsClaim:sms:${phoneNumber}`]).toBeUndefined();

      secrets.secrets.set(secretId, randomBytes(32).toString('hex'));
      await drain();
      expect(sms.sent).toHaveLength(1);
      expect(await smsDelivery(alertId, phoneNumber)).toMatchObject({ status: 'sent', sms: { segments: 1 } });
      expect((await smsSpendOf(PARENT_ID, month)).spentMicroUsd).toBeGreaterThan(spentBefore);
      const answer = await open(SHORT_LINK.exec(sms.sent[0]!.body)![2]!);
      const token = answer.response.headers.get('Location')!.split('/').at(-1)!;
      expect(await verifyAlertLink(token, Date.now())).toMatchObject({ ok: true, link: { alertId } });
      await harness.enqueue(alertId);
      await drain();
      expect(sms.sent).toHaveLength(1);
    } finally {
      vi.stubEnv('ALERT_LINK_SECRET_ID', undefined);
      forgetAlertLinkKey();
      await secrets.stop();
    }
  });

  it('answers 404 with a page for an unknown or expired code, and 400 for one that is not a code', async () => {
    const unknown = await open(newShortLinkCode());
    expect(unknown.response.status).toBe(404);
    expect(unknown.response.headers.get('Content-Type')).toMatch(/^text\/html/);
    expect(String(unknown.error)).toContain('This link is not valid, or it has expired');

    // DynamoDB deletes an expired item only eventually: until then the route refuses it itself
    const expired = newShortLinkCode();
    await putShortLink(expired, 'a.token', Math.floor(Date.now() / 1000) - 1);
    expect((await open(expired)).response.status).toBe(404);
    const valid = newShortLinkCode();
    await putShortLink(valid, 'a.token', Math.floor(Date.now() / 1000) + 60);
    expect((await open(valid)).response.status).toBe(302);

    for (const malformed of ['short', 'abcdefghij1', 'abc-efghij', 'абвгдежзий'])
      expect((await open(malformed)).response.status, malformed).toBe(400);
  });

  it('grants another tenant nothing beyond the link: the same redirect with or without a session, no alert data, no action', async () => {
    const { alertId, sent } = await deliverSms();
    const code = SHORT_LINK.exec(sent.body)![2]!;
    const tenants = await seedTenants('sms-link');
    const session = await login(api, tenants.sibling);

    const anonymous = await open(code);
    const other = await open(code, { 'X-Auth': session });
    expect(other.response.status).toBe(302);
    expect(other.response.headers.get('Location')).toBe(anonymous.response.headers.get('Location'));
    expect(String(other.error ?? other.data)).toBe(String(anonymous.error ?? anonymous.data));
    // the redirect names no vehicle, event or recipient: only where the link leads
    expect(String(other.error ?? other.data)).not.toMatch(/Vehicle|panic|\+994/);
    // the code is no token: the alert page does not take it, and the short link takes no POST
    expect((await api.GET('/api/v3/alerts/acknowledge/{token}', { params: { path: { token: code } }, parseAs: 'text' })).response.status).toBe(404);
    const posted = await typedApiClient().POST('/api/v3/alerts/acknowledge/{token}', { params: { path: { token: code } }, parseAs: 'text' });
    expect(posted.response.status).toBe(404);
    expect((await getAlertItem(alertId)).state).toBe('open');
  });
});
