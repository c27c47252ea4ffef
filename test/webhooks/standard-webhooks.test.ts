import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { documentClient } from '../../shared/aws/dynamodb';
import { resourcesConfig } from '../../shared/config';
import type { SqsHandler } from '../../infra/local/sqs-poller';
import { startWebhookReceiver, type RunningWebhookReceiver } from '../../infra/local/webhook-receiver';
import { verifySignature } from '../../shared/channels/webhook/signature';
import { createAgent } from '../../shared/store/directory-store';
import { createWebhook, rotateWebhookSecret } from '../../shared/store/webhooks-store';
import { useDeliverHarness } from '../support/deliver-harness';
import { getAlertItem, putAlert, putRule } from '../delivery/support/fixtures';
import { SimulatedDelivery } from '../delivery/support/simulated-delivery';
import { webhookKeys } from '../../shared/store/keys';

type Deliveries = Record<string, { status: string; attempts: number; error?: string }>;
type Request = { headers: IncomingHttpHeaders; body: string };
const HOUR_MS = 3_600_000;

/** The `webhook-*` headers of a request, as `Webhook.verify` takes them. */
const standardHeaders = (request: Request) => ({
  'webhook-id': String(request.headers['webhook-id']),
  'webhook-timestamp': String(request.headers['webhook-timestamp']),
  'webhook-signature': String(request.headers['webhook-signature']),
});
const verifies = (secret: string, request: Request) => {
  try {
    new Webhook(secret).verify(request.body, standardHeaders(request));
    return true;
  } catch {
    return false;
  }
};

/**
 * Standard Webhooks end to end: the real deliver handler on the emulators posts to a loopback receiver, and each
 * delivery is checked with the `standardwebhooks` package's own `Webhook.verify`: signatures, a secret
 * rotation's overlap, the legacy `fleetwatch-v1` scheme, and the per-endpoint event filter.
 */
describe('Standard Webhooks deliveries', () => {
  // the receiver runs on this machine, over plain HTTP: allowed only behind WEBHOOK_ALLOW_PRIVATE_TARGETS
  const harness = useDeliverHarness({ name: 'standard-webhooks', env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  let receiver: RunningWebhookReceiver;
  const { handler } = harness;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver.stop();
  });
  beforeEach(() => {
    receiver.attempts.length = 0;
    receiver.requests.length = 0;
    receiver.received.length = 0;
  });

  async function deliver(alertId: string, deliverHandler: SqsHandler = handler): Promise<void> {
    await harness.enqueue(alertId);
    await harness.drainDeliveries({ rounds: 10, handler: deliverHandler });
  }

  async function client(name: string) {
    return (await createAgent({ name })).agentId;
  }

  it('signs each delivery so that Webhook.verify accepts it, with one webhook-id per alert and endpoint, kept on redelivery', async () => {
    const clientId = await client('Standard Freight');
    const first = await createWebhook({ parentId: clientId, url: `${receiver.url}first`, description: '' }, Date.now());
    const second = await createWebhook({ parentId: clientId, url: `${receiver.url}second`, description: '' }, Date.now());
    const rule = await putRule({ parentId: clientId, toClient: true });
    const alert = await putAlert(rule, 9601);
    // the first attempt fails and is retried (its wait passed by a simulated clock); the receiver holds one
    // secret, so the answers are scripted
    receiver.script(503, 200, 200);
    const sim = new SimulatedDelivery(harness.emulators.queues.deliveries);
    try {
      await sim.enqueue({ alertId: alert.alertId });
      await sim.settle();
    } finally {
      sim.stop();
    }

    const requests = receiver.requests as Request[];
    const signedWith = (secret: string) => requests.filter((request) => verifies(secret, request));
    expect(signedWith(first.secret).length).toBeGreaterThanOrEqual(1);
    expect(signedWith(second.secret).length).toBeGreaterThanOrEqual(1);
    expect(requests).toHaveLength(3);
    const payload = new Webhook(first.secret).verify(signedWith(first.secret)[0]!.body, standardHeaders(signedWith(first.secret)[0]!));
    expect(payload).toMatchObject({ type: 'alert', alertId: alert.alertId });
    for (const request of requests) expect(request.headers['x-fleetwatch-signature']).toBeUndefined();

    const idsOf = (secret: string) => new Set(signedWith(secret).map((request) => request.headers['webhook-id']));
    expect(idsOf(first.secret).size).toBe(1);
    expect(idsOf(second.secret).size).toBe(1);
    expect([...idsOf(first.secret)][0]).not.toBe([...idsOf(second.secret)][0]);
    expect(requests.filter((request) => verifies(first.secret, request) || verifies(second.secret, request))).toHaveLength(3);
    const deliveries = (await getAlertItem(alert.alertId)).deliveries as Deliveries;
    expect(deliveries[`webhook:${first.id}`]?.status).toBe('sent');
    expect(deliveries[`webhook:${second.id}`]?.status).toBe('sent');
  });

  it('rotates a secret with an overlap: both secrets verify a delivery during it, only the new one after it', async () => {
    const clientId = await client('Rotating Logistics');
    const endpoint = await createWebhook({ parentId: clientId, url: `${receiver.url}rotating`, description: '' }, Date.now());
    const rotated = (await rotateWebhookSecret(clientId, endpoint.id, Date.now() + 24 * HOUR_MS))!;
    expect(rotated.secret).not.toBe(endpoint.secret);
    const rule = await putRule({ parentId: clientId, toClient: true });

    const during = await putAlert(rule, 9602);
    await deliver(during.alertId);
    const [overlapping] = receiver.requests as Request[];
    expect(String(overlapping!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifies(endpoint.secret, overlapping!)).toBe(true);
    expect(verifies(rotated.secret, overlapping!)).toBe(true);

    // a deliver function whose clock is past the overlap's end
    const later = harness.createHandler({ clock: () => Date.now() + 25 * HOUR_MS });
    receiver.requests.length = 0;
    const after = await putAlert(rule, 9602);
    await deliver(after.alertId, later);
    const [single] = receiver.requests as Request[];
    expect(String(single!.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifies(rotated.secret, single!)).toBe(true);
    expect(verifies(endpoint.secret, single!)).toBe(false);
  });

  it('keeps X-Fleetwatch-Signature for an endpoint stored before Standard Webhooks (no signatureScheme)', async () => {
    const clientId = await client('Legacy Haulage');
    const legacySecret = `whsec_${randomBytes(32).toString('base64url')}`;
    const id = `${clientId}.${randomBytes(16).toString('base64url')}`;
    await documentClient().send(
      new PutCommand({
        TableName: resourcesConfig().DIRECTORY_TABLE,
        Item: {
          ...webhookKeys.endpoint(clientId, id),
          id,
          parentId: clientId,
          url: `${receiver.url}legacy`,
          description: '',
          enabled: true,
          createdAt: new Date().toISOString(),
          secret: legacySecret,
        },
      }),
    );
    receiver.secret = legacySecret;
    const rule = await putRule({ parentId: clientId, toClient: true });
    const alert = await putAlert(rule, 9603);
    await deliver(alert.alertId);

    const [request] = receiver.requests as Request[];
    expect(request!.headers['webhook-signature']).toBeUndefined();
    expect(verifySignature(String(request!.headers['x-fleetwatch-signature']), request!.body, legacySecret, Date.now())).toBe(true);
    expect(receiver.received.map((entry) => entry.alertId)).toEqual([alert.alertId]);
  });

  it('sends an endpoint only the events and rule types it asked for, recording the others as skipped', async () => {
    const clientId = await client('Filtered Transport');
    const exits = await createWebhook({ parentId: clientId, url: `${receiver.url}exits`, description: '', events: ['zoneExit'] }, Date.now());
    const speeding = await createWebhook({ parentId: clientId, url: `${receiver.url}speeding`, description: '', ruleTypes: [2] }, Date.now());
    const zones = await createWebhook({ parentId: clientId, url: `${receiver.url}zones`, description: '', ruleTypes: [0] }, Date.now());
    receiver.secret = speeding.secret;
    const rule = await putRule({ parentId: clientId, toClient: true, type: 2 });
    const alert = await putAlert(rule, 9604, { kind: 'speeding' });
    await deliver(alert.alertId);

    const requests = receiver.requests as Request[];
    expect(requests).toHaveLength(1);
    expect(verifies(speeding.secret, requests[0]!)).toBe(true);
    const deliveries = (await getAlertItem(alert.alertId)).deliveries as Deliveries;
    expect(deliveries[`webhook:${speeding.id}`]?.status).toBe('sent');
    expect(deliveries[`webhook:${exits.id}`]).toMatchObject({ status: 'skipped', error: 'the endpoint does not take speeding events' });
    expect(deliveries[`webhook:${zones.id}`]).toMatchObject({ status: 'skipped', error: 'the endpoint does not take rules of type 2' });
    expect((await getAlertItem(alert.alertId)).status).toBe('delivered');
  });
});
