import { beforeAll, describe, expect, it } from 'vitest';
import { channelSenders, type ChannelSenders } from '../../shared/delivery/senders';
import { runOutboxPass } from '../../shared/sweep/outbox-pass';
import { getRule } from '../../shared/store/rules-store';
import { clearSentEmails, sentEmails } from '../support/emulators';
import { useDeliverHarness } from '../support/deliver-harness';
import { TestClock, login, ruleBody, seedTenants, session, typedApiClient, type JsonBody, type TypedApi } from '../api/support';
import { getAlertItem, putAlert } from './support/fixtures';

const HOUR = 3_600_000;

/**
 * Side addresses are asked when the rule is saved, and an alert to an address that has not confirmed waits for
 * it (up to 24 hours) instead of being lost; released, it is e-mailed once.
 */
describe('side addresses: confirmation on save, alerts held until confirmed', () => {
  const clock = new TestClock();
  const harness = useDeliverHarness({
    name: 'side-hold',
    env: { PUBLIC_API_URL: 'https://api.fleetwatch.test/api/v3/' },
    dependencies: { clock: clock.now },
  });
  let api: TypedApi;
  let token: string;
  let clientId: string;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;

  beforeAll(async () => {
    api = typedApiClient({ now: clock.now });
    tenants = await seedTenants('sidehold');
    clientId = tenants.root.agentId;
  });

  const mailsTo = async (address: string) => (await sentEmails(harness.emulators)).filter((email) => email.destination.to.includes(address));

  /** Every message on the deliveries queue, handled by the deliver function at the test's time. */
  async function drain(senders?: ChannelSenders): Promise<void> {
    const handler = senders ? harness.createHandler({ clock: clock.now, senders }) : harness.handler;
    await harness.drainDeliveries({ rounds: 10, handler });
  }
  const enqueue = (alertId: string) => harness.enqueue(alertId);

  async function saveRule(...addresses: string[]): Promise<number> {
    token = await login(api, tenants.root);
    const created = await api.POST('/api/v3/notifications', {
      headers: session(token),
      body: ruleBody(clientId, { sideEmails: addresses }) as JsonBody<'createNotificationRule'>,
    });
    expect(created.response.status).toBe(200);
    return created.data!.id;
  }

  /** An alert of the rule raised at the test's time, delivered a minute later. */
  async function alertOf(ruleId: number) {
    const alert = await putAlert((await getRule(ruleId))!, 101);
    clock.value = Date.parse(alert.createdAt) + 60_000;
    await enqueue(alert.alertId);
    await drain();
    return alert;
  }

  const linkToken = (text: string | undefined) => /https:\/\/api\.fleetwatch\.test\/api\/v3\/email\/confirm\/([A-Za-z0-9_.-]+)/.exec(text ?? '')?.[1];
  /** Follows a confirmation link the way the page's button does. */
  const confirm = async (confirmToken: string) =>
    (await api.POST('/api/v3/email/confirm/{token}', { params: { path: { token: confirmToken } }, parseAs: 'text' })).response;

  it('sends exactly one confirmation when the rule is saved, and none when it is saved again', async () => {
    const address = 'asked@outside.test';
    const id = await saveRule(address);
    await drain();
    const asked = await mailsTo(address);
    expect(asked.map((mail) => mail.subject)).toEqual(['Confirm fleetwatch alerts to this address']);
    expect(linkToken(asked[0]!.body.text)).toBeDefined();

    const saved = (await api.GET('/api/v3/notifications/{id}', { headers: session(token), params: { path: { id } } })).data!;
    const { problems: _problems, ...record } = saved;
    const replaced = await api.PUT('/api/v3/notifications', { headers: session(token), body: { ...record, name: 'Renamed' } });
    expect(replaced.response.status).toBe(200);
    await drain();
    expect(await mailsTo(address)).toHaveLength(1);
  });

  it('retries a confirmation SES could not take, instead of losing it', async () => {
    // SES throttling cannot be provoked in aws-ses-v2-local: the first send answers a passing failure, the
    // next ones go to the emulator
    let refusals = 1;
    const throttled: ChannelSenders = {
      ...channelSenders,
      email: async (message) =>
        refusals-- > 0 ? { status: 'retry', error: 'Throttling: Maximum sending rate exceeded' } : channelSenders.email(message),
    };
    const address = 'throttled@outside.test';
    await saveRule(address);
    await drain(throttled);
    const asked = await mailsTo(address);
    expect(asked).toHaveLength(1);
    expect(linkToken(asked[0]!.body.text)).toBeDefined();
  });

  it('holds an alert until each address confirms, then e-mails it once to each, even when its request comes again', async () => {
    const [first, second] = ['held@outside.test', 'later@outside.test'];
    const ruleId = await saveRule(first, second);
    await drain();
    const firstLink = linkToken((await mailsTo(first))[0]?.body.text);
    const secondLink = linkToken((await mailsTo(second))[0]?.body.text);
    await clearSentEmails(harness.emulators);
    const statusOf = async (alertId: string, address: string) =>
      ((await getAlertItem(alertId)).deliveries as Record<string, { status: string }>)[`email:${address}`]?.status;

    const alert = await alertOf(ruleId);
    const held = await getAlertItem(alert.alertId);
    expect(held.status).toBe('pending');
    expect(String(held.outbox)).toMatch(/^held#/);
    expect([await statusOf(alert.alertId, first), await statusOf(alert.alertId, second)]).toEqual(['held', 'held']);
    // a redelivered request while held sends nothing
    await enqueue(alert.alertId);
    await drain();
    expect(await sentEmails(harness.emulators)).toHaveLength(0);

    // the first address confirms: its e-mail goes out, the second still waits
    expect((await confirm(firstLink!)).status).toBe(200);
    await drain();
    expect((await mailsTo(first)).map((mail) => mail.subject)).toEqual([expect.stringContaining('speeding')]);
    expect(await statusOf(alert.alertId, first)).toBe('sent');
    expect(await statusOf(alert.alertId, second)).toBe('held');
    expect((await getAlertItem(alert.alertId)).status).toBe('pending');

    // the request redelivered, and the link posted again: the first address is not e-mailed again
    await enqueue(alert.alertId);
    expect((await confirm(firstLink!)).status).toBe(200);
    await drain();
    expect(await mailsTo(first)).toHaveLength(1);
    expect(await mailsTo(second)).toHaveLength(0);

    expect((await confirm(secondLink!)).status).toBe(200);
    await drain();
    await enqueue(alert.alertId);
    await drain();
    expect(await mailsTo(first)).toHaveLength(1);
    expect(await mailsTo(second)).toHaveLength(1);
    const delivered = await getAlertItem(alert.alertId);
    expect(delivered.status).toBe('delivered');
    expect(delivered.outbox).toBeUndefined();
  });

  it('drops an alert still unconfirmed 24 hours after it was raised, recording why', async () => {
    const address = 'silent@outside.test';
    const ruleId = await saveRule(address);
    await drain();
    const alert = await alertOf(ruleId);
    expect((await getAlertItem(alert.alertId)).status).toBe('pending');

    // before the hold runs out the sweep leaves it alone; after, it hands it back to be settled
    expect((await runOutboxPass(Date.parse(alert.createdAt) + 23 * HOUR)).reenqueued).not.toContain(alert.alertId);
    clock.value = Date.parse(alert.createdAt) + 24 * HOUR + 60_000;
    expect((await runOutboxPass(clock.value)).reenqueued).toContain(alert.alertId);
    await drain();

    const item = await getAlertItem(alert.alertId);
    expect(item.status).toBe('delivered');
    expect(item.outbox).toBeUndefined();
    expect((item.deliveries as Record<string, { status: string; error?: string }>)[`email:${address}`]).toMatchObject({
      status: 'skipped',
      error: 'the address did not confirm within 24 hours of the alert',
    });
    expect((await mailsTo(address)).filter((mail) => mail.subject.includes('speeding'))).toHaveLength(0);
  });
});
