import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Context, SNSEvent } from 'aws-lambda';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/dynamodb';
import { resourcesConfig } from '../../shared/config';
import type { Emulators } from '../../infra/local/emulators';
import { handler as deliverFunction } from '../../functions/deliver/handler';
import { createAgent } from '../../shared/store/directory-store';
import { issueLinkCode, redeemLinkCode, unlinkTelegramChat } from '../../shared/store/telegram-links';
import { clearSentEmails, sentEmails, startTestEmulators } from '../support/emulators';
import { useDeliverHarness } from '../support/deliver-harness';
import { getAlertItem, putAlert, putRule, putUser } from '../delivery/support/fixtures';
import { apiClient, lambdaContext, login, ruleBody, seedTenants, session, typedApiClient, type JsonBody, type TypedApi } from '../api/support';
import { registerVehicle } from '../../shared/store/vehicle-registry';
import { directoryKeys } from '../../shared/store/keys';

/**
 * Attacks replayed: using fleetwatch's official bot and sender against strangers.
 * - A rule names any Telegram chat id (`telegrams`), including chats that sent /stop or never heard of the
 *   client, and the bot messages them.
 * - A rule lists any address in `sideEmails`, and the sender mails it.
 * - A recipient cannot stop the mails, and addresses that bounce or complain keep being mailed, which ruins the
 *   sender's reputation for every tenant.
 * - A rule (written before the API checked, or by a bug) names another tenant's users or watches another
 *   tenant's vehicle: delivery itself must refuse.
 */
describe('security: the official bot and sender are not usable against strangers', () => {
  const harness = useDeliverHarness({
    name: 'sec-channels',
    telegram: { botToken: '1:token', webhookSecret: 'hook' },
    env: { PUBLIC_API_URL: 'https://api.fleetwatch.test/api/v3/' },
  });
  const { telegram } = harness;
  let clientA: string;
  let clientB: string;
  let vehicle = 5000;

  beforeAll(async () => {
    clientA = (await createAgent({ name: 'Alpha Haulage' })).agentId;
    clientB = (await createAgent({ name: 'Bravo Freight' })).agentId;
  });

  const inbox = () => sentEmails(harness.emulators);
  const mailsTo = async (address: string) => (await inbox()).filter((email) => email.destination.to.includes(address));

  async function deliver(alertId: string): Promise<void> {
    await harness.enqueue(alertId);
    await harness.drainDeliveries({ rounds: 5 });
  }

  /** A vehicle of `clientId` and an alert of `rule` on it, delivered. */
  async function alertOn(rule: Awaited<ReturnType<typeof putRule>>, owner = rule.parentId) {
    const vehicleId = vehicle++;
    await registerVehicle({ vehicleId, name: `Truck ${vehicleId}`, parentId: owner }, { allowMove: true });
    const alert = await putAlert(rule, vehicleId);
    await deliver(alert.alertId);
    return getAlertItem(alert.alertId);
  }

  async function linkChat(userId: string, chatId: string): Promise<void> {
    await redeemLinkCode((await issueLinkCode(userId, Date.now())).code, { chatId, username: '' }, Date.now());
  }

  it('sends to a rule chat only while a user of the owner scope has it linked; /stop ends it', async () => {
    const owner = await putUser({ login: 'a-owner', email: 'a-owner@alpha.test', parentId: clientA });
    const stranger = await putUser({ login: 'b-user', email: 'b-user@bravo.test', parentId: clientB });
    await linkChat(owner.id, '1001');
    await linkChat(stranger.id, '2002');
    const rule = await putRule({
      parentId: clientA,
      userId: owner.id,
      toTelegram: true,
      telegrams: [
        { id: '1001', info: 'own' },
        { id: '2002', info: "other tenant's" },
        { id: '3003', info: 'never linked' },
      ],
    });
    const first = await alertOn(rule);
    expect(telegram.delivered().map((message) => message.chatId)).toEqual(['1001']);
    expect((first.deliveries as Record<string, { status: string }>)['telegram:3003']?.status).toBe('skipped');

    telegram.reset();
    await unlinkTelegramChat('1001'); // the chat sent /stop
    await alertOn(rule);
    expect(telegram.delivered()).toEqual([]);
  });

  it('mails a side address only after it confirmed its one-time link, which is sent once', async () => {
    const owner = await putUser({ login: 'a-side', email: 'a-side@alpha.test', parentId: clientA });
    const rule = await putRule({ parentId: clientA, userId: owner.id, enableSideEmails: true, sideEmails: ['victim@elsewhere.test'] });
    await alertOn(rule);
    await alertOn(rule);
    const mails = await mailsTo('victim@elsewhere.test');
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe('Confirm fleetwatch alerts to this address');
    const link = /https:\/\/api\.fleetwatch\.test\/api\/v3\/email\/confirm\/([A-Za-z0-9_.-]+)/.exec(mails[0]!.body.text ?? '');
    expect(link).not.toBeNull();

    const api = typedApiClient();
    const confirmation = (token: string) => ({ params: { path: { token } }, parseAs: 'text' as const });
    // opening the link changes nothing (mail scanners open links); the button posts
    expect((await api.GET('/api/v3/email/confirm/{token}', confirmation(link![1]!))).response.status).toBe(200);
    await clearSentEmails(harness.emulators);
    await alertOn(rule);
    expect(await mailsTo('victim@elsewhere.test')).toHaveLength(0);
    expect((await api.POST('/api/v3/email/confirm/{token}', confirmation(`${link![1]!.slice(0, -2)}xx`))).response.status).toBe(404);
    expect((await api.POST('/api/v3/email/confirm/{token}', confirmation(link![1]!))).response.status).toBe(200);
    await alertOn(rule);
    const alerts = await mailsTo('victim@elsewhere.test');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.subject).toContain('speeding');
  });

  it('puts RFC 8058 one-click unsubscribe headers on every alert e-mail, and honours the click', async () => {
    const owner = await putUser({ login: 'a-unsub', email: 'a-unsub@alpha.test', parentId: clientA });
    const colleague = await putUser({ login: 'a-colleague', email: 'a-colleague@alpha.test', parentId: clientA });
    const rule = await putRule({ parentId: clientA, userId: owner.id, toEmail: true, recipientIds: [owner.id, colleague.id] });
    await alertOn(rule);
    const [mail] = await mailsTo('a-unsub@alpha.test');
    const header = (name: string) => mail!.headers?.find((entry) => entry.name.toLowerCase() === name.toLowerCase())?.value;
    expect(header('List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    const url = /^<(https:\/\/api\.fleetwatch\.test\/api\/v3\/email\/unsubscribe\/[A-Za-z0-9_.-]+)>$/.exec(header('List-Unsubscribe') ?? '');
    expect(url).not.toBeNull();
    expect((await mailsTo('a-colleague@alpha.test'))[0]!.headers?.some((entry) => entry.name === 'List-Unsubscribe')).toBe(true);

    // raw: the form body mail clients post (RFC 8058), which the document does not declare
    const oneClick = await apiClient()({
      method: 'POST',
      path: new URL(url![1]!).pathname,
      body: 'List-Unsubscribe=One-Click',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(oneClick.status).toBe(200);
    await clearSentEmails(harness.emulators);
    await alertOn(rule);
    expect(await mailsTo('a-unsub@alpha.test')).toHaveLength(0);
    expect(await mailsTo('a-colleague@alpha.test')).toHaveLength(1);
  });

  it('suppresses an address after a permanent bounce or a complaint reported by SES', async () => {
    const owner = await putUser({ login: 'a-bounce', email: 'a-bounce@alpha.test', parentId: clientA });
    const other = await putUser({ login: 'a-complain', email: 'a-complain@alpha.test', parentId: clientA });
    const rule = await putRule({ parentId: clientA, userId: owner.id, toEmail: true, recipientIds: [owner.id, other.id] });
    // SES publishes through the configuration set's SNS event destination; the test sends what SNS would
    const sesEvent = (message: unknown): SNSEvent => ({
      Records: [
        {
          EventSource: 'aws:sns',
          EventVersion: '1.0',
          EventSubscriptionArn: 'arn:aws:sns:us-east-1:0:ses-events:1',
          Sns: { Message: JSON.stringify(message), MessageId: 'm1' } as SNSEvent['Records'][0]['Sns'],
        },
      ],
    });
    const context: Context = lambdaContext();
    await deliverFunction(
      sesEvent({ eventType: 'Bounce', bounce: { bounceType: 'Transient', bouncedRecipients: [{ emailAddress: 'a-complain@alpha.test' }] } }),
      context,
    );
    await deliverFunction(
      sesEvent({ eventType: 'Bounce', bounce: { bounceType: 'Permanent', bouncedRecipients: [{ emailAddress: 'A-Bounce@alpha.test' }] } }),
      context,
    );
    await alertOn(rule);
    expect(await mailsTo('a-bounce@alpha.test')).toHaveLength(0);
    expect(await mailsTo('a-complain@alpha.test')).toHaveLength(1);
    await deliverFunction(
      sesEvent({ eventType: 'Complaint', complaint: { complainedRecipients: [{ emailAddress: 'a-complain@alpha.test' }] } }),
      context,
    );
    await clearSentEmails(harness.emulators);
    const item = await alertOn(rule);
    expect(await inbox()).toHaveLength(0);
    expect((item.deliveries as Record<string, { error?: string }>)['email:a-complain@alpha.test']?.error).toBe('the address is suppressed');
  });

  it("never delivers another tenant's vehicle, an unregistered vehicle, or to another tenant's users", async () => {
    const owner = await putUser({ login: 'a-watch', email: 'a-watch@alpha.test', parentId: clientA });
    const foreignUser = await putUser({ login: 'b-watch', email: 'b-watch@bravo.test', parentId: clientB });
    const rule = await putRule({ parentId: clientA, userId: owner.id, toEmail: true, recipientIds: [owner.id, foreignUser.id], stored: true });
    const foreignVehicle = await alertOn(rule, clientB);
    expect(foreignVehicle.status).toBe('failed');
    expect(await inbox()).toHaveLength(0);
    const unregistered = await putAlert(rule, 999_999);
    // the fixture registers the vehicle of an alert; this one must be unknown to the directory
    await documentClient().send(new DeleteCommand({ TableName: resourcesConfig().DIRECTORY_TABLE, Key: directoryKeys.vehicle(999_999) }));
    await deliver(unregistered.alertId);
    expect((await getAlertItem(unregistered.alertId)).status).toBe('failed');
    expect(await inbox()).toHaveLength(0);

    await alertOn(rule);
    expect((await inbox()).map((email) => email.destination.to[0])).toEqual(['a-watch@alpha.test']);
  });
});

/** The API side: a rule may name only chats linked by users of the caller's scope. */
describe('security: rule chats in the API', () => {
  let emulators: Emulators;
  let api: TypedApi;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let token: string;

  beforeAll(async () => {
    emulators = await startTestEmulators('sec-channels-api');
    tenants = await seedTenants('secchan');
    api = typedApiClient();
    token = await login(api, tenants.root);
    for (const [tenant, chatId] of [
      [tenants.child, '700'],
      [tenants.sibling, '800'],
    ] as const) {
      await redeemLinkCode((await issueLinkCode(tenant.userId, Date.now())).code, { chatId, username: '' }, Date.now());
    }
  });
  afterAll(async () => emulators.stop());

  it('refuses unlinked and foreign chats alike, and accepts chats linked in scope', async () => {
    const create = async (telegrams: { id: string }[]) =>
      api.POST('/api/v3/notifications', {
        headers: session(token),
        body: ruleBody(tenants.root.agentId, { toTelegram: true, telegrams }) as JsonBody<'createNotificationRule'>,
      });
    const refused = await create([{ id: '800' }, { id: '900' }]);
    expect(refused.response.status).toBe(400);
    expect(refused.error?.issues).toEqual([
      { path: 'telegrams.0.id', message: 'no chat 800 linked by a user in your scope' },
      { path: 'telegrams.1.id', message: 'no chat 900 linked by a user in your scope' },
    ]);
    expect((await create([{ id: '700' }])).response.status).toBe(200);
    await unlinkTelegramChat('700');
    expect((await create([{ id: '700' }])).response.status).toBe(400);
  });
});
