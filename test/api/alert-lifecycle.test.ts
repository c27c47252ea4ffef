import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { ALERT_LINK_TTL_DAYS, signAlertLink } from '../../shared/auth/alert-link-token';
import { buildAlertItem } from '../../shared/store/alerts/alerts-store';
import { getRule } from '../../shared/store/rules-store';
import { runAlertDuePass } from '../../shared/sweep/alert-due-pass';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import type { operations } from '../../shared/api/client/schema';
import { TestClock, login, ruleBody, seedTenants, session, typedApiClient, type JsonBody, type TypedApi } from './support';

/** The alert page's form, as the OpenAPI document describes it. */
type PageForm = NonNullable<operations['acknowledgeByLink']['requestBody']>['content']['application/x-www-form-urlencoded'];

describe('alert lifecycle', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  const clock = new TestClock();
  let api: TypedApi;
  const tokens = { root: '', child: '', sibling: '', readOnly: '' };
  const rules = { root: 0, sibling: 0, autoClose: 0 };
  let minute = 0;
  const at = (offset: number) => new Date(Date.parse('2026-02-10T10:00:00.000Z') + offset * 60_000).toISOString();

  async function writeAlert(ruleId: number, vehicleId: number, extra: Record<string, unknown> = {}) {
    const rule = await getRule(ruleId);
    minute++;
    const event = { kind: 'speeding', time: at(minute), latitude: 55.7, longitude: 37.6, speed: 120, values: { limit: 90 } };
    const item = { ...buildAlertItem(rule!, vehicleId, event, Date.parse(at(minute))), ...extra };
    await documentClient().send(new PutCommand({ TableName: resourcesConfig().ALERTS_TABLE, Item: item }));
    return item.alertId;
  }

  const acknowledge = (token: string, alertId: string, body: JsonBody<'acknowledgeAlert'> = {}) =>
    api.POST('/api/v3/notifications/history/{alertId}/acknowledge', { headers: session(token), params: { path: { alertId } }, body });
  // the filters include a state the API must refuse: the API checks it, not the compiler
  const history = (token: string, body: object) =>
    api.POST('/api/v3/notifications/history', {
      headers: session(token),
      body: { from: at(-60), to: at(600), ...body } as JsonBody<'findAlerts'>,
    });
  const findIn = async (alertId: string) => (await history(tokens.root, { limit: 1000 })).data!.items.find((item) => item.alertId === alertId)!;

  beforeAll(async () => {
    emulators = await startTestEmulators('api-lifecycle');
    tenants = await seedTenants('lifecycle');
    api = typedApiClient({ now: clock.now });
    for (const name of ['root', 'child', 'sibling', 'readOnly'] as const) tokens[name] = await login(api, tenants[name]);
    const create = async (token: string, body: object) => {
      const { data, response } = await api.POST('/api/v3/notifications', {
        headers: session(token),
        body: body as JsonBody<'createNotificationRule'>,
      });
      expect(response.status).toBe(200);
      return data!.id;
    };
    rules.root = await create(tokens.root, ruleBody(tenants.root.agentId));
    rules.sibling = await create(tokens.sibling, ruleBody(tenants.sibling.agentId, { vehicleIds: [202] }));
    rules.autoClose = await create(tokens.root, ruleBody(tenants.root.agentId, { settings: { limit: '90', autoCloseHours: '2' } }));
  });
  afterAll(async () => emulators.stop());

  it('acknowledges an alert once: the second answer says already, by whom, and the history shows it', async () => {
    const alertId = await writeAlert(rules.root, 101);
    const first = await acknowledge(tokens.root, alertId, { comment: 'calling the driver' });
    expect(first.response.status).toBe(200);
    expect(first.data).toMatchObject({
      alertId,
      outcome: 'acknowledged',
      state: 'acknowledged',
      acknowledgement: { by: tenants.root.login, via: 'api', comment: 'calling the driver', at: new Date(clock.now()).toISOString() },
    });

    clock.advance(60_000);
    const second = await acknowledge(tokens.root, alertId);
    expect(second.response.status).toBe(200);
    expect(second.data).toMatchObject({ outcome: 'alreadyAcknowledged', acknowledgement: { by: tenants.root.login, comment: 'calling the driver' } });

    const item = await findIn(alertId);
    expect(item).toMatchObject({ state: 'acknowledged', acknowledgement: { by: tenants.root.login } });
    expect(item.lifecycle).toHaveLength(1);
  });

  it('answers 404 for an alert of another client and 403 to a read-only user, changing nothing', async () => {
    const foreign = await writeAlert(rules.sibling, 202);
    const own = await writeAlert(rules.root, 101);
    expect((await acknowledge(tokens.root, foreign)).response.status).toBe(404);
    // a client below sees nothing above it
    expect((await acknowledge(tokens.child, own)).response.status).toBe(404);
    expect((await acknowledge(tokens.readOnly, own)).response.status).toBe(403);
    expect((await acknowledge(tokens.root, 'not-an-id')).response.status).toBe(400);
    expect((await findIn(own)).state).toBe('open');
    const sibling = await history(tokens.sibling, {});
    expect(sibling.data?.items.find((item) => item.alertId === foreign)?.state).toBe('open');
  });

  it('acknowledges several alerts in bulk with one outcome per id', async () => {
    const fresh = await writeAlert(rules.root, 101);
    const done = await writeAlert(rules.root, 101);
    const closed = await writeAlert(rules.root, 101);
    const foreign = await writeAlert(rules.sibling, 202);
    await acknowledge(tokens.root, done);
    const close = await api.POST('/api/v3/notifications/history/{alertId}/close', {
      headers: session(tokens.root),
      params: { path: { alertId: closed } },
      body: {},
    });
    expect(close.data).toMatchObject({ outcome: 'closed', state: 'closed' });

    const bulk = (token: string, body: JsonBody<'acknowledgeAlerts'>) =>
      api.POST('/api/v3/notifications/history/acknowledge', { headers: session(token), body });
    const { data, response } = await bulk(tokens.root, { ids: [fresh, done, closed, foreign], comment: 'on it' });
    expect(response.status).toBe(200);
    expect(data?.results.map((result) => result.outcome)).toEqual(['acknowledged', 'alreadyAcknowledged', 'refused', 'notFound']);
    expect(data?.results[3]).toEqual({ alertId: foreign, outcome: 'notFound' });
    expect((await acknowledge(tokens.root, closed)).response.status).toBe(409);
    expect((await bulk(tokens.readOnly, { ids: [fresh] })).response.status).toBe(403);
  });

  it('filters the history by state; alerts stored before states existed read as open', async () => {
    const legacy = await writeAlert(rules.root, 101, { state: undefined, lifecycle: undefined });
    const acknowledged = await writeAlert(rules.root, 101);
    await acknowledge(tokens.root, acknowledged);
    const ids = async (state: string) => (await history(tokens.root, { state, limit: 1000 })).data!.items.map((item) => item.alertId);
    const open = await ids('open');
    expect(open).toContain(legacy);
    expect(open).not.toContain(acknowledged);
    expect(await ids('acknowledged')).toContain(acknowledged);
    expect(await ids('acknowledged')).not.toContain(legacy);
    const bad = await history(tokens.root, { state: 'snoozed' });
    expect(bad.response.status).toBe(400);
    expect(bad.error?.issues?.[0]?.path).toBe('state');
  });

  it('keeps nextToken signed for the state it was asked with', async () => {
    for (let index = 0; index < 3; index++) await writeAlert(rules.root, 101);
    const first = await history(tokens.root, { state: 'open', limit: 1 });
    expect(first.data?.nextToken).toEqual(expect.any(String));
    const next = await history(tokens.root, { state: 'open', limit: 1, nextToken: first.data?.nextToken });
    expect(next.response.status).toBe(200);
    const other = await history(tokens.root, { state: 'acknowledged', limit: 1, nextToken: first.data?.nextToken });
    expect(other.response.status).toBe(400);
    expect(other.error?.issues?.[0]?.path).toBe('nextToken');
  });

  it('closes an alert by itself after autoCloseHours, found through the due index', async () => {
    const due = await writeAlert(rules.autoClose, 101);
    const acknowledged = await writeAlert(rules.autoClose, 101);
    const never = await writeAlert(rules.root, 101);
    await acknowledge(tokens.root, acknowledged);
    const raisedAt = Date.parse(at(minute));

    expect((await runAlertDuePass(raisedAt + 3_600_000)).closed).not.toContain(due);
    const pass = await runAlertDuePass(raisedAt + 2 * 3_600_000 + 60_000);
    expect(pass.closed).toEqual(expect.arrayContaining([due, acknowledged]));
    expect(pass.closed).not.toContain(never);
    // a second sweep finds nothing left to close
    expect((await runAlertDuePass(raisedAt + 3 * 3_600_000)).closed).toEqual([]);
    expect(await findIn(due)).toMatchObject({ state: 'closed', lifecycle: [{ state: 'closed', by: 'fleetwatch', via: 'system' }] });
    expect((await findIn(acknowledged)).lifecycle?.map((entry) => entry.state)).toEqual(['acknowledged', 'closed']);
    expect((await findIn(never)).state).toBe('open');
  });

  it('refuses autoCloseHours outside 0-720 naming settings.autoCloseHours', async () => {
    const { error, response } = await api.POST('/api/v3/notifications', {
      headers: session(tokens.root),
      body: ruleBody(tenants.root.agentId, { settings: { limit: '90', autoCloseHours: '721' } }) as JsonBody<'createNotificationRule'>,
    });
    expect(response.status).toBe(400);
    expect(error?.issues?.map((issue) => issue.path)).toContain('settings.autoCloseHours');
  });

  describe("the alert's page, behind the link of its e-mail", () => {
    /** Opens (GET) or posts (POST) the link; its answer is an HTML page. A form is sent as the page's buttons send it. */
    const link = async (method: 'GET' | 'POST', token: string, form?: PageForm) => {
      const init = { params: { path: { token } }, parseAs: 'text' as const };
      const formInit = form && {
        body: form,
        bodySerializer: (fields?: PageForm) => new URLSearchParams(fields).toString(),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      };
      const { data, error, response } =
        method === 'GET'
          ? await api.GET('/api/v3/alerts/acknowledge/{token}', init)
          : await api.POST('/api/v3/alerts/acknowledge/{token}', { ...init, ...formInit });
      return { status: response.status, headers: response.headers, page: String(data ?? error) };
    };
    const sign = (alertId: string, now = clock.now(), userId?: string) =>
      signAlertLink({ alertId, sentTo: 'email:ops@example.com', userId, language: 2 }, now);

    it('shows the alert on GET without acknowledging; a POST without a body acknowledges as the address, once', async () => {
      const alertId = await writeAlert(rules.root, 101);
      const token = await sign(alertId);
      const page = await link('GET', token);
      expect(page.status).toBe(200);
      expect(page.headers.get('Content-Type')).toContain('text/html');
      expect(page.headers.get('Content-Security-Policy')).toMatch(
        /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'$/,
      );
      expect(page.headers.get('Referrer-Policy')).toBe('no-referrer');
      expect(page.headers.get('Cache-Control')).toBe('no-store');
      expect(page.page).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
      expect(page.page).toContain('<h1>[WARNING] Truck 101: speeding, 120 km/h</h1>');
      expect(page.page).toContain('<button type="submit" name="action" value="acknowledge">Acknowledge</button>');
      expect(page.page).not.toContain('value="close"');
      expect(page.page).not.toContain('<script');
      expect((await findIn(alertId)).state).toBe('open');

      const posted = await link('POST', token);
      expect(posted.status).toBe(200);
      expect(posted.page).toContain('<p>Acknowledged.</p>');
      expect(posted.page).toMatch(/acknowledged by ops@example\.com \(e-mail link\), \d{4}-\d\d-\d\d \d\d:\d\d/);
      expect(await findIn(alertId)).toMatchObject({ state: 'acknowledged', acknowledgement: { by: 'ops@example.com', via: 'email' } });
      const again = await link('POST', token);
      expect(again.status).toBe(200);
      expect(again.page).toMatch(/<p>Already acknowledged by ops@example\.com at \d{4}-\d\d-\d\d \d\d:\d\d \(UTC\); nothing changed\.<\/p>/);
      expect((await findIn(alertId)).lifecycle).toHaveLength(1);
    });

    it('writes the page in the language the link was sent in', async () => {
      const alertId = await writeAlert(rules.root, 101);
      const token = await signAlertLink({ alertId, sentTo: 'email:ops@example.com', language: 1 }, clock.now());
      const page = (await link('GET', token)).page;
      expect(page).toContain('<html lang="ru">');
      expect(page).toContain('>Принять в работу</button>');
      expect(page).toContain('<h2>Кому отправлено</h2>');
    });

    it('lets the user a link names close with a comment and mute; a link of an outside address may only acknowledge', async () => {
      const alertId = await writeAlert(rules.root, 101);
      const outside = await sign(alertId);
      expect((await link('GET', outside)).page).toContain('Closing and muting need a fleetwatch user');
      const refused = await link('POST', outside, { action: 'close' });
      expect(refused.status).toBe(403);
      expect((await findIn(alertId)).state).toBe('open');

      const mine = await sign(alertId, clock.now(), tenants.root.userId);
      const page = (await link('GET', mine)).page;
      expect(page).toContain('value="close">Close</button>');
      expect(page).toContain('value="muteVehicle">Mute this vehicle 1 h</button>');
      const closed = await link('POST', mine, { action: 'close', comment: '  Driver called back <ok>  ' });
      expect(closed.status).toBe(200);
      expect(closed.page).toContain('<p>Closed.</p>');
      expect(closed.page).toContain('<blockquote>Driver called back &lt;ok&gt;</blockquote>');
      expect(await findIn(alertId)).toMatchObject({
        state: 'closed',
        lifecycle: [{ state: 'closed', by: 'ops@example.com', comment: 'Driver called back <ok>' }],
      });
      const late = await link('POST', mine, { action: 'acknowledge', comment: '' });
      expect(late.status).toBe(409);
      expect(late.page).toContain('<p>This alert is closed; nothing changed.</p>');

      const muted = await link('POST', mine, { action: 'muteVehicle' });
      expect(muted.status).toBe(200);
      expect(muted.page).toMatch(/🔕 Muted by lifecycle-root until .*: vehicle 101/);
      expect((await link('POST', mine, { action: 'muteVehicle' })).page).toMatch(/🔕 Already muted by lifecycle-root until/);
    });

    it("checks the named user on every action, as the Telegram button checks its presser: read-only or another tenant's is 403", async () => {
      const alertId = await writeAlert(rules.root, 101);
      for (const userId of [tenants.readOnly.userId, tenants.sibling.userId]) {
        const answer = await link('POST', await sign(alertId, clock.now(), userId));
        expect(answer.status).toBe(403);
        expect(answer.page).toContain('Your fleetwatch user can no longer act on alerts of this client');
      }
      expect((await findIn(alertId)).state).toBe('open');
      // a child client's user cannot act on the root's alert either
      expect((await link('POST', await sign(alertId, clock.now(), tenants.child.userId), { action: 'muteRule' })).status).toBe(403);
    });

    it('refuses a tampered link (404), an expired one (410) and one of an alert that is gone (404), each with a page saying so', async () => {
      const alertId = await writeAlert(rules.root, 101);
      const other = await writeAlert(rules.root, 101);
      const token = await sign(alertId);
      const [payload, signature] = token.split('.') as [string, string];
      const forged = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
      const swapped = `${Buffer.from(JSON.stringify({ ...forged, a: other }), 'utf8').toString('base64url')}.${signature}`;
      for (const method of ['GET', 'POST'] as const) {
        const tampered = await link(method, swapped);
        expect(tampered.status).toBe(404);
        expect(tampered.page).toContain('<p>This link is not valid: it was changed, or fleetwatch did not make it.');
      }

      const stale = await sign(alertId, clock.now() - ALERT_LINK_TTL_DAYS * 86_400_000 - 1000);
      const expired = await link('POST', stale);
      expect(expired.status).toBe(410);
      expect(expired.page).toContain('<p>This link has expired: alert links work for 7 days after the alert was sent.');
      expect((await findIn(alertId)).state).toBe('open');
      expect((await findIn(other)).state).toBe('open');

      const gone = await link('GET', await sign('0123456789abcdef0123456789abcdef'));
      expect(gone.status).toBe(404);
      expect(gone.page).toContain('<p>This alert no longer exists in fleetwatch.</p>');
    });
  });
});
