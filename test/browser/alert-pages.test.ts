import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { Browser, Page, Response } from 'playwright-core';
import { sqsClient } from '../../shared/aws/clients';
import { createApiHandler } from '../../shared/api/app';
import { createUser } from '../../shared/store/directory-store';
import { getAlert } from '../../shared/store/alerts/alert-lifecycle';
import { listSilences } from '../../shared/store/silences-store';
import { unsubscribeLink } from '../../shared/store/email-consent/unsubscribe';
import { runAlertDuePass } from '../../shared/sweep/alert-due-pass';
import { handler as evaluate } from '../../functions/evaluate/handler';
import { handler as deliver } from '../../functions/deliver/handler';
import { startHttpServer, type HttpHandler, type RunningHttpServer } from '../../infra/local/http-adapter';
import { apiUrlOf } from '../../infra/stack-facts';
import { useDeliverHarness } from '../support/deliver-harness';
import { sentEmails, type SentEmail } from '../support/emulators';
import { pollUntilEmpty } from '../support/poll-until-empty';
import { confirmSideEmails, registerFleet } from '../support/owned-fleet';
import { launchBrowser, phoneLayout, phonePage, PHONE_WIDTH } from '../support/browser';
import { putRule, storedRule, terminalMessage, T0 } from '../pipeline/support';

/**
 * The pages people open from alert e-mails, in a real browser (Debian's chromium) on a phone's width: an alert raised
 * by the real pipeline (terminal messages → evaluate → deliver → the SES emulator's inbox), its e-mail's links opened
 * as a person would, over HTTP from the local HTTP adapter in front of the real API handler, whose clock the test
 * moves.
 */
const PARENT = '3a1f6c0e-8b2d-4e5f-9a7c-1d2e3f4a5b6c';
const VEHICLE = 4343;
const DUTY = 'duty@browser.example';
const DAY_MS = 86_400_000;

describe('the pages of an alert e-mail, in a browser', () => {
  let browser: Browser;
  // first: without chromium the tests fail at once, saying what to install
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  const harness = useDeliverHarness({ name: 'browser-pages' });
  let server: RunningHttpServer;
  let skew = 0;
  let email: SentEmail;
  let login = '';
  const userEmail = 'night-lead@browser.example';

  const deliverAll = () => harness.drainDeliveries({ handler: deliver, rounds: 20, mustEmpty: true });

  /** A speeding stretch of the vehicle, 40 s long, ending now, through the input queue. */
  async function speed(): Promise<void> {
    const offset = (Date.now() - 60_000 - T0) / 1000;
    const trace: [number, number][] = [
      [0, 60],
      [10, 100],
      [20, 112],
      [30, 115],
    ];
    await sqsClient().send(
      new SendMessageBatchCommand({
        QueueUrl: harness.emulators.queues.input,
        Entries: trace.map(([second, kmh], index) => ({
          Id: String(index),
          MessageGroupId: String(VEHICLE),
          MessageBody: JSON.stringify(terminalMessage(VEHICLE, offset + second, kmh)),
        })),
      }),
    );
    await pollUntilEmpty(harness.emulators.queues.input, evaluate, { functionName: 'evaluate', rounds: 20, mustEmpty: true });
    await deliverAll();
  }

  const linkOf = (label: string) => new RegExp(`${label}: (http\\S+)`).exec(email.body.text ?? '')?.[1];

  /** Opens a page the way a click in the e-mail does, checking what a phone shows of it. */
  async function open(page: Page, url: string): Promise<Response> {
    const response = await page.goto(url);
    expect(response).not.toBeNull();
    return response!;
  }

  /** Presses a button of the page and waits for the page its form answers. */
  async function press(page: Page, name: string | RegExp): Promise<Response> {
    const [response] = await Promise.all([
      page.waitForResponse((answer) => answer.request().method() === 'POST'),
      page.getByRole('button', { name }).click(),
    ]);
    await page.waitForLoadState('load');
    return response;
  }

  /** Nothing wider than the phone, a readable base font, and nothing the Content-Security-Policy had to refuse. */
  async function expectReadableOnPhone(page: Page, refused: string[]): Promise<void> {
    const layout = await phoneLayout(page);
    expect(layout.scrollWidth).toBeLessThanOrEqual(PHONE_WIDTH);
    expect(layout.fontSizePx).toBeGreaterThanOrEqual(16);
    expect(refused).toEqual([]);
  }

  const text = (page: Page) => page.locator('main').innerText();

  beforeAll(async () => {
    // the browser reaches the API over HTTP, as a phone reaches API Gateway
    const api = createApiHandler({ now: () => Date.now() + skew, rateLimitIntervalMs: 0 }) as unknown as HttpHandler;
    server = await startHttpServer({
      routes: [{ routeKey: 'ANY /api/v3/{proxy+}', path: '/api/v3/*', functionName: 'fleetwatch-api', handler: api }],
    });
    vi.stubEnv('PUBLIC_API_URL', apiUrlOf(server.url));

    await registerFleet(PARENT, [VEHICLE]);
    await confirmSideEmails(PARENT, [DUTY]);
    login = `night-lead-${process.pid}`;
    const user = await createUser({ parentId: PARENT, login, password: 'pw-night-lead', email: userEmail, language: 2 });
    const now = Date.now();
    await putRule(
      storedRule({
        id: 9431,
        parentId: PARENT,
        name: 'Highway speeding',
        vehicleIds: [VEHICLE],
        userId: user.id,
        recipientIds: [user.id],
        toEmail: true,
        stored: true,
        timezone: 'Europe/Berlin',
        settings: { limit: '90', minDuration: '10', escalateAfter: '5', escalateEmails: DUTY },
        validFrom: new Date(now - DAY_MS).toISOString(),
        expiresAt: new Date(now + 30 * DAY_MS).toISOString(),
      }),
    );
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("opens the alert's page from its e-mail and shows what, when, where, the vehicle, the rule, the state and who was notified", async () => {
    await speed();
    const emails = (await sentEmails(harness.emulators)).filter((each) => each.destination.to.includes(userEmail));
    expect(emails).toHaveLength(1);
    email = emails[0]!;
    const link = linkOf('Acknowledge');
    expect(link).toMatch(new RegExp(`^${server.url}/api/v3/alerts/acknowledge/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`));

    const { page, refused } = await phonePage(browser);
    const response = await open(page, link!);
    expect(response.status()).toBe(200);
    expect(response.headers()['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-/);
    expect(response.headers()['referrer-policy']).toBe('no-referrer');
    expect(response.headers()['cache-control']).toBe('no-store');
    expect(await page.title()).toBe(`[WARNING] Vehicle ${VEHICLE}: speeding, 112 km/h`);
    const shown = await text(page);
    expect(shown).toContain('WARNING');
    expect(shown).toContain('Vehicle 4343 is speeding: 112 km/h (limit 90 km/h).');
    expect(shown).toMatch(/In the rule's time zone\n\d{4}-\d\d-\d\d \d\d:\d\d \(Europe\/Berlin\)/);
    expect(shown).toMatch(/UTC\n\d{4}-\d\d-\d\d \d\d:\d\d \(UTC\)/);
    expect(shown).toContain('Highway speeding');
    expect(shown).toContain('2 · speeding');
    expect(shown).toContain(`E-mail ${userEmail}: sent`);
    expect(shown).toMatch(/State\n+open/);
    expect(shown).toMatch(/Escalates \d{4}-\d\d-\d\d \d\d:\d\d \(Europe\/Berlin\) unless someone acknowledges it first\./);
    // where: the event's position, and the vehicle's last one from its state, each with its OpenStreetMap link
    const maps = await page.locator('a[href^="https://www.openstreetmap.org/"]').allTextContents();
    expect(maps[0]).toBe('55.75000, 37.62000');
    expect(maps[1]).toMatch(/^55\.75000, 37\.62000, reported \d{4}-\d\d-\d\d \d\d:\d\d \(Europe\/Berlin\), 115 km\/h$/);
    expect(await page.locator('script').count()).toBe(0);
    await expectReadableOnPhone(page, refused);

    const screenshot = await page.screenshot({ fullPage: true });
    expect(screenshot.readUInt32BE(16)).toBe(PHONE_WIDTH);
    await writeFile(join(tmpdir(), 'fleetwatch-alert-page-390.png'), screenshot);
    await page.close();
  });

  it('shows whom the alert escalated to, then acknowledges it through the form with a comment; reloading posts again and changes nothing', async () => {
    const [escalationId] = (await runAlertDuePass(Date.now() + 10 * 60_000)).escalated;
    const alertId = String((await getAlert(escalationId!))?.event.values.escalatedAlertId);
    await deliverAll();

    const { page, refused } = await phonePage(browser);
    await open(page, linkOf('Acknowledge')!);
    expect(await text(page)).toMatch(new RegExp(`Escalated .*, as nobody had acknowledged it, to:\\n+E-mail ${DUTY}: sent`));

    await page.getByLabel('Comment (optional)').fill('Calling the driver <now>');
    const posted = await press(page, 'Acknowledge');
    expect(posted.status()).toBe(200);
    const after = await text(page);
    expect(after).toMatch(/^Acknowledged\./);
    expect(after).toMatch(/State\n+acknowledged/);
    expect(after).toContain(`acknowledged by ${userEmail} (e-mail link)`);
    expect(after).toContain('Calling the driver <now>');
    expect(await page.getByRole('button', { name: 'Acknowledge' }).count()).toBe(0);
    await expectReadableOnPhone(page, refused);
    const stored = await getAlert(alertId);
    expect(stored).toMatchObject({ state: 'acknowledged', acknowledgement: { by: userEmail, via: 'email', comment: 'Calling the driver <now>' } });

    // the browser's reload sends the form again: the page says who acknowledged, and nothing is written twice
    const reloaded = await page.reload();
    expect(reloaded!.request().method()).toBe('POST');
    expect(await text(page)).toMatch(new RegExp(`^Already acknowledged by ${userEmail} at .* \\(UTC\\); nothing changed\\.`));
    expect((await getAlert(alertId))!.lifecycle).toHaveLength(1);
    // opened again from the e-mail: the state, the comment, and the buttons that are left
    await open(page, linkOf('Acknowledge')!);
    expect(await text(page)).toContain('Calling the driver <now>');
    expect(await page.getByRole('button', { name: 'Close' }).count()).toBe(1);
    await expectReadableOnPhone(page, refused);
    expect((await getAlert(alertId))!.lifecycle).toHaveLength(1);
    await page.close();
  });

  it('shows a page saying so for a tampered link (404) and, once the API clock is past 7 days, an expired one (410)', async () => {
    const link = linkOf('Acknowledge')!;
    const { page, refused } = await phonePage(browser);
    const tampered = await open(page, `${link.slice(0, -4)}${link.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`);
    expect(tampered.status()).toBe(404);
    expect(await text(page)).toContain('This link is not valid: it was changed, or fleetwatch did not make it.');
    await expectReadableOnPhone(page, refused);

    skew = 7 * DAY_MS + 60_000;
    try {
      const expired = await open(page, link);
      expect(expired.status()).toBe(410);
      expect(await text(page)).toContain('This link has expired: alert links work for 7 days after the alert was sent.');
      await expectReadableOnPhone(page, refused);
    } finally {
      skew = 0;
    }
    await page.close();
  });

  it("mutes the vehicle from the e-mail's mute page once; reloading says who muted and until when", async () => {
    const { page, refused } = await phonePage(browser);
    expect((await open(page, linkOf('Mute this vehicle 1 h')!)).status()).toBe(200);
    expect(await text(page)).toContain('Mute this fleetwatch alert?');
    await expectReadableOnPhone(page, refused);
    await press(page, 'Mute this vehicle 1 h');
    expect(await text(page)).toMatch(new RegExp(`🔕 Muted by ${login} until .*: vehicle ${VEHICLE}`));
    await expectReadableOnPhone(page, refused);
    await page.reload();
    expect(await text(page)).toMatch(new RegExp(`🔕 Already muted by ${login} until .*: vehicle ${VEHICLE}`));
    expect((await listSilences(PARENT, Date.now())).filter((silence) => silence.vehicleIds.includes(VEHICLE))).toHaveLength(1);
    await page.close();
  });

  it("unsubscribes from the e-mail's List-Unsubscribe page, and subscribes again, each a page; reloading changes nothing", async () => {
    const header = email.headers?.find((each) => each.name === 'List-Unsubscribe')?.value ?? '';
    const link = /^<(http\S+)>$/.exec(header)?.[1];
    expect(link).toMatch(new RegExp(`^${server.url}/api/v3/email/unsubscribe/`));
    const token = new URL(link!).pathname.split('/').at(-1)!;

    const { page, refused } = await phonePage(browser);
    await open(page, link!);
    expect(await text(page)).toContain('Stop these fleetwatch alerts to this address?');
    await expectReadableOnPhone(page, refused);
    const unsubscribed = await press(page, 'Unsubscribe');
    expect(unsubscribed.status()).toBe(200);
    expect(unsubscribed.headers()['content-type']).toMatch(/^text\/html/);
    expect(await text(page)).toContain('These fleetwatch alerts are stopped for this address.');
    expect((await unsubscribeLink(token))?.optedOut).toBe(true);
    await expectReadableOnPhone(page, refused);
    await page.reload();
    expect(await text(page)).toContain('These fleetwatch alerts are stopped for this address.');
    expect((await unsubscribeLink(token))?.optedOut).toBe(true);

    await press(page, 'Subscribe again');
    expect(await text(page)).toContain('These fleetwatch alerts reach this address again.');
    expect((await unsubscribeLink(token))?.optedOut).toBe(false);
    await expectReadableOnPhone(page, refused);
    await page.close();
  });
});
