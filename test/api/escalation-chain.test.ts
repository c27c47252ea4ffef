import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { buildAlertItem } from '../../shared/store/alerts/alerts-store';
import { transitionAlert } from '../../shared/store/alerts/alert-lifecycle';
import { markSideEmailConfirmed } from '../../shared/store/email-consent/confirmation';
import { getRule } from '../../shared/store/rules-store';
import { runAlertDuePass } from '../../shared/sweep/alert-due-pass';
import { clearSentEmails, sentEmails } from '../support/emulators';
import { useDeliverHarness } from '../support/deliver-harness';
import { getAlertItem } from '../delivery/support/fixtures';
import { TestClock, login, ruleBody, seedTenants, session, typedApiClient, type JsonBody, type TypedApi } from './support';

const MINUTE = 60_000;
const DUTY = 'duty@chain.example.com';
const emailOf = (name: string) => `${name}@chain.example.com`;

/**
 * Escalation chains end to end: rules saved through the API with `settings.escalation` (a rota, a user, a side
 * address) and `escalationRepeat`, their alerts escalated level by level by the sweep's due pass (doubled, and
 * with delivery requests sent twice), each level delivered by the deliver handler to the SES emulator's inbox.
 */
describe('escalation chains', () => {
  const harness = useDeliverHarness({ name: 'api-escalation-chain' });
  const clock = new TestClock();
  let api: TypedApi;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let token = '';
  let rotaId = '';
  let minute = 0;

  const chain = () => [
    { after: 5, rotaIds: [rotaId] },
    { after: 15, userIds: [tenants.child.userId] },
    { after: 30, emails: [DUTY] },
  ];
  const createRule = (settings: Record<string, unknown>) =>
    api.POST('/api/v3/notifications', {
      headers: session(token),
      body: ruleBody(tenants.root.agentId, {
        toEmail: true,
        recipientIds: [tenants.root.userId],
        enableSideEmails: false,
        sideEmails: [],
        settings: { limit: '90', ...settings },
      }) as JsonBody<'createNotificationRule'>,
    });

  const drainDeliveries = () => harness.drainDeliveries({ rounds: 5 });
  const requestDelivery = (alertId: string) => harness.enqueue(alertId);

  async function raise(ruleId: number): Promise<{ alertId: string; raisedAt: number }> {
    minute++;
    const raisedAt = clock.now();
    const time = new Date(raisedAt - minute * 1000).toISOString();
    const event = { kind: 'speeding', time, latitude: 55.7558, longitude: 37.6173, speed: 104, values: { limit: 90, maxSpeed: 104 } };
    const item = buildAlertItem((await getRule(ruleId))!, 101, event, raisedAt);
    await documentClient().send(new PutCommand({ TableName: resourcesConfig().ALERTS_TABLE, Item: item }));
    await requestDelivery(item.alertId);
    await drainDeliveries();
    await clearSentEmails(harness.emulators);
    return { alertId: item.alertId, raisedAt };
  }

  /** Two sweeps at once, then the escalations' requests delivered twice: what each level sent. */
  async function sweepTwiceAt(at: number): Promise<string[]> {
    const runs = await Promise.all([runAlertDuePass(at), runAlertDuePass(at)]);
    const escalated = runs.flatMap((run) => run.escalated);
    await drainDeliveries();
    for (const id of escalated) await requestDelivery(id);
    await drainDeliveries();
    return escalated;
  }
  const mailsTo = async (address: string) => (await sentEmails(harness.emulators)).filter((email) => email.destination.to.includes(address));

  beforeAll(async () => {
    tenants = await seedTenants('chain');
    api = typedApiClient({ now: clock.now });
    token = await login(api, tenants.root);
    await markSideEmailConfirmed(tenants.root.agentId, DUTY, clock.now());
    const rota = await api.POST('/api/v3/rotas', {
      headers: session(token),
      body: {
        parentId: tenants.root.agentId,
        name: 'Day desk',
        timezone: 'Europe/Berlin',
        participants: [tenants.root.userId],
        handoff: { every: 'day', at: '08:00' },
      },
    });
    expect(rota.response.status).toBe(200);
    rotaId = rota.data!.id;
  });
  beforeEach(() => {
    clock.advance(MINUTE);
  });

  it('takes the chain as a JSON array, answers it as its JSON text, and names each bad level field', async () => {
    const created = await createRule({ escalation: chain(), escalationRepeat: 1 });
    expect(created.response.status).toBe(200);
    const read = await api.GET('/api/v3/notifications/{id}', { headers: session(token), params: { path: { id: created.data!.id } } });
    expect(JSON.parse(String(read.data!.settings.escalation))).toEqual(chain());
    expect(read.data!.settings.escalationRepeat).toBe('1');

    const bad = await createRule({
      escalation: [
        { after: 10, rotaIds: [`${tenants.sibling.agentId}.AAAAAAAAAAAAAAAAAAAAAA`] },
        { after: 5, userIds: [tenants.sibling.userId] },
      ],
    });
    expect(bad.response.status).toBe(400);
    expect(bad.error?.issues?.map((issue) => issue.path)).toEqual(['settings.escalation.1.after']);
    const foreign = await createRule({
      escalation: [
        { after: 10, rotaIds: [`${tenants.sibling.agentId}.AAAAAAAAAAAAAAAAAAAAAA`] },
        { after: 20, userIds: [tenants.sibling.userId] },
      ],
    });
    expect(foreign.error?.issues?.map((issue) => issue.path).sort()).toEqual(['settings.escalation.0.rotaIds.0', 'settings.escalation.1.userIds.0']);
    const both = await createRule({ escalation: chain(), escalateAfter: 10, escalateEmails: DUTY });
    expect(both.error?.issues?.map((issue) => issue.path)).toEqual(['settings.escalation']);

    // a rota that an escalation names cannot be deleted
    const deleted = await api.DELETE('/api/v3/rotas/{id}', { headers: session(token), params: { path: { id: rotaId } } });
    expect(deleted.response.status).toBe(409);
    expect(deleted.error?.message).toContain(String(created.data!.id));
    await api.DELETE('/api/v3/notifications/{id}', { headers: session(token), params: { path: { id: created.data!.id } } });
  });

  it('takes sms on a level as a boolean, refuses it otherwise or with nobody to text, and names an unknown level field', async () => {
    const texting = [
      { after: 5, rotaIds: [rotaId], sms: true },
      { after: 15, userIds: [tenants.child.userId] },
    ];
    const created = await createRule({ escalation: texting });
    expect(created.response.status).toBe(200);
    const read = await api.GET('/api/v3/notifications/{id}', { headers: session(token), params: { path: { id: created.data!.id } } });
    expect(JSON.parse(String(read.data!.settings.escalation))).toEqual(texting);
    expect(read.data!.problems).toBeUndefined();
    await api.DELETE('/api/v3/notifications/{id}', { headers: session(token), params: { path: { id: created.data!.id } } });

    // a texting level's user without a verified number is a problem of the rule until it is verified
    const unverified = await createRule({ escalation: [{ after: 5, userIds: [tenants.child.userId], sms: true }] });
    expect(unverified.response.status).toBe(200);
    const readUnverified = await api.GET('/api/v3/notifications/{id}', { headers: session(token), params: { path: { id: unverified.data!.id } } });
    expect(readUnverified.data!.problems?.map((problem) => problem.path)).toEqual(['settings.escalation.0.userIds.0']);
    await api.DELETE('/api/v3/notifications/{id}', { headers: session(token), params: { path: { id: unverified.data!.id } } });
    await api.DELETE('/api/v3/notifications/{id}', { headers: session(token), params: { path: { id: created.data!.id } } });

    const asText = await createRule({ escalation: [{ after: 5, userIds: [tenants.child.userId], sms: 'true' }] });
    expect(asText.response.status).toBe(400);
    expect(asText.error?.issues?.map((issue) => issue.path)).toEqual(['settings.escalation.0.sms']);
    const nobody = await createRule({ escalation: [{ after: 5, emails: [DUTY], sms: true }] });
    expect(nobody.response.status).toBe(400);
    expect(nobody.error?.issues?.map((issue) => issue.path)).toEqual(['settings.escalation.0.sms']);
    const unknown = await createRule({ escalation: [{ after: 5, userIds: [tenants.child.userId], phone: true }] });
    expect(unknown.response.status).toBe(400);
    expect(unknown.error?.issues?.map((issue) => [issue.path, issue.message])).toEqual([
      ['settings.escalation.0.phone', 'unknown level field (known: after, userIds, telegrams, emails, rotaIds, sms)'],
    ]);
  });

  it('fires each of three levels once, under doubled sweeps and redelivery, the rota resolving to whoever is on call', async () => {
    const ruleId = (await createRule({ escalation: chain() })).data!.id;
    const { alertId, raisedAt } = await raise(ruleId);

    expect(await sweepTwiceAt(raisedAt + 4 * MINUTE)).toEqual([]);
    expect(await sweepTwiceAt(raisedAt + 6 * MINUTE)).toHaveLength(1);
    expect((await mailsTo(emailOf('root'))).map((mail) => mail.subject)).toEqual([
      '[WARNING] Truck 101: not acknowledged in 5 min: Speeding on the highway',
    ]);
    expect(await mailsTo(emailOf('child'))).toEqual([]);

    await clearSentEmails(harness.emulators);
    expect(await sweepTwiceAt(raisedAt + 16 * MINUTE)).toHaveLength(1);
    expect(await mailsTo(emailOf('child'))).toHaveLength(1);
    expect(await mailsTo(emailOf('root'))).toEqual([]);

    await clearSentEmails(harness.emulators);
    expect(await sweepTwiceAt(raisedAt + 31 * MINUTE)).toHaveLength(1);
    expect(await mailsTo(DUTY)).toHaveLength(1);
    // the chain is over
    expect(await sweepTwiceAt(raisedAt + 120 * MINUTE)).toEqual([]);

    const item = await getAlertItem(alertId);
    expect((item.escalations as { level: number; onCall: unknown[] }[]).map((entry) => [entry.level, entry.onCall])).toEqual([
      [0, [{ rotaId, userId: tenants.root.userId }]],
      [1, []],
      [2, []],
    ]);
    expect(item.dueAt).toBeUndefined();
  });

  it('stops the levels not yet fired when the alert is acknowledged between them', async () => {
    const ruleId = (await createRule({ escalation: chain(), escalationRepeat: 2 })).data!.id;
    const { alertId, raisedAt } = await raise(ruleId);
    expect(await sweepTwiceAt(raisedAt + 6 * MINUTE)).toHaveLength(1);
    const acknowledged = await transitionAlert(alertId, { to: 'acknowledged', by: 'dispatcher', via: 'api', now: raisedAt + 7 * MINUTE });
    expect(acknowledged.outcome).toBe('changed');
    for (const after of [16, 31, 40, 80, 200]) expect(await sweepTwiceAt(raisedAt + after * MINUTE)).toEqual([]);
    expect((await getAlertItem(alertId)).escalations).toHaveLength(1);
  });

  it('runs the chain again while nobody acknowledges, escalationRepeat times', async () => {
    const ruleId = (
      await createRule({
        escalation: [
          { after: 5, emails: [DUTY] },
          { after: 10, userIds: [tenants.child.userId] },
        ],
        escalationRepeat: 1,
      })
    ).data!.id;
    const { alertId, raisedAt } = await raise(ruleId);
    const fired: number[] = [];
    for (let after = 1; after <= 60; after++) if ((await runAlertDuePass(raisedAt + after * MINUTE)).escalated.length > 0) fired.push(after);
    // round 0 at 5 and 10 minutes, round 1 ten minutes later
    expect(fired).toEqual([5, 10, 15, 20]);
    expect((await getAlertItem(alertId)).escalations).toHaveLength(4);
    await drainDeliveries();
  });

  it('lets a rota override decide who the level reaches', async () => {
    const ruleId = (await createRule({ escalation: chain() })).data!.id;
    const { alertId, raisedAt } = await raise(ruleId);
    const override = await api.POST('/api/v3/rotas/{id}/overrides', {
      headers: session(token),
      params: { path: { id: rotaId } },
      body: { userId: tenants.readOnly.userId, from: new Date(raisedAt).toISOString(), to: new Date(raisedAt + 3_600_000).toISOString() },
    });
    expect(override.response.status).toBe(200);
    expect(await sweepTwiceAt(raisedAt + 6 * MINUTE)).toHaveLength(1);
    expect(await mailsTo(emailOf('viewer'))).toHaveLength(1);
    expect(await mailsTo(emailOf('root'))).toEqual([]);
    const entry = ((await getAlertItem(alertId)).escalations as { onCall: unknown[] }[])[0]!;
    expect(entry.onCall).toEqual([{ rotaId, userId: tenants.readOnly.userId }]);
    await api.DELETE('/api/v3/rotas/{id}/overrides/{overrideId}', {
      headers: session(token),
      params: { path: { id: rotaId, overrideId: override.data!.id } },
    });
  });
});
