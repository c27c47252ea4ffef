import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { startWebhookReceiver, type RunningWebhookReceiver } from '../../infra/local/webhook-receiver';
import { FAILURES_TO_OPEN } from '../../shared/delivery/circuit-breaker';
import { deliverAlert } from '../../shared/delivery/deliver-alert';
import { DeliveryStats } from '../../shared/delivery/delivery-stats';
import { channelSenders } from '../../shared/delivery/senders';
import { createWebhook, deleteWebhook } from '../../shared/store/webhooks-store';
import { startTestEmulators } from '../support/emulators';
import { putAlert, putRule } from '../delivery/support/fixtures';
import { TestClock, login, seedTenants, session, typedApiClient, type TypedApi } from '../api/support';

const T0 = Date.parse('2026-03-01T08:00:00.000Z');
const MINUTE = 60_000;

/** A webhook endpoint's health in the API, as real deliveries to a failing receiver leave it. */
describe('webhook endpoint health', () => {
  let emulators: Emulators;
  let receiver: RunningWebhookReceiver;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let api: TypedApi;
  const clock = new TestClock(T0);

  beforeAll(async () => {
    emulators = await startTestEmulators('webhook-notice');
    process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
    receiver = await startWebhookReceiver();
    tenants = await seedTenants('notice');
    api = typedApiClient({ now: clock.now });
  });
  afterAll(async () => {
    delete process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS;
    await Promise.all([emulators.stop(), receiver.stop()]);
  });
  beforeEach(() => {
    receiver.attempts.length = 0;
  });

  const attempt = (alertId: string) =>
    deliverAlert(alertId, {
      senders: channelSenders,
      stats: new DeliveryStats(),
      messageId: `message-${alertId}`,
      receiveCount: 1,
      maxReceiveCount: 100,
      now: clock.now,
    });
  /** An endpoint of the client whose receiver answered 503 five times in a row, at the clock's time: its circuit is open. */
  async function failingEndpoint(clientId: string, name: string, vehicleId: number) {
    const endpoint = await createWebhook(
      { parentId: clientId, url: `${receiver.url}${name}?token=receiver-side-token`, description: name },
      clock.value,
    );
    receiver.secret = endpoint.secret;
    const rule = await putRule({ parentId: clientId, toClient: true, stored: true });
    receiver.script(...Array.from({ length: FAILURES_TO_OPEN }, () => 503));
    for (let index = 0; index < FAILURES_TO_OPEN; index++) await attempt((await putAlert(rule, vehicleId)).alertId);
    return { endpoint, rule, openSince: new Date(clock.value).toISOString() };
  }
  const get = (token: string | undefined, id: string) => api.GET('/api/v3/webhooks/{id}', { headers: session(token), params: { path: { id } } });

  it("answers an endpoint's health in GET /api/v3/webhooks/{id} and its listings; another tenant gets 404", async () => {
    clock.value = T0;
    const rootToken = await login(api, tenants.root);
    const fresh = await createWebhook({ parentId: tenants.root.agentId, url: `${receiver.url}fresh`, description: 'fresh' }, clock.value);
    const answered = await get(rootToken, fresh.id);
    expect(answered.response.status).toBe(200);
    expect(answered.data?.health).toEqual({ lastSuccessAt: null, lastFailureAt: null, consecutiveFailures: 0, lastError: null, openSince: null });
    expect(JSON.stringify(answered.data)).not.toContain(fresh.secret);
    // alone, so that the failing endpoint below is the client's only one
    await deleteWebhook(tenants.root.agentId, fresh.id);

    clock.advance(MINUTE);
    const { endpoint, openSince } = await failingEndpoint(tenants.root.agentId, 'health-shown', 101);
    const failing = await get(rootToken, endpoint.id);
    expect(failing.data?.health).toEqual({
      lastSuccessAt: null,
      lastFailureAt: openSince,
      consecutiveFailures: FAILURES_TO_OPEN,
      lastError: 'the endpoint answered 503 (a server error on its side)',
      openSince,
    });
    const listed = await api.GET('/api/v3/webhooks', { headers: session(rootToken) });
    expect(listed.data?.find((each) => each.id === endpoint.id)?.health.openSince).toBe(openSince);

    for (const other of [tenants.sibling, tenants.child]) {
      const refused = await get(await login(api, other), endpoint.id);
      expect(refused.response.status, other.login).toBe(404);
      expect(refused.error).toEqual({ error: 'NotFound', message: `webhook ${endpoint.id} not found` });
    }
    expect((await get(undefined, endpoint.id)).response.status).toBe(401);
    expect((await get(rootToken, `${tenants.root.agentId}.AAAAAAAAAAAAAAAAAAAAAA`)).response.status).toBe(404);
    const malformed = await get(rootToken, 'not-an-id');
    expect(malformed.response.status).toBe(400);
    expect(malformed.error?.issues?.[0]?.path).toBe('id');
    await deleteWebhook(tenants.root.agentId, endpoint.id);
  });
});
