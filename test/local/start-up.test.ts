import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { documentClient, sqsClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { startLocalRuntime, type LocalRuntime } from '../../infra/local/runtime';
import { seedDemoData, seedDemoWebhook } from '../../infra/local/seed';
import { DEMO, OPEN_ALERTS_QUERY } from '../../infra/local/demo';
import { acknowledgeEscalated, DISPATCHER_COMMENT } from '../../infra/local/demo-dispatcher';
import { runAlertDuePass } from '../../shared/sweep/alert-due-pass';
import { listWebhooks } from '../../shared/store/webhooks-store';
import { demoFleet, sendTerminalMessages, simulatedSpan } from '../../infra/local/simulator';
import { sentEmails, sharedDynamoEndpoint, type SentEmail } from '../support/emulators';
import { getAlertItem, putAlert, putRule, putUser } from '../delivery/support/fixtures';

/**
 * `npm start` in-process, with the real evaluate, deliver, sweep and API handlers on the emulators: a hand-fed
 * stretch of the simulated speeder's trace must end as one speeding e-mail in the SES inbox.
 */
describe('local runtime end to end', () => {
  let runtime: LocalRuntime;
  const lines: string[] = [];
  const fleet = demoFleet(3);
  const speeder = fleet[0]!;

  // no Telegram emulator exists: the runtime's own loopback Bot API fake, as `npm start` runs it without a token
  beforeAll(async () => {
    runtime = await startLocalRuntime({
      dynamoEndpoint: sharedDynamoEndpoint(),
      prefix: `t-local-e2e-${process.pid}`,
      fleet,
      simulator: false,
      telegramFake: true,
      log: (line) => lines.push(line),
    });
  });
  afterAll(async () => runtime?.stop());

  async function waitFor<T>(read: () => Promise<T | undefined>, attempts = 150): Promise<T | undefined> {
    for (let attempt = 0; attempt < attempts; attempt++) {
      const value = await read();
      if (value !== undefined) return value;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return undefined;
  }

  it('seeds the demo client, user, vehicles and rules, idempotently', async () => {
    expect(runtime.demo.rules.map((rule) => rule.name)).toEqual([
      'Speeding over 90 km/h',
      'Left the depot yard',
      'Idling over 3 minutes outside the depot yard',
      'Parked with the engine off over 1 minute',
      'Moved with the ignition off',
      'Driving 15 minutes without a 3-minute rest',
      'Device alarms',
    ]);
    const again = await seedDemoData(fleet);
    expect(again.created).toEqual([]);
    expect(again.agentId).toBe(runtime.demo.agentId);
    expect(again.rules).toEqual(runtime.demo.rules);
    const { Item } = await documentClient().send(
      new GetCommand({ TableName: resourcesConfig().DIRECTORY_TABLE, Key: { pk: `VEHICLE#${speeder.vehicleId}`, sk: 'PROFILE' } }),
    );
    expect(Item).toMatchObject({ name: speeder.name, parentId: runtime.demo.agentId });
  });

  it('turns a speeding stretch of the simulated trace into one speeding e-mail to the side address', async () => {
    // 40 s of the demo fleet ending now: the speeder is above 90 km/h from about the 7th second
    const start = Math.floor(Date.now() / 1000) * 1000 - 40_000;
    await sendTerminalMessages(runtime.emulators.queues.input, simulatedSpan(fleet, start, 0, 40));

    const speedingMail = (emails: SentEmail[]) =>
      emails.filter((email) => email.destination.to.includes('ops@fleetwatch.local') && email.subject.includes(speeder.name));
    const found = await waitFor(async () => {
      const emails = speedingMail(await sentEmails(runtime.emulators));
      return emails.length > 0 ? emails : undefined;
    });
    expect(found, 'no speeding e-mail reached the SES inbox').toBeDefined();
    const [email] = found!;
    expect(email!.from).toBe('alerts@fleetwatch.local');
    expect(email!.subject.toLowerCase()).toContain('speeding');
    expect(email!.body.text).toContain('90 km/h');
    expect(email!.body.html).toContain(speeder.name);

    // the console shows the alert and its delivery; the episode raised exactly one e-mail
    const delivered = await waitFor(async () => lines.find((line) => line.includes('DELIVERED') && line.includes('speeding')));
    expect(delivered).toContain('email:ops@fleetwatch.local sent');
    expect(lines.filter((line) => line.includes('ALERT') && line.includes('speeding'))).toHaveLength(1);
    expect(speedingMail(await sentEmails(runtime.emulators))).toHaveLength(1);
  });

  it("prints the first alert's page, and the e-mail links lead to this runtime's API wherever its port is", async () => {
    const pageLine = lines.find((line) => line.includes('PAGE'));
    const url = /PAGE\s+(http\S+)/.exec(pageLine ?? '')?.[1];
    expect(url, lines.join('\n')).toMatch(new RegExp(`^${runtime.apiUrl}/alerts/acknowledge/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`));
    const page = await fetch(url!);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(speeder.name);
    // signed for the demo user: every action is offered
    expect(html).toContain('value="close"');
    expect(html).toContain('value="muteVehicle"');

    const [email] = (await sentEmails(runtime.emulators)).filter((each) => each.destination.to.includes('ops@fleetwatch.local'));
    const link = /Acknowledge: (http\S+)/.exec(email!.body.text ?? '')?.[1];
    expect(link?.startsWith(`${runtime.apiUrl}/alerts/acknowledge/`)).toBe(true);
    expect((await fetch(link!)).status).toBe(200);
  });

  it("escalates the speeding alert nobody acknowledged up its two levels, the duty mailbox then the rota's on-call user, once each; the demo dispatcher then acknowledges it", async () => {
    const session = await demoSession(runtime.apiUrl);
    const api = (path: string, body: unknown) => session(path, 'POST', body);
    // the speeding alert of the test above, open (the printed acknowledge command's query, for more than one)
    const open = (await (await api('/notifications/history', { ...OPEN_ALERTS_QUERY, limit: 100 })).json()) as {
      items: Array<{ alertId: string; event: { kind: string } }>;
    };
    const speeding = open.items.filter((item) => item.event.kind === 'speeding');
    expect(speeding).toHaveLength(1);
    const { alertId } = speeding[0]!;

    // the sweep a minute later (the runtime's own may have come first): one e-mail to the duty mailbox
    await runAlertDuePass(Date.now() + DEMO.escalateAfterMinutes * 60_000 + 1_000);
    const dutyMail = async () => (await sentEmails(runtime.emulators)).filter((email) => email.destination.to.includes(DEMO.dutyEmail));
    const escalation = await waitFor(async () => ((await dutyMail()).length > 0 ? await dutyMail() : undefined));
    expect(escalation?.map((email) => email.subject)).toEqual([`[WARNING] ${speeder.name}: not acknowledged in 1 min: Speeding over 90 km/h`]);
    // the second level a minute later: whoever of the duty rota is on call now, the demo user (its first participant)
    await runAlertDuePass(Date.now() + DEMO.rotaAfterMinutes * 60_000 + 1_000);
    const onCallMail = async () =>
      (await sentEmails(runtime.emulators)).filter(
        (email) => email.destination.to.includes(DEMO.email) && email.subject.includes('not acknowledged'),
      );
    const second = await waitFor(async () => ((await onCallMail()).length > 0 ? await onCallMail() : undefined));
    expect(second?.map((email) => email.subject)).toEqual([`[WARNING] ${speeder.name}: not acknowledged in 2 min: Speeding over 90 km/h`]);
    await runAlertDuePass(Date.now() + (DEMO.rotaAfterMinutes + 1) * 60_000);

    // what `npm start`'s demo dispatcher does once an alert was escalated
    expect(await acknowledgeEscalated(runtime.apiUrl)).toBe(alertId);
    const history = (await (await api('/notifications/history', { ...OPEN_ALERTS_QUERY, state: 'acknowledged' })).json()) as {
      items: Array<{
        alertId: string;
        state: string;
        escalatedAt?: string;
        escalations?: Array<{ level: number; onCall?: unknown }>;
        acknowledgement?: { by: string; via: string; comment?: string };
      }>;
    };
    expect(history.items).toEqual([
      expect.objectContaining({
        alertId,
        state: 'acknowledged',
        escalatedAt: expect.any(String),
        acknowledgement: expect.objectContaining({ by: 'demo', via: 'api', comment: DISPATCHER_COMMENT }),
      }),
    ]);
    expect(history.items[0]!.escalations?.map((step) => step.level)).toEqual([0, 1]);
    expect(history.items[0]!.escalations?.[1]?.onCall).toEqual([
      expect.objectContaining({ rotaId: runtime.demo.rotaId, userId: runtime.demo.userId }),
    ]);
    expect(await dutyMail()).toHaveLength(1);
    expect(await onCallMail()).toHaveLength(1);
  });

  it('posts the demo alerts, signed, to the demo webhook receiver, whose page and console line show them', async () => {
    // the speeding stretch of the test above raised an alert of a demo rule, which has toClient
    const line = await waitFor(async () => lines.find((entry) => entry.includes('WEBHOOK') && entry.includes('speeding')));
    expect(line).toContain(speeder.name);
    expect(lines.some((entry) => entry.includes(`Demo webhook receiver: ${runtime.webhookReceiverUrl}`))).toBe(true);
    const received = (await (await fetch(`${runtime.webhookReceiverUrl}received.json`)).json()) as Array<{
      payload: { event: { kind: string }; vehicle: { name: string } };
    }>;
    expect(received.filter((entry) => entry.payload.event.kind === 'speeding').map((entry) => entry.payload.vehicle.name)).toEqual([speeder.name]);
    expect(await (await fetch(runtime.webhookReceiverUrl)).text()).toContain('Alerts received by the demo webhook');
    // seeding again keeps the one demo endpoint
    const endpoint = await seedDemoWebhook(runtime.demo.agentId, runtime.webhookReceiverUrl);
    expect((await listWebhooks(runtime.demo.agentId)).map((entry) => [entry.id, entry.url])).toEqual([[endpoint.id, runtime.webhookReceiverUrl]]);
  });

  it('shows a malformed message on the console as rejected to the DLQ, with its reason', async () => {
    await sqsClient().send(
      new SendMessageCommand({ QueueUrl: runtime.emulators.queues.input, MessageGroupId: '1002', MessageBody: '{"vehicleId":1002,"speed":"fast"}' }),
    );
    const rejected = await waitFor(async () => lines.find((line) => line.includes('DLQ') && line.includes('input message')));
    expect(rejected).toMatch(/deviceTime/);
  });

  it('serves the API through the local HTTP API: demo login, then the demo rules', async () => {
    const login = await fetch(`${runtime.apiUrl}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'demo', password: 'demo' }),
    });
    expect(login.status).toBe(200);
    const { AuthId } = (await login.json()) as { AuthId: string };
    expect(AuthId).toEqual(expect.any(String));

    const find = await fetch(`${runtime.apiUrl}/notifications/find`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-auth': AuthId },
      body: JSON.stringify({ parentId: runtime.demo.agentId }),
    });
    expect(find.status).toBe(200);
    const rules = (await find.json()) as Array<{ id: number; name: string; active: boolean }>;
    expect(rules.map((rule) => rule.name).sort()).toEqual([
      'Device alarms',
      'Driving 15 minutes without a 3-minute rest',
      'Idling over 3 minutes outside the depot yard',
      'Left the depot yard',
      'Moved with the ignition off',
      'Parked with the engine off over 1 minute',
      'Speeding over 90 km/h',
    ]);
    expect(rules.every((rule) => rule.active)).toBe(true);
  });

  it('serves the Telegram webhook with the bot secret from the local Secrets Manager stand-in', async () => {
    const update = JSON.stringify({ update_id: 1 });
    const wrong = await fetch(runtime.telegramWebhookUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'not-the-secret' },
      body: update,
    });
    expect(wrong.status).toBe(401);
    const right = await fetch(runtime.telegramWebhookUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': runtime.telegramFake!.fake.webhook!.secretToken },
      body: update,
    });
    expect(right.status).toBe(200);
    expect(runtime.telegramFake!.fake.calls.map((call) => call.method)).toContain('getMe');
  });

  it('links a chat from the Telegram fake page: a link code from the API, "/start <code>" sent as the user, the reply on the page', async () => {
    const { url, fake } = runtime.telegramFake!;
    expect(new URL(url).hostname).toBe('127.0.0.1');
    expect(process.env.TELEGRAM_API_ROOT).toBe(url);
    const login = await fetch(`${runtime.apiUrl}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'demo', password: 'demo' }),
    });
    const { AuthId } = (await login.json()) as { AuthId: string };
    const link = await fetch(`${runtime.apiUrl}/telegram/link`, { method: 'POST', headers: { 'x-auth': AuthId } });
    expect(link.status).toBe(200);
    const { code } = (await link.json()) as { code: string };

    // the page's form, posted as the browser would
    const sent = await fetch(`${url}/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url },
      body: new URLSearchParams({ chatId: '777001', text: `/start ${code}` }).toString(),
      redirect: 'manual',
    });
    expect(sent.status).toBe(303);
    expect(fake.userMessages).toEqual([{ chatId: '777001', text: `/start ${code}`, webhookStatus: 200 }]);
    const reply = fake.delivered().find((message) => message.chatId === '777001');
    expect(reply?.text).toContain('demo');
    expect(reply?.text).not.toMatch(/invalid/i);

    // the page lists both, escaped; a post from another site is refused
    const page = await (await fetch(url)).text();
    expect(page).toContain(`/start ${code}`);
    expect(page).toContain('777001');
    const forged = await fetch(`${url}/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams({ chatId: '1', text: '/stop' }).toString(),
      redirect: 'manual',
    });
    expect(forged.status).toBe(403);
  });

  it("records TEXT_DELIVERED on the alert of an SMS sent in npm start, through the deliver function's SNS entry; the page marks it expired", async () => {
    const number = '+994501230002';
    const user = await putUser({
      parentId: runtime.demo.agentId,
      login: 'sms-local-receipt',
      email: 'sms-receipt@fleetwatch.local',
      phoneNumber: number,
      phoneVerifiedAt: new Date().toISOString(),
    });
    const rule = await putRule({ parentId: runtime.demo.agentId, userId: user.id, recipientIds: [user.id], toSms: true });
    const alert = await putAlert(rule, 9901, { kind: 'panic', values: {} }, { severity: 'critical' });
    await sqsClient().send(
      new SendMessageCommand({ QueueUrl: runtime.emulators.queues.deliveries, MessageBody: JSON.stringify({ alertId: alert.alertId }) }),
    );

    const smsOf = async () =>
      ((await getAlertItem(alert.alertId)).deliveries as Record<string, { status: string; sms?: Record<string, unknown> }>)[`sms:${number}`];
    const delivered = await waitFor(async () => ((await smsOf())?.sms?.outcome === 'delivered' ? await smsOf() : undefined));
    const { fake, url } = runtime.smsFake;
    const sent = fake.sent.filter((sms) => sms.context.alertId === alert.alertId);
    expect(sent).toHaveLength(1);
    expect(delivered).toMatchObject({ status: 'sent', sms: { outcome: 'delivered', messageId: sent[0]!.messageId } });

    // a carrier's later report, from the fake's page
    const page = await (await fetch(url)).text();
    expect(page).toContain(`name="messageId" value="${sent[0]!.messageId}"`);
    const marked = await fetch(`${url}/event`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ messageId: sent[0]!.messageId, eventType: 'TEXT_TTL_EXPIRED' }).toString(),
      redirect: 'manual',
    });
    expect(marked.status).toBe(303);
    const expired = await waitFor(async () => ((await smsOf())?.sms?.outcome === 'expired' ? await smsOf() : undefined));
    expect(expired).toMatchObject({ status: 'failed', error: expect.stringContaining('expired unsent') });
  });

  it("confirms the demo user's number with the code typed as a reply on the SMS fake's page, as the API's confirm route would", async () => {
    const number = '+994501230001';
    const { fake, url } = runtime.smsFake;
    const api = await demoSession(runtime.apiUrl);
    const userPath = `/users/${runtime.demo.userId}`;
    const user = (await (await api(userPath, 'GET')).json()) as Record<string, unknown>;
    const saved = await api('/users', 'PUT', {
      id: user.id,
      parentId: user.parentId,
      firstName: user.firstName,
      lastName: user.lastName,
      language: user.language,
      phoneNumber: number,
    });
    expect(saved.status).toBe(200);
    expect((await api(`${userPath}/phone/verification`, 'POST')).status).toBe(200);
    const code = /\d{6}/.exec(fake.sent.filter((sms) => sms.to === number).at(-1)?.body ?? '')?.[0];
    expect(code).toBeDefined();

    const reply = (text: string) =>
      fetch(`${url}/reply`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ from: number, text }).toString(),
        redirect: 'manual',
      });
    const wrong = code === '000000' ? '000001' : '000000';
    expect((await reply(wrong)).status).toBe(303);
    expect((await api(userPath, 'GET').then((response) => response.json())) as Record<string, unknown>).toMatchObject({ phoneVerified: false });
    expect((await reply(code!)).status).toBe(303);
    expect(fake.replies.slice(-2).map((each) => each.outcome)).toEqual(['wrong code for demo; 4 tries left', "verified: demo's number is confirmed"]);
    expect((await api(userPath, 'GET').then((response) => response.json())) as Record<string, unknown>).toMatchObject({
      phoneNumber: number,
      phoneVerified: true,
    });
    // the page shows each reply's outcome
    expect(await (await fetch(url)).text()).toContain('verified: demo&#39;s number is confirmed');
  });
});

/** The demo user's session on the local API, its requests paced at least a second apart as one session's must be. */
async function demoSession(apiUrl: string): Promise<(path: string, method: string, body?: unknown) => Promise<Response>> {
  const login = await fetch(`${apiUrl}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ login: DEMO.login, password: DEMO.password }),
  });
  const { AuthId } = (await login.json()) as { AuthId: string };
  let last = 0;
  return async (path, method, body) => {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, last + 1_100 - Date.now())));
    last = Date.now();
    return fetch(`${apiUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-auth': AuthId },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  };
}
