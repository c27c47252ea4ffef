import { beforeAll, describe, expect, it } from 'vitest';
import { PurgeQueueCommand } from '@aws-sdk/client-sqs';
import type { SNSEvent } from 'aws-lambda';
import { sqsClient } from '../../shared/aws/clients';
import { runAdmin } from '../../infra/admin/commands';
import { handler as deliverFunction } from '../../functions/deliver/handler';
import type { EmailMessage } from '../../shared/channels/email/send-email';
import { DEFAULT_CONFIRMATIONS_PER_CLIENT_PER_DAY, DEFAULT_CONFIRMATION_FEEDBACK_STOP } from '../../shared/config';
import { channelSenders, type ChannelSenders } from '../../shared/delivery/senders';
import { runConfirmationWaitPass } from '../../shared/sweep/confirmation-wait-pass';
import { markSideEmailConfirmed } from '../../shared/store/email-consent/confirmation';
import { getRule } from '../../shared/store/rules-store';
import { clearSentEmails, sentEmails } from '../support/emulators';
import { useDeliverHarness } from '../support/deliver-harness';
import {
  TestClock,
  apiClient,
  lambdaContext,
  login,
  ruleBody,
  seedTenants,
  session,
  typedApiClient,
  type Api,
  type JsonBody,
  type TypedApi,
} from '../api/support';
import { putAlert } from '../delivery/support/fixtures';

const CONFIRM_SUBJECT = 'Confirm fleetwatch alerts to this address';

/**
 * Abuses of the one shared sender (one SES account for every tenant), replayed against DynamoDB Local, fauxqs and
 * aws-ses-v2-local through the real API and deliver handlers:
 * - a tenant names many side addresses, or rotates them, and each gets a confirmation e-mail;
 * - `+tag` aliases of one mailbox each get a confirmation;
 * - confirmations bounce or are marked as spam, and count against the account of every tenant;
 * - a side address unsubscribes from one rule, and another rule of the same client mails it again.
 */
describe('security: the shared sender cannot be used against strangers', () => {
  // the clock only moves forward: the budget test, which moves it a day on, comes last
  const clock = new TestClock();
  const harness = useDeliverHarness({
    name: 'shared-sender',
    env: { PUBLIC_API_URL: 'https://api.fleetwatch.test/api/v3/' },
    dependencies: { clock: clock.now },
  });
  let api: TypedApi;
  /** For the one request the typed client cannot express: the one-click form body, which the document does not declare. */
  let rawApi: Api;
  let vehicle = 9000;

  beforeAll(() => {
    api = typedApiClient({ now: clock.now });
    rawApi = apiClient({ now: clock.now });
  });

  const inbox = () => sentEmails(harness.emulators);
  const mailsTo = async (address: string) => (await inbox()).filter((email) => email.destination.to.includes(address));
  const confirmations = async () => (await inbox()).filter((email) => email.subject === CONFIRM_SUBJECT);
  const confirmToken = (text: string | undefined) =>
    /https:\/\/api\.fleetwatch\.test\/api\/v3\/email\/confirm\/([A-Za-z0-9_.-]+)/.exec(text ?? '')?.[1];
  /** Follows a link of an e-mail the way its page's button does. */
  const confirm = async (token: string) =>
    (await api.POST('/api/v3/email/confirm/{token}', { params: { path: { token } }, parseAs: 'text' })).response;

  /** Every message on the deliveries queue, handled by the deliver function at the test's time. */
  async function drain(senders?: ChannelSenders): Promise<void> {
    const handler = senders ? harness.createHandler({ clock: clock.now, senders }) : harness.handler;
    await harness.drainDeliveries({ rounds: 40, handler });
  }

  async function alertOf(ruleId: number): Promise<void> {
    const alert = await putAlert((await getRule(ruleId))!, vehicle++);
    await harness.enqueue(alert.alertId);
    await drain();
  }

  async function tenant(prefix: string) {
    const tenants = await seedTenants(prefix);
    return { clientId: tenants.root.agentId, token: await login(api, tenants.root), user: tenants.root };
  }

  const saveRule = async (owner: { clientId: string; token: string }, sideEmails: string[]) => {
    const { data, error, response } = await api.POST('/api/v3/notifications', {
      headers: session(owner.token),
      body: ruleBody(owner.clientId, { sideEmails }) as JsonBody<'createNotificationRule'>,
    });
    return { status: response.status, data, error };
  };
  // a replacement without a version: replaced unconditionally
  const replaceRule = async (owner: { token: string }, body: object) =>
    (await api.PUT('/api/v3/notifications', { headers: session(owner.token), body: body as JsonBody<'replaceNotificationRule'> })).response;
  const readRule = async (owner: { token: string }, id: number) =>
    (await api.GET('/api/v3/notifications/{id}', { headers: session(owner.token), params: { path: { id } } })).data!;

  const problemsOf = async (owner: { token: string }, id: number) => (await readRule(owner, id)).problems;

  it('refuses a save past the cap of unconfirmed side addresses per client, also when saves race', async () => {
    const owner = await tenant('cap');
    const first = Array.from({ length: 100 }, (_, index) => `cap${index}@cap.test`);
    const saved = await saveRule(owner, first);
    expect(saved.status).toBe(200);
    // rotating the rule's addresses does not free room
    const rotated = { ...ruleBody(owner.clientId, { sideEmails: ['rotated@cap.test'] }), id: saved.data!.id };
    const refused = await api.PUT('/api/v3/notifications', { headers: session(owner.token), body: rotated as JsonBody<'replaceNotificationRule'> });
    expect(refused.response.status).toBe(400);
    expect(refused.error?.issues?.map((issue) => issue.path)).toEqual(['sideEmails']);
    expect((await saveRule(owner, ['another@cap.test'])).status).toBe(400);
    // an address that confirms makes room for one
    await markSideEmailConfirmed(owner.clientId, first[0]!, clock.value);
    expect((await replaceRule(owner, rotated)).status).toBe(200);

    const racer = await tenant('capace');
    const batch = (name: string) => Array.from({ length: 60 }, (_, index) => `${name}${index}@race.test`);
    const statuses = await Promise.all([saveRule(racer, batch('left')), saveRule(racer, batch('right'))]);
    expect(statuses.map((response) => response.status).sort()).toEqual([200, 400]);
    // the confirmations these saves queued are not this test's subject
    await sqsClient().send(new PurgeQueueCommand({ QueueUrl: harness.emulators.queues.deliveries }));
  });

  it('asks a mailbox once, whatever +tags and case its addresses carry, and mails each address once it confirmed', async () => {
    const owner = await tenant('mailbox');
    const aliases = ['Dispatch@Mailbox.test', ...Array.from({ length: 10 }, (_, index) => `dispatch+tag${index}@mailbox.test`)];
    const saved = await saveRule(owner, aliases);
    expect(saved.status).toBe(200);
    await drain();
    await alertOf(saved.data!.id);
    const asked = (await confirmations()).filter((mail) => mail.destination.to[0]!.toLowerCase().startsWith('dispatch'));
    expect(asked).toHaveLength(1);

    expect((await confirm(confirmToken(asked[0]!.body.text)!)).status).toBe(200);
    await drain();
    await clearSentEmails(harness.emulators);
    await alertOf(saved.data!.id);
    for (const address of aliases) expect(await mailsTo(address), address).toHaveLength(1);
  });

  it("stops a client's confirmations after bounces and complaints on them, until an operator clears it", async () => {
    // there is no emulator for SES event destinations: the SNS events are built here from the message tags of
    // the confirmations as they were handed to SES
    const sent: EmailMessage[] = [];
    const recording: ChannelSenders = {
      ...channelSenders,
      email: async (message) => {
        sent.push(message);
        return channelSenders.email(message);
      },
    };
    const sesEvent = (message: EmailMessage, feedback: 'Bounce' | 'Complaint'): SNSEvent => {
      const recipients = [{ emailAddress: message.to }];
      const mail = { tags: Object.fromEntries((message.tags ?? []).map((tag) => [tag.name, [tag.value]])) };
      const event =
        feedback === 'Bounce'
          ? { eventType: 'Bounce', bounce: { bounceType: 'Permanent', bouncedRecipients: recipients }, mail }
          : { eventType: 'Complaint', complaint: { complainedRecipients: recipients }, mail };
      return {
        Records: [
          {
            EventSource: 'aws:sns',
            EventVersion: '1.0',
            EventSubscriptionArn: 'arn:aws:sns:us-east-1:0:ses-events:1',
            Sns: { Message: JSON.stringify(event), MessageId: `m-${message.to}` } as SNSEvent['Records'][0]['Sns'],
          },
        ],
      };
    };
    // one bounce on another client's confirmation stops nothing
    const bystander = await tenant('bystander');
    await saveRule(bystander, ['fine@bystander.test']);
    const owner = await tenant('bounce');
    const addresses = Array.from({ length: DEFAULT_CONFIRMATION_FEEDBACK_STOP }, (_, index) => `nobody${index}@bounce.test`);
    expect((await saveRule(owner, addresses)).status).toBe(200);
    await drain(recording);
    expect(sent).toHaveLength(addresses.length + 1);
    for (const [index, message] of sent.entries()) await deliverFunction(sesEvent(message, index % 2 ? 'Complaint' : 'Bounce'), lambdaContext());

    const listed = (await runAdmin(['confirmation-stops'])).stopped as { clientId: string }[];
    expect(listed.map((stop) => stop.clientId)).toEqual([owner.clientId]);

    await clearSentEmails(harness.emulators);
    const later = await saveRule(owner, ['new@bounce.test']);
    await drain();
    expect(await confirmations()).toHaveLength(0);
    expect((await problemsOf(owner, later.data!.id))?.[0]).toEqual({
      path: 'sideEmails.0',
      message:
        "new@bounce.test: confirmation stopped, too many of this client's confirmation e-mails bounced or were marked as spam; an operator must clear it",
    });
    expect(await runAdmin(['confirmation-stops', '--clear', owner.clientId])).toEqual({ clientId: owner.clientId, cleared: true });
    await alertOf(later.data!.id);
    expect((await confirmations()).map((mail) => mail.destination.to[0])).toEqual(['new@bounce.test']);
  });

  it('unsubscribing a side address through one rule stops every rule of the client, until the address subscribes again', async () => {
    const owner = await tenant('unsub');
    const address = 'driver@outside.test';
    const first = await saveRule(owner, [address]);
    await drain();
    expect((await confirm(confirmToken((await mailsTo(address))[0]?.body.text)!)).status).toBe(200);
    await alertOf(first.data!.id);
    const [alertMail] = (await mailsTo(address)).filter((mail) => mail.subject !== CONFIRM_SUBJECT);
    const link = /^<https:\/\/api\.fleetwatch\.test(\/api\/v3\/email\/unsubscribe\/([A-Za-z0-9_.-]+))>$/.exec(
      alertMail!.headers?.find((header) => header.name === 'List-Unsubscribe')?.value ?? '',
    );
    // raw: the form body mail clients post (RFC 8058), which the document does not declare
    const oneClick = await rawApi({
      method: 'POST',
      path: link![1]!,
      body: 'List-Unsubscribe=One-Click',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(oneClick.status).toBe(200);

    // another rule of the same client, with the address and an alias of its mailbox: no confirmation, no alert
    await clearSentEmails(harness.emulators);
    const second = await saveRule(owner, [address, 'Driver+night@outside.test']);
    expect(second.status).toBe(200);
    await drain();
    await alertOf(second.data!.id);
    await alertOf(first.data!.id);
    expect(await inbox()).toHaveLength(0);
    expect((await problemsOf(owner, second.data!.id))?.map((problem) => problem.path)).toEqual(['sideEmails.0', 'sideEmails.1']);

    // the unsubscribe page offers to subscribe again, with the same token; that brings the address back
    const page = await api.GET('/api/v3/email/unsubscribe/{token}', { params: { path: { token: link![2]! } }, parseAs: 'text' });
    expect(String(page.data)).toContain(`action="../resubscribe/${link![2]}"`);
    const resubscribe = async (token: string) =>
      (await api.POST('/api/v3/email/resubscribe/{token}', { params: { path: { token } }, parseAs: 'text' })).response;
    expect((await resubscribe(`${link![2]!.slice(0, -2)}xx`)).status).toBe(404);
    expect((await resubscribe(link![2]!)).status).toBe(200);
    await alertOf(second.data!.id);
    expect(await mailsTo(address)).toHaveLength(1);
    expect(await mailsTo('Driver+night@outside.test')).toHaveLength(1);
    expect(await confirmations()).toHaveLength(0);
  });

  it("sends at most the client's daily budget of confirmations; the rest wait, shown on the rule, and go out the next day", async () => {
    clock.value = Date.parse('2026-03-02T15:00:00.000Z');
    const owner = await tenant('budget');
    const addresses = Array.from({ length: DEFAULT_CONFIRMATIONS_PER_CLIENT_PER_DAY + 10 }, (_, index) => `person${index}@budget${index}.test`);
    const saved = await saveRule(owner, addresses);
    expect(saved.status).toBe(200);
    await drain();
    const firstDay = await confirmations();
    expect(firstDay).toHaveLength(DEFAULT_CONFIRMATIONS_PER_CLIENT_PER_DAY);

    const waiting = addresses.filter((address) => !firstDay.some((mail) => mail.destination.to.includes(address)));
    expect(waiting).toHaveLength(10);
    expect(await problemsOf(owner, saved.data!.id)).toEqual(
      waiting.map((address) => ({
        path: `sideEmails.${addresses.indexOf(address)}`,
        message: `${address}: confirmation waits for the client's daily budget, resumes 2026-03-03T00:00:00.000Z`,
      })),
    );
    // saving the rule again the same day sends none of them
    const { problems: _problems, ...body } = await readRule(owner, saved.data!.id);
    expect((await api.PUT('/api/v3/notifications', { headers: session(owner.token), body })).response.status).toBe(200);
    await drain();
    expect(await confirmations()).toHaveLength(DEFAULT_CONFIRMATIONS_PER_CLIENT_PER_DAY);

    // the next day the sweep hands them back, and each goes out once
    clock.value = Date.parse('2026-03-03T00:01:00.000Z');
    expect(await runConfirmationWaitPass(clock.value)).toBeGreaterThanOrEqual(waiting.length);
    expect(await runConfirmationWaitPass(clock.value)).toBe(0);
    await drain();
    const all = (await confirmations()).filter((mail) => addresses.includes(mail.destination.to[0]!));
    expect(all).toHaveLength(addresses.length);
    for (const address of addresses)
      expect(
        all.filter((mail) => mail.destination.to.includes(address)),
        address,
      ).toHaveLength(1);
    // a new session: the one of yesterday expired overnight
    expect(await problemsOf({ token: await login(api, owner.user) }, saved.data!.id)).toBeUndefined();
  });
});
