import { randomUUID } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { pollOnce } from '../../infra/local/sqs-poller';
import { startWebhookReceiver, type RunningWebhookReceiver } from '../../infra/local/webhook-receiver';
import { sqsClient } from '../../shared/aws/clients';
import { webhookMessageId } from '../../shared/channels/webhook/standard-signature';
import { RECOVERY_STEP_ENTRIES } from '../../shared/delivery/recover-webhook';
import type { Alert } from '../../shared/schemas/alert';
import type { StoredRule } from '../../shared/schemas/notification';
import type { WebhookRecoverRequest } from '../../shared/schemas/webhook-recovery';
import { recordWebhookAttempt } from '../../shared/store/webhook-deliveries';
import { createWebhook, deleteWebhook, updateWebhook } from '../../shared/store/webhooks-store';
import { TestClock, apiClient, login, seedTenants, session, typedApiClient, type Api, type TypedApi } from '../api/support';
import { getAlertItem, putAlert, putRule } from '../delivery/support/fixtures';
import { useDeliverHarness } from '../support/deliver-harness';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * `POST /api/v3/webhooks/{id}/recover` and `GET /api/v3/webhooks/{id}/recover/{jobId}` through the real API and
 * deliver handlers, the deliveries queue on fauxqs, DynamoDB Local and a webhook receiver on loopback that is
 * down (503) for a while: the job re-sends each failed delivery once, with its original webhook-id, in steps.
 */
describe('webhook recovery', () => {
  let receiver: RunningWebhookReceiver;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let api: TypedApi;
  /** For the requests the typed client cannot express: an unknown field, a malformed time. */
  let rawApi: Api;
  /** The API's clock, set to the real time where the deliver side's delivery log (real time) matters. */
  const clock = new TestClock(Date.now());
  const tokens: Record<'root' | 'child' | 'sibling' | 'readOnly', string> = { root: '', child: '', sibling: '', readOnly: '' };
  const harness = useDeliverHarness({
    name: 'webhook-recovery',
    env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_BASE_SECONDS: '0' },
    // two receives: an alert the receiver keeps answering 503 is parked after its second attempt
    dependencies: { maxReceiveCount: 2 },
  });
  const { handler } = harness;
  let paths = 0;
  /** Endpoints of the running test: deleted after it, so that the next test's alerts reach only its own. */
  const endpoints: Array<{ parentId: string; id: string }> = [];

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    tenants = await seedTenants('recover');
    api = typedApiClient({ now: clock.now });
    rawApi = apiClient({ now: clock.now });
    for (const name of Object.keys(tokens) as (keyof typeof tokens)[]) tokens[name] = await login(api, tenants[name]);
  });
  afterAll(() => receiver.stop());
  beforeEach(() => {
    // the tests start many jobs of one client within an hour; the hourly limit has a test of its own
    vi.stubEnv('LIMIT_WEBHOOK_RECOVERIES_PER_CLIENT_PER_HOUR', '100');
  });
  afterEach(async () => {
    vi.stubEnv('LIMIT_WEBHOOK_RECOVERIES_PER_CLIENT_PER_HOUR', undefined);
    await drain();
    for (const endpoint of endpoints.splice(0)) await deleteWebhook(endpoint.parentId, endpoint.id);
  });

  const drain = () => harness.drainDeliveries();
  const recover = (token: string, id: string, since: string) =>
    api.POST('/api/v3/webhooks/{id}/recover', { headers: session(token), params: { path: { id } }, body: { since } });
  const progress = (token: string, id: string, jobId: string) =>
    api.GET('/api/v3/webhooks/{id}/recover/{jobId}', { headers: session(token), params: { path: { id, jobId } } });
  const enqueue = (body: WebhookRecoverRequest | { alertId: string }) =>
    sqsClient().send(new SendMessageCommand({ QueueUrl: harness.emulators.queues.deliveries, MessageBody: JSON.stringify(body) }));
  /** Brings the API's clock to the real time, never back: a session refuses a request made before its last one. */
  const catchUp = () => {
    clock.value = Math.max(clock.value, Date.now());
  };
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  async function endpointOf(clientId: string) {
    const endpoint = await createWebhook({ parentId: clientId, url: `${receiver.url}recover-${paths++}`, description: '' }, Date.now());
    receiver.secret = endpoint.secret;
    endpoints.push(endpoint);
    return endpoint;
  }

  /** Delivers a new alert of the rule through the deliver handler while the receiver answers `answers`, then 200. */
  async function deliverThrough(rule: StoredRule, ...answers: number[]): Promise<Alert> {
    const alert = await putAlert(rule, 101);
    receiver.script(...answers);
    await enqueue({ alertId: alert.alertId });
    await drain();
    return alert;
  }

  /** `count` alerts whose delivery to the endpoint failed for good in the last minutes, as the deliver path leaves them. */
  async function failedDeliveries(endpoint: { id: string }, rule: StoredRule, count: number): Promise<Alert[]> {
    const key = `webhook:${endpoint.id}`;
    const error = 'the endpoint answered 400 (it refused the request)';
    const alerts: Alert[] = [];
    for (let index = 0; index < count; index++) {
      const at = new Date(Date.now() - 5 * MINUTE + index * 100).toISOString();
      const alert = await putAlert(rule, 101, {}, { status: 'failed', deliveries: { [key]: { status: 'failed', at, attempts: 1, error } } });
      await recordWebhookAttempt(endpoint.id, {
        alertId: alert.alertId,
        event: 'speeding',
        at,
        status: 'failed',
        httpStatus: 400,
        latencyMs: 2,
        error,
      });
      alerts.push(alert);
    }
    return alerts;
  }

  /**
   * An alert whose delivery to the endpoint went through the retry schedule during an outage: given up on after its
   * last attempt (`failed`), or sent on a retry once the receiver was back (`sent`), with its attempts in the log.
   */
  async function retriedDelivery(endpoint: { id: string }, rule: StoredRule, outcome: 'failed' | 'sent'): Promise<Alert> {
    const key = `webhook:${endpoint.id}`;
    const error = 'the endpoint answered 503 (a server error on its side)';
    const at = new Date().toISOString();
    const status =
      outcome === 'failed'
        ? { status: 'failed' as const, at, attempts: 8, error: `still failing after 8 attempts: ${error}` }
        : { status: 'sent' as const, at, attempts: 2 };
    const alert = await putAlert(rule, 101, {}, { status: outcome === 'failed' ? 'failed' : 'delivered', deliveries: { [key]: status } });
    await recordWebhookAttempt(endpoint.id, {
      alertId: alert.alertId,
      event: 'speeding',
      at,
      status: 'failed',
      httpStatus: 503,
      latencyMs: 2,
      error,
    });
    if (outcome === 'sent')
      await recordWebhookAttempt(endpoint.id, {
        alertId: alert.alertId,
        event: 'speeding',
        at,
        status: 'succeeded',
        httpStatus: 200,
        latencyMs: 2,
        error: null,
      });
    return alert;
  }

  /** The webhook-ids of the requests that reached the receiver from the `from`th on, and how often each came. */
  function idsSince(from: number): Map<string, number> {
    const counts = new Map<string, number>();
    for (const request of receiver.requests.slice(from)) {
      const id = String(request.headers['webhook-id']);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return counts;
  }

  it('re-sends each delivery that failed during an outage once, with its original webhook-id, and skips the others', async () => {
    const endpoint = await endpointOf(tenants.root.agentId);
    const rule = await putRule({ parentId: tenants.root.agentId, toClient: true, stored: true });
    const key = `webhook:${endpoint.id}`;
    const messageId = (alert: Alert) => webhookMessageId(alert.alertId, endpoint.id);

    const beforeOutage = await deliverThrough(rule, 400);
    await sleep(5);
    const since = new Date().toISOString();
    // the receiver is down: two alerts are given up on after their last attempt, one is refused for good, one goes out on its retry
    const parkedA = await retriedDelivery(endpoint, rule, 'failed');
    const parkedB = await retriedDelivery(endpoint, rule, 'failed');
    const refused = await deliverThrough(rule, 400);
    const recovered = await retriedDelivery(endpoint, rule, 'sent');
    // and one waits for a retry that is still scheduled
    const waiting = await putAlert(
      rule,
      101,
      {},
      {
        deliveries: {},
        deliveryRetries: {
          [key]: { attempts: 1, error: 'the endpoint answered 503', at: since, nextAttemptAt: new Date(Date.now() + HOUR).toISOString() },
        },
      },
    );
    await recordWebhookAttempt(endpoint.id, {
      alertId: waiting.alertId,
      event: 'speeding',
      at: new Date().toISOString(),
      status: 'failed',
      httpStatus: 503,
      latencyMs: 3,
      error: 'the endpoint answered 503',
    });
    expect((await getAlertItem(parkedA.alertId)).status).toBe('failed');
    expect((await getAlertItem(refused.alertId)).status).toBe('failed');
    expect(idsSince(0).get(messageId(refused))).toBeGreaterThan(0);
    expect(recovered.deliveries[key]?.status).toBe('sent');

    // the receiver is back
    catchUp();
    const before = receiver.requests.length;
    const accepted = await recover(tokens.root, endpoint.id, since);
    expect(accepted.response.status).toBe(202);
    expect(accepted.data).toMatchObject({
      webhookId: endpoint.id,
      state: 'running',
      since,
      found: 0,
      sent: 0,
      failed: 0,
      skipped: 0,
      startedAt: new Date(clock.value).toISOString(),
      finishedAt: null,
      lastError: null,
    });
    const jobId = accepted.data!.jobId;
    await drain();

    const done = await progress(tokens.root, endpoint.id, jobId);
    expect(done.response.status).toBe(200);
    expect(done.data).toMatchObject({
      jobId,
      state: 'done',
      found: 4,
      sent: 3,
      failed: 0,
      skipped: 1,
      lastError: null,
      finishedAt: expect.any(String),
    });
    expect(idsSince(before)).toEqual(new Map([parkedA, parkedB, refused].map((alert) => [messageId(alert), 1])));
    for (const request of receiver.requests.slice(before)) {
      const original = receiver.requests.find((earlier) => earlier.headers['webhook-id'] === request.headers['webhook-id']);
      expect(request.body).toBe(original!.body);
    }
    for (const alert of [parkedA, parkedB, refused]) {
      expect((await getAlertItem(alert.alertId)).deliveries).toMatchObject({ [key]: { status: 'sent', attempts: expect.any(Number) } });
    }
    expect((await getAlertItem(refused.alertId)).status).toBe('delivered');
    expect((await getAlertItem(waiting.alertId)).deliveries).toEqual({});
    expect((await getAlertItem(beforeOutage.alertId)).deliveries).toMatchObject({ [key]: { status: 'failed' } });
    const log = await api.POST('/api/v3/webhooks/{id}/deliveries', {
      headers: session(tokens.root),
      params: { path: { id: endpoint.id } },
      body: { status: 'succeeded' },
    });
    expect(
      log.data?.items
        .filter((item) => item.at >= done.data!.startedAt)
        .map((item) => item.alertId)
        .sort(),
    ).toEqual([parkedA, parkedB, refused].map((alert) => alert.alertId).sort());

    // what went out is not recovered again; the alert still waiting for its retry is still left to it
    clock.advance(MINUTE);
    const again = await recover(tokens.root, endpoint.id, since);
    expect(again.response.status).toBe(202);
    const sent = receiver.requests.length;
    await drain();
    expect((await progress(tokens.root, endpoint.id, again.data!.jobId)).data).toMatchObject({ state: 'done', found: 1, sent: 0, skipped: 1 });
    expect(receiver.requests.length).toBe(sent);
  });

  it('runs in steps, and sends nothing twice when a step is queued twice or comes back after the job moved on', async () => {
    const endpoint = await endpointOf(tenants.root.agentId);
    const rule = await putRule({ parentId: tenants.root.agentId, toClient: true });
    const since = new Date(Date.now() - 10 * MINUTE).toISOString();
    const alerts = await failedDeliveries(endpoint, rule, RECOVERY_STEP_ENTRIES + 10);

    catchUp();
    const before = receiver.requests.length;
    const accepted = await recover(tokens.root, endpoint.id, since);
    expect(accepted.response.status).toBe(202);
    const step = { jobId: accepted.data!.jobId, clientId: tenants.root.agentId, endpointId: endpoint.id };
    // a second copy of the first step, handed to the deliver function in the same batch as the first
    await enqueue({ webhookRecover: { ...step, step: 0 } });
    await drain();
    // late copies of both steps, after the job is done
    await enqueue({ webhookRecover: { ...step, step: 0 } });
    await enqueue({ webhookRecover: { ...step, step: 1 } });
    await drain();

    const ids = idsSince(before);
    expect(ids.size).toBe(alerts.length);
    for (const alert of alerts) expect(ids.get(webhookMessageId(alert.alertId, endpoint.id)), alert.alertId).toBe(1);
    expect((await progress(tokens.root, endpoint.id, step.jobId)).data).toMatchObject({
      state: 'done',
      found: alerts.length,
      sent: alerts.length,
      failed: 0,
      skipped: 0,
    });
  });

  it('queues the next step again when a step moved the job on but was cut short before queuing it', async () => {
    const endpoint = await endpointOf(tenants.root.agentId);
    const rule = await putRule({ parentId: tenants.root.agentId, toClient: true });
    const alerts = await failedDeliveries(endpoint, rule, RECOVERY_STEP_ENTRIES + 5);
    catchUp();
    const before = receiver.requests.length;
    const accepted = await recover(tokens.root, endpoint.id, new Date(Date.now() - 10 * MINUTE).toISOString());
    const jobId = accepted.data!.jobId;
    const queueUrl = process.env.DELIVERIES_QUEUE_URL;
    // the first step runs, moves the job on, and cannot queue the next: its message comes back
    vi.stubEnv('DELIVERIES_QUEUE_URL', `${queueUrl}-gone`);
    try {
      expect(await pollOnce({ queueUrl: harness.emulators.queues.deliveries, handler, functionName: 'deliver', visibilityTimeoutSeconds: 0 })).toBe(
        1,
      );
    } finally {
      vi.stubEnv('DELIVERIES_QUEUE_URL', queueUrl);
    }
    expect((await progress(tokens.root, endpoint.id, jobId)).data).toMatchObject({
      state: 'running',
      found: RECOVERY_STEP_ENTRIES,
      sent: RECOVERY_STEP_ENTRIES,
    });
    await drain();
    expect((await progress(tokens.root, endpoint.id, jobId)).data).toMatchObject({ state: 'done', found: alerts.length, sent: alerts.length });
    const ids = idsSince(before);
    expect(ids.size).toBe(alerts.length);
    expect([...ids.values()].every((count) => count === 1)).toBe(true);
  });

  it('counts a re-send that still fails, with its error, and leaves the alert as it was', async () => {
    const endpoint = await endpointOf(tenants.root.agentId);
    const rule = await putRule({ parentId: tenants.root.agentId, toClient: true });
    const since = new Date().toISOString();
    await sleep(5);
    const refused = await deliverThrough(rule, 400);
    catchUp();
    const accepted = await recover(tokens.root, endpoint.id, since);
    receiver.script(503);
    await drain();
    expect((await progress(tokens.root, endpoint.id, accepted.data!.jobId)).data).toMatchObject({
      state: 'done',
      found: 1,
      sent: 0,
      failed: 1,
      lastError: `alert ${refused.alertId}: the endpoint answered 503 (a server error on its side)`,
    });
    expect((await getAlertItem(refused.alertId)).deliveries).toMatchObject({ [`webhook:${endpoint.id}`]: { status: 'failed', attempts: 1 } });
  });

  it("answers 404 for another tenant's endpoint and job, 403 to a read-only user, and sends nothing for them", async () => {
    const endpoint = await endpointOf(tenants.root.agentId);
    const other = await endpointOf(tenants.root.agentId);
    // a sibling's alert named in the endpoint's log, as if it were forged: the job must not send it
    const [foreignAlert] = await failedDeliveries(endpoint, await putRule({ parentId: tenants.sibling.agentId, toClient: true }), 1);
    catchUp();
    const since = new Date(clock.value - 10 * MINUTE).toISOString();
    const before = receiver.requests.length;
    const accepted = await recover(tokens.root, endpoint.id, since);
    expect(accepted.response.status).toBe(202);
    const jobId = accepted.data!.jobId;

    // the sibling tenant replays the endpoint's and the job's ids
    const foreign = await recover(tokens.sibling, endpoint.id, since);
    expect(foreign.response.status).toBe(404);
    expect((await progress(tokens.sibling, endpoint.id, jobId)).response.status).toBe(404);
    // a client below sees neither its parent's endpoint nor its job
    expect((await recover(tokens.child, endpoint.id, since)).response.status).toBe(404);
    expect((await progress(tokens.child, endpoint.id, jobId)).response.status).toBe(404);
    // a job read through another endpoint of the same client, and an unknown job
    expect((await progress(tokens.root, other.id, jobId)).response.status).toBe(404);
    expect((await progress(tokens.root, endpoint.id, randomUUID())).response.status).toBe(404);
    // the sibling's own endpoint, with the root's job id
    const siblings = await endpointOf(tenants.sibling.agentId);
    expect((await progress(tokens.sibling, siblings.id, jobId)).response.status).toBe(404);

    const readOnly = await recover(tokens.readOnly, endpoint.id, since);
    expect(readOnly.response.status).toBe(403);
    // a read-only user may follow a job of its client
    expect((await progress(tokens.readOnly, endpoint.id, jobId)).response.status).toBe(200);
    // only the root's one job was queued, and it sent nothing
    expect(await drain()).toBe(1);
    expect((await progress(tokens.root, endpoint.id, jobId)).data).toMatchObject({ state: 'done', found: 0 });
    expect(receiver.requests.length).toBe(before);
    expect((await getAlertItem(foreignAlert!.alertId)).deliveries).toMatchObject({ [`webhook:${endpoint.id}`]: { status: 'failed' } });
  });

  it('answers 409 naming the running job, and for a disabled endpoint', async () => {
    const endpoint = await endpointOf(tenants.root.agentId);
    catchUp();
    const since = new Date(clock.value - MINUTE).toISOString();
    const first = await recover(tokens.root, endpoint.id, since);
    expect(first.response.status).toBe(202);
    const second = await recover(tokens.root, endpoint.id, since);
    expect(second.response.status).toBe(409);
    expect(second.error?.message).toContain(first.data!.jobId);
    await drain();
    expect((await recover(tokens.root, endpoint.id, since)).response.status).toBe(202);
    await drain();

    await updateWebhook(tenants.root.agentId, endpoint.id, { enabled: false, disabledAt: new Date().toISOString(), disabledReason: 'test' });
    const disabled = await recover(tokens.root, endpoint.id, since);
    expect(disabled.response.status).toBe(409);
    expect(disabled.error?.message).toContain('enable it');
    expect(await drain()).toBe(0);
  });

  it('answers 400 naming since when it is missing, malformed, in the future or older than the delivery log, and unknown fields', async () => {
    const endpoint = await endpointOf(tenants.root.agentId);
    catchUp();
    const path = `/api/v3/webhooks/${endpoint.id}/recover`;
    const cases: Array<[unknown, string]> = [
      [{}, 'since'],
      [{ since: 'yesterday' }, 'since'],
      [{ since: new Date(clock.value + MINUTE).toISOString() }, 'since'],
      [{ since: new Date(clock.value - 8 * 24 * HOUR).toISOString() }, 'since'],
      [{ since: new Date(clock.value - MINUTE).toISOString(), from: '2026-11-25T00:00:00.000Z' }, 'from'],
    ];
    for (const [body, field] of cases) {
      // the typed client cannot send a malformed or unknown field
      const answer = await rawApi({ method: 'POST', path, token: tokens.root, body });
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(
        (answer.body as { issues: Array<{ path: string }> }).issues.map((issue) => issue.path),
        JSON.stringify(body),
      ).toEqual([field]);
    }
    // six days ago is within the log's seven
    expect((await recover(tokens.root, endpoint.id, new Date(clock.value - 6 * 24 * HOUR).toISOString())).response.status).toBe(202);
    expect(await drain()).toBe(1);
  });

  it('replaces a running job that made no progress for an hour, which then reads failed', async () => {
    const endpoint = await endpointOf(tenants.root.agentId);
    catchUp();
    const since = new Date(clock.value - MINUTE).toISOString();
    const lost = await recover(tokens.root, endpoint.id, since);
    expect(lost.response.status).toBe(202);
    // its step does not run for an hour (its message stays on the queue); the session ends meanwhile
    clock.advance(HOUR + MINUTE);
    tokens.root = await login(api, tenants.root);
    const replacing = await recover(tokens.root, endpoint.id, since);
    expect(replacing.response.status).toBe(202);
    const failed = {
      state: 'failed',
      finishedAt: new Date(clock.value).toISOString(),
      lastError: expect.stringContaining('stopped making progress'),
    };
    expect((await progress(tokens.root, endpoint.id, lost.data!.jobId)).data).toMatchObject(failed);
    // the lost job's step, run at last, does nothing more
    expect(await drain()).toBe(2);
    expect((await progress(tokens.root, endpoint.id, lost.data!.jobId)).data).toMatchObject(failed);
    expect((await progress(tokens.root, endpoint.id, replacing.data!.jobId)).data).toMatchObject({ state: 'done' });
  });

  it('answers 429 with Retry-After past the hourly jobs of a client', async () => {
    vi.stubEnv('LIMIT_WEBHOOK_RECOVERIES_PER_CLIENT_PER_HOUR', '2');
    const [first, second, third] = [
      await endpointOf(tenants.child.agentId),
      await endpointOf(tenants.child.agentId),
      await endpointOf(tenants.child.agentId),
    ];
    // the API's clock stands still, so the three requests share an hour; a test before moved it on past the session
    catchUp();
    tokens.child = await login(api, tenants.child);
    const nextHour = (Math.floor(clock.value / HOUR) + 1) * HOUR;
    const since = new Date(clock.value - MINUTE).toISOString();
    expect((await recover(tokens.child, first!.id, since)).response.status).toBe(202);
    expect((await recover(tokens.child, second!.id, since)).response.status).toBe(202);
    const refused = await recover(tokens.child, third!.id, since);
    expect(refused.response.status).toBe(429);
    expect(Number(refused.response.headers.get('retry-after'))).toBe(Math.ceil((nextHour - clock.value) / 1000));
    expect(await drain()).toBe(2);
    // the API's clock moves an hour on: the session ends meanwhile (30 minutes without a request)
    clock.advance(HOUR);
    tokens.child = await login(api, tenants.child);
    expect((await recover(tokens.child, third!.id, since)).response.status).toBe(202);
  });
});
