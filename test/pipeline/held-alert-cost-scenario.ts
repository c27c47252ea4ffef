import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/dynamodb';
import { resourcesConfig } from '../../shared/config';
import { runAlertDuePass } from '../../shared/sweep/alert-due-pass';
import { RETRY_WAITS_SECONDS } from '../../shared/delivery/retry-backoff';
import { MAX_QUEUE_WAIT_MS } from '../../shared/delivery/deliver-alert';
import { buildAlertItem } from '../../shared/store/alerts/alerts-store';
import { createAgent } from '../../shared/store/directory-store';
import { registerVehicle } from '../../shared/store/vehicle-registry';
import { createWebhook } from '../../shared/store/webhooks-store';
import { countCapacity } from '../support/count-capacity';
import { captureOutput } from '../support/replay-output';
import { getAlertItem, putRule } from '../delivery/support/fixtures';
import { SimulatedDelivery } from '../delivery/support/simulated-delivery';
import { heldPartition } from '../../shared/store/keys';

/**
 * What an alert costs in DynamoDB units while it waits for a long retry, per hour it waits: alerts whose one
 * webhook target answers 503 throughout, through the real deliver function and the sweep's real due pass on
 * DynamoDB Local, on a simulated clock, over every wait of the schedule longer than the queue holds (30 min, 2 h,
 * 5 h, 10 h, 10 h). Each alert has a webhook endpoint of its own, so that it keeps its own schedule: its fifth
 * failure opens the endpoint's circuit, and its later attempts go out as the circuit's probe when they come due
 * (spending them, as any scheduled attempt), never held behind another alert's. Counted per wait: the deliver
 * function's scheduling write (the alert's own write with its retry record, and the due index entry), and the due
 * pass that hands the alert back (its share of the due index's queries, the read of the alert, the write that marks
 * it handed back); not the attempts themselves (claim, reads of the rule and recipients, the send, the circuit's
 * health). Billed units, as ReturnConsumedCapacity reports them. The jitter is held at its middle, so every alert
 * waits exactly the schedule's nominal waits and one due pass hands them all back, as the sweep does for the alerts
 * due in its minute.
 */
export interface HeldAlertCost {
  alerts: number;
  /** One entry per long wait: its nominal length, and per alert the units of its scheduling write and of its due pass. */
  waits: { seconds: number; scheduleUnits: number; duePassUnits: number }[];
  unitsPerHour: number;
}

const T0 = Date.parse('2026-05-04T08:00:00.000Z');
const FIRST_VEHICLE = 70_001;
/**
 * The deliver function's write that puts an alert on the due index for its retry (alert-store waitForDue), and
 * the one that would list it as held by an open circuit (held-targets listHeldAlert), should it ever be held.
 */
const isSchedulingWrite = (command: string, input: Record<string, unknown>) =>
  (command === 'PutItem' && String((input.Item as { pk?: unknown } | undefined)?.pk).startsWith(heldPartition(''))) ||
  (command === 'UpdateItem' && /\bretryAt = :retryAt\b/.test(String(input.UpdateExpression)));

export async function measureHeldAlertCost(options: { alerts: number }): Promise<HeldAlertCost> {
  const server = createServer((_request, response) => response.writeHead(503).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const allowPrivate = process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS;
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
  const random = Math.random;
  Math.random = () => 0.5;
  const sim = new SimulatedDelivery(resourcesConfig().DELIVERIES_QUEUE_URL, T0);
  const scheduling = countCapacity(documentClient(), { only: isSchedulingWrite });
  const all = countCapacity();
  const output = captureOutput({ silent: true });
  try {
    const alertIds: string[] = [];
    for (let index = 0; index < options.alerts; index++) {
      const client = await createAgent({ name: `Held Alerts Haulage ${index}` });
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/down/${index}`;
      await createWebhook({ parentId: client.agentId, url, description: '' }, T0);
      const rule = await putRule({ parentId: client.agentId, toClient: true, stored: true, name: 'Speeding over 90', settings: { limit: '90' } });
      const vehicleId = FIRST_VEHICLE + index;
      await registerVehicle({ vehicleId, name: `Truck ${vehicleId}`, parentId: client.agentId }, { allowMove: true });
      const event = {
        kind: 'speeding',
        time: new Date(T0 - 1000).toISOString(),
        latitude: 55.75,
        longitude: 37.62,
        speed: 121,
        values: { limit: 90, maxSpeed: 125 },
      };
      const item = buildAlertItem(rule, vehicleId, event, T0);
      await documentClient().send(new PutCommand({ TableName: resourcesConfig().ALERTS_TABLE, Item: item }));
      await sim.enqueue({ alertId: item.alertId });
      alertIds.push(item.alertId);
    }
    // the first attempts and the waits the queue holds (5 s, 5 min) are not measured
    scheduling.reset();
    await sim.settle();

    const waits: HeldAlertCost['waits'] = [];
    for (const seconds of RETRY_WAITS_SECONDS.filter((wait) => wait * 1000 > MAX_QUEUE_WAIT_MS)) {
      const retryAts = new Set(await Promise.all(alertIds.map(async (alertId) => String((await getAlertItem(alertId)).retryAt))));
      if (retryAts.size !== 1) throw new Error(`the alerts should all wait for one time, not ${[...retryAts].join(', ')}`);
      const scheduleUnits = scheduling.billedWriteUnits() + scheduling.readUnits();
      sim.now = Date.parse([...retryAts][0]!);
      all.reset();
      const { retried } = await runAlertDuePass(sim.now);
      const duePassUnits = all.billedWriteUnits() + all.readUnits();
      if (retried.length !== alertIds.length) throw new Error(`the due pass handed back ${retried.length} of ${alertIds.length} alerts`);
      waits.push({ seconds, scheduleUnits: scheduleUnits / alertIds.length, duePassUnits: duePassUnits / alertIds.length });
      scheduling.reset();
      await sim.drain();
    }
    const given = await Promise.all(alertIds.map(async (alertId) => (await getAlertItem(alertId)).status));
    if (given.some((status) => status !== 'failed')) throw new Error('the alerts should be given up on after the last attempt');
    const hours = waits.reduce((sum, wait) => sum + wait.seconds / 3_600, 0);
    const units = waits.reduce((sum, wait) => sum + wait.scheduleUnits + wait.duePassUnits, 0);
    return { alerts: alertIds.length, waits, unitsPerHour: units / hours };
  } finally {
    output.restore();
    scheduling.detach();
    all.detach();
    sim.stop();
    Math.random = random;
    if (allowPrivate === undefined) delete process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS;
    else process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = allowPrivate;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
