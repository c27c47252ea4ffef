import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type RunningWebhookReceiver } from '../../infra/local/webhook-receiver';
import { logger } from '../../shared/observability/logger';
import { useDeliverHarness } from '../support/deliver-harness';
import { captureOutput, type CapturedOutput } from '../support/replay-output';
import { login, seedTenants, session, typedApiClient, type TypedApi } from '../api/support';
import { putAlert, putRule } from '../delivery/support/fixtures';
import { SimulatedDelivery } from '../delivery/support/simulated-delivery';

/**
 * A webhook secret is answered once and never logged: registration, listing, rotation and deliveries that succeed, fail
 * for a passing reason, fail for good and disable the endpoint all run with the logger at DEBUG while stdout,
 * stderr and the console are captured; the secret appears nowhere in them.
 */
describe('webhook secrets in logs', () => {
  const harness = useDeliverHarness({ name: 'webhook-secret-logs', env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  let receiver: RunningWebhookReceiver;
  let api: TypedApi;
  let output: CapturedOutput;
  let level: string;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    api = typedApiClient();
    level = logger.getLevelName();
    logger.setLogLevel('DEBUG');
    output = captureOutput({ silent: true });
  });
  afterAll(async () => {
    output.restore();
    logger.setLogLevel(level as Parameters<typeof logger.setLogLevel>[0]);
    await receiver.stop();
  });

  it('registers, lists and delivers through every outcome without writing the secret anywhere', async () => {
    const tenants = await seedTenants('webhook-logs');
    const token = await login(api, tenants.root);
    const created = await api.POST('/api/v3/webhooks', { headers: session(token), body: { url: `${receiver.url}erp` } });
    expect(created.response.status).toBe(200);
    const secret = created.data!.secret;
    expect((await api.GET('/api/v3/webhooks', { headers: session(token) })).response.status).toBe(200);
    // rotated: deliveries are signed with both secrets during the overlap
    const rotated = await api.POST('/api/v3/webhooks/{id}/rotate-secret', {
      headers: session(token),
      params: { path: { id: created.data!.id } },
      body: {},
    });
    expect(rotated.response.status).toBe(200);
    const newSecret = rotated.data!.secret;
    receiver.secret = newSecret;

    const rule = await putRule({ parentId: tenants.root.agentId, toClient: true });
    receiver.script(503, 200, 400, 410);
    // the retry's wait passes by a simulated clock
    const sim = new SimulatedDelivery(harness.emulators.queues.deliveries);
    try {
      for (const vehicleId of [9601, 9602, 9603]) await sim.enqueue({ alertId: (await putAlert(rule, vehicleId)).alertId });
      await sim.settle();
    } finally {
      sim.stop();
    }

    expect(receiver.attempts.map((attempt) => attempt.status)).toEqual([503, 200, 400, 410]);
    const text = output.text();
    // the run did log: a retry, a permanent failure, and the metrics of the channel
    expect(text).toContain('delivery to be retried');
    expect(text).toContain('delivery failed for good');
    expect(text).toContain('"channel":"webhook"');
    for (const written of [secret, newSecret]) {
      expect(text).not.toContain(written);
      expect(text).not.toContain(written.slice('whsec_'.length, 'whsec_'.length + 16));
    }
  });
});
