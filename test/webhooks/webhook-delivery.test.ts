import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type RunningWebhookReceiver } from '../../infra/local/webhook-receiver';
import { createAgent } from '../../shared/store/directory-store';
import { createWebhook, listWebhooks, listWebhooksWithSecrets } from '../../shared/store/webhooks-store';
import { webhookAlertPayloadSchema } from '../../shared/schemas/webhook';
import { useDeliverHarness } from '../support/deliver-harness';
import { getAlertItem, putAlert, putRule, putVehicle, PARENT_ID } from '../delivery/support/fixtures';
import { SimulatedDelivery } from '../delivery/support/simulated-delivery';

type Deliveries = Record<string, { status: string; attempts: number; error?: string }>;

/**
 * The webhook channel end to end: the real deliver handler, the deliveries queue on fauxqs, the alerts and
 * directory tables on DynamoDB Local, and a real local HTTP receiver that checks each signature and can be
 * scripted to fail and recover.
 */
describe('webhook deliveries', () => {
  // the receiver runs on this machine, over plain HTTP: allowed only behind WEBHOOK_ALLOW_PRIVATE_TARGETS
  const harness = useDeliverHarness({ name: 'webhook-delivery', env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  let receiver: RunningWebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver.stop();
  });
  beforeEach(() => {
    receiver.attempts.length = 0;
    receiver.received.length = 0;
  });

  const enqueue = (alertId: string) => harness.enqueue(alertId);
  async function drain(): Promise<void> {
    await harness.drainDeliveries({ rounds: 10 });
  }

  /** A client of its own with one endpoint at the receiver, whose secret the receiver then checks against. */
  async function clientWithEndpoint(name: string, path = name) {
    const client = await createAgent({ name });
    const endpoint = await createWebhook({ parentId: client.agentId, url: `${receiver.url}${path}`, description: name }, Date.now());
    receiver.secret = endpoint.secret;
    return { clientId: client.agentId, endpoint };
  }

  it('posts each alert once, signed, with the alert id as Idempotency-Key and the documented payload', async () => {
    const { clientId, endpoint } = await clientWithEndpoint('Signed Logistics');
    const rule = await putRule({ parentId: clientId, toClient: true, name: 'Speeding' });
    await putVehicle(501, 'Truck 501');
    const alert = await putAlert({ ...rule, parentId: clientId }, 9501);
    await enqueue(alert.alertId);
    await drain();

    expect(receiver.attempts).toEqual([{ idempotencyKey: alert.alertId, signatureValid: true, status: 200 }]);
    const [received] = receiver.received;
    expect(webhookAlertPayloadSchema.parse(received!.payload)).toEqual({
      type: 'alert',
      alertId: alert.alertId,
      createdAt: alert.createdAt,
      parentId: clientId,
      // an alert stored before severities carries its type's default
      severity: 'warning',
      rule: { id: rule.id, type: 2, name: 'Speeding' },
      vehicle: { id: 9501, name: 'Vehicle 9501' },
      event: { kind: 'speeding', time: alert.event.time, latitude: 55.7558, longitude: 37.6173, speed: 104, values: { limit: 90 } },
    });
    const item = await getAlertItem(alert.alertId);
    expect(item.status).toBe('delivered');
    expect((item.deliveries as Deliveries)[`webhook:${endpoint.id}`]).toMatchObject({ status: 'sent', attempts: 1 });

    // the same request again (a duplicate, or the outbox's re-enqueue): nothing more is posted
    await enqueue(alert.alertId);
    await drain();
    expect(receiver.attempts).toHaveLength(1);
  });

  it('carries the severity the alert was raised with, whatever the type default and the rule say now', async () => {
    const { clientId } = await clientWithEndpoint('Severity Haulage');
    // the rule now says info; each alert keeps what it was raised with
    const rule = await putRule({ parentId: clientId, toClient: true, name: 'Speeding', settings: { limit: '90', severity: 'info' } });
    const critical = await putAlert(rule, 9511, {}, { severity: 'critical' });
    const panic = await putAlert({ ...rule, type: 6 }, 9512, { kind: 'panic', values: {} });
    for (const alert of [critical, panic]) await enqueue(alert.alertId);
    await drain();

    const received = receiver.received.map((entry) => webhookAlertPayloadSchema.parse(entry.payload));
    const severityOf = (alertId: string) => received.find((payload) => payload.alertId === alertId)?.severity;
    expect(severityOf(critical.alertId)).toBe('critical');
    expect(severityOf(panic.alertId)).toBe('critical');
    expect(received.map((payload) => Object.keys(payload))).toEqual([
      ['type', 'alertId', 'createdAt', 'parentId', 'severity', 'rule', 'vehicle', 'event'],
      ['type', 'alertId', 'createdAt', 'parentId', 'severity', 'rule', 'vehicle', 'event'],
    ]);
  });

  it('retries a receiver that fails (503, then 429) through the queue until it recovers, posting the same signed alert', async () => {
    const { clientId, endpoint } = await clientWithEndpoint('Flaky Receiver Ltd');
    const rule = await putRule({ parentId: clientId, toClient: true });
    const alert = await putAlert(rule, 9502);
    receiver.script(503, 429);
    const sim = new SimulatedDelivery(harness.emulators.queues.deliveries);
    try {
      await sim.enqueue({ alertId: alert.alertId });
      expect(await sim.deliverOnce()).toBe(1);
      const afterFirst = await getAlertItem(alert.alertId);
      expect(afterFirst.status).toBe('pending');
      expect((afterFirst.deliveryRetries as Record<string, unknown>)[`webhook:${endpoint.id}`]).toMatchObject({
        attempts: 1,
        error: 'the endpoint answered 503 (a server error on its side)',
      });
      // each wait ends by the clock: about 5 s, then about 5 minutes
      for (let wait = 0; wait < 2; wait++) {
        sim.now = (await getAlertItem(alert.alertId)).nextAttemptAt as number;
        expect(await sim.drain()).toBe(1);
      }
    } finally {
      sim.stop();
    }

    expect(receiver.attempts.map((attempt) => attempt.status)).toEqual([503, 429, 200]);
    expect(receiver.attempts.every((attempt) => attempt.signatureValid && attempt.idempotencyKey === alert.alertId)).toBe(true);
    expect(receiver.received.map((entry) => entry.alertId)).toEqual([alert.alertId]);
    const settled = await getAlertItem(alert.alertId);
    expect(settled.status).toBe('delivered');
    expect((settled.deliveries as Deliveries)[`webhook:${endpoint.id}`]).toMatchObject({ status: 'sent', attempts: 3 });
  });

  it('waits on the queue: a failed attempt hides its request until its wait of about 5 s has passed', async () => {
    const { clientId } = await clientWithEndpoint('Backoff Freight');
    const rule = await putRule({ parentId: clientId, toClient: true });
    const alert = await putAlert(rule, 9503);
    receiver.script(500);
    const sim = new SimulatedDelivery(harness.emulators.queues.deliveries);
    try {
      await sim.enqueue({ alertId: alert.alertId });
      expect(await sim.deliverOnce()).toBe(1);
      // without the wait the poller's visibility timeout of 0 would hand the request out again at once
      expect(await sim.deliverOnce()).toBe(0);
      const [asked] = sim.askedWaits();
      expect(asked).toBeGreaterThanOrEqual(4);
      expect(asked).toBeLessThanOrEqual(6);
      sim.now += 3_000;
      expect(await sim.deliverOnce()).toBe(0);
      sim.now += 3_000;
      expect(await sim.deliverOnce()).toBe(1);
    } finally {
      sim.stop();
    }
    expect((await getAlertItem(alert.alertId)).status).toBe('delivered');
    expect(receiver.attempts.map((attempt) => attempt.status)).toEqual([500, 200]);
  });

  it('disables an endpoint that answers 410 and skips it for later alerts, with the reason', async () => {
    const { clientId, endpoint } = await clientWithEndpoint('Gone Transport');
    const rule = await putRule({ parentId: clientId, toClient: true });
    receiver.script(410);
    const first = await putAlert(rule, 9504);
    await enqueue(first.alertId);
    await drain();

    expect(receiver.attempts.map((attempt) => attempt.status)).toEqual([410]);
    expect((await getAlertItem(first.alertId)).deliveries).toMatchObject({
      [`webhook:${endpoint.id}`]: { status: 'failed', error: 'the endpoint answered 410 Gone' },
    });
    const [stored] = await listWebhooks(clientId);
    expect(stored).toMatchObject({ id: endpoint.id, enabled: false, disabledReason: 'the endpoint answered 410 Gone' });

    const second = await putAlert(rule, 9504);
    await enqueue(second.alertId);
    await drain();
    expect(receiver.attempts).toHaveLength(1);
    expect((await getAlertItem(second.alertId)).deliveries).toMatchObject({
      [`webhook:${endpoint.id}`]: { status: 'skipped', error: 'the endpoint is disabled (the endpoint answered 410 Gone)' },
    });
  });

  it('records any other 4xx as a permanent failure, not retried, and leaves the endpoint enabled', async () => {
    const { clientId, endpoint } = await clientWithEndpoint('Strict Parser Inc');
    const rule = await putRule({ parentId: clientId, toClient: true });
    receiver.script(422);
    const alert = await putAlert(rule, 9505);
    await enqueue(alert.alertId);
    await drain();

    expect(receiver.attempts).toHaveLength(1);
    const item = await getAlertItem(alert.alertId);
    expect(item.status).toBe('failed');
    expect((item.deliveries as Deliveries)[`webhook:${endpoint.id}`]).toMatchObject({
      status: 'failed',
      error: 'the endpoint answered 422 (it refused the request)',
    });
    expect((await listWebhooks(clientId))[0]?.enabled).toBe(true);
  });

  it('a receiver refuses a request signed with another secret (the check the receiver makes is real)', async () => {
    const { clientId } = await clientWithEndpoint('Rotated Secret Co');
    receiver.secret = 'whsec_not-the-endpoint-secret-at-all';
    const rule = await putRule({ parentId: clientId, toClient: true });
    const alert = await putAlert(rule, 9506);
    await enqueue(alert.alertId);
    await drain();
    expect(receiver.attempts.map((attempt) => ({ valid: attempt.signatureValid, status: attempt.status }))).toEqual([{ valid: false, status: 401 }]);
    expect(receiver.received).toEqual([]);
  });

  it("replays a cross-tenant attempt: only the rule's own client's endpoints are posted to, never another tenant's", async () => {
    // the victim registers an endpoint; the attacker's rule (toClient) raises alerts for its own vehicle
    const victim = await clientWithEndpoint('Victim Haulage', 'victim');
    const attacker = await createAgent({ name: 'Attacker Freight' });
    const attackerEndpoint = await createWebhook({ parentId: attacker.agentId, url: `${receiver.url}attacker`, description: '' }, Date.now());
    receiver.secret = attackerEndpoint.secret;
    const rule = await putRule({ parentId: attacker.agentId, toClient: true });
    const alert = await putAlert(rule, 9507);
    await enqueue(alert.alertId);
    await drain();

    expect(receiver.attempts).toHaveLength(1);
    expect(receiver.received.map((entry) => entry.payload.parentId)).toEqual([attacker.agentId]);
    const deliveries = (await getAlertItem(alert.alertId)).deliveries as Deliveries;
    expect(Object.keys(deliveries)).toEqual([`webhook:${attackerEndpoint.id}`]);
    expect(deliveries[`webhook:${victim.endpoint.id}`]).toBeUndefined();
    // and a rule of the victim's own client never reaches the attacker's endpoint
    const victimRule = await putRule({ parentId: victim.clientId, toClient: true });
    receiver.secret = victim.endpoint.secret;
    const victimAlert = await putAlert(victimRule, 9508);
    await enqueue(victimAlert.alertId);
    await drain();
    expect(Object.keys((await getAlertItem(victimAlert.alertId)).deliveries as Deliveries)).toEqual([`webhook:${victim.endpoint.id}`]);
  });

  it('posts nothing for a rule without toClient, and nothing to the fixtures client that has no endpoint', async () => {
    const { clientId } = await clientWithEndpoint('Quiet Rules Co');
    const rule = await putRule({ parentId: clientId, toClient: false });
    const alert = await putAlert(rule, 9509);
    const other = await putRule({ parentId: PARENT_ID, toClient: true });
    const otherAlert = await putAlert(other, 9510);
    await enqueue(alert.alertId);
    await enqueue(otherAlert.alertId);
    await drain();
    expect(receiver.attempts).toEqual([]);
    expect((await listWebhooksWithSecrets(PARENT_ID)).length).toBe(0);
  });
});
