import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DeleteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { documentClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import { lambdaContext, toSqsRecord } from '../../infra/local/sqs-poller';
import type { Emulators } from '../../infra/local/emulators';
import { notificationBodySchema } from '../../shared/schemas/notification';
import { createRule } from '../../shared/store/rules-store';
import { projectRules } from '../support/project-rules';
import { startTestEmulators } from '../support/emulators';
import { captureOutput } from '../support/replay-output';

/**
 * A panic button held down across several messages is one press, whatever the queue does with the messages:
 * a duplicate of a message from the middle of the press, or the press's messages arriving out of order, must
 * not raise a second panic alert.
 */
const PARENT_ID = '0b7e5c1a-3d2f-4e6a-8b9c-1d2e3f4a5b6c';
const PRESS_START = Date.parse('2026-03-02T10:00:00.000Z');
const NOW = PRESS_START + 10 * 60_000;
let sequence = 0;

function message(vehicleId: number, secondsAfterPress: number, pressed: boolean, speed = 0): SQSRecord {
  const id = `held-panic-${++sequence}`;
  const body = JSON.stringify({
    vehicleId,
    deviceTime: new Date(PRESS_START + secondsAfterPress * 1000).toISOString(),
    latitude: 55.75,
    longitude: 37.62,
    speed,
    parameters: { panic: pressed ? 1 : 0 },
  });
  return toSqsRecord(
    { MessageId: id, ReceiptHandle: `rh-${id}`, Body: body, Attributes: { MessageGroupId: String(vehicleId) } },
    'arn:aws:sqs:us-east-1:000000000000:fleetwatch-messages.fifo',
  );
}

async function panicAlerts(vehicleId: number): Promise<string[]> {
  const { Items = [] } = await documentClient().send(new ScanCommand({ TableName: resourcesConfig().ALERTS_TABLE, ConsistentRead: true }));
  return Items.filter((item) => item.vehicleId === vehicleId && (item.event as { kind: string }).kind === 'panic').map(
    (item) => (item.event as { time: string }).time,
  );
}

describe('a panic button held across several messages', () => {
  let emulators: Emulators;
  const evaluate = createEvaluateHandler({ clock: () => NOW });
  /** Each call is one batch, as the FIFO queue hands them out. */
  const batch = async (...records: SQSRecord[]) => {
    const output = captureOutput({ silent: true, keep: false });
    try {
      const response = await evaluate({ Records: records }, lambdaContext('evaluate'));
      expect(response?.batchItemFailures ?? []).toEqual([]);
    } finally {
      output.restore();
    }
  };

  beforeAll(async () => {
    emulators = await startTestEmulators('held-panic');
    const created = new Date(PRESS_START - 86_400_000).toISOString();
    const store = (body: Record<string, unknown>) =>
      createRule({
        ...notificationBodySchema.parse({ parentId: PARENT_ID, active: true, ...body }),
        parentName: '',
        version: 1,
        createdAt: created,
        updatedAt: created,
        validFrom: created,
        expiresAt: new Date(PRESS_START + 30 * 86_400_000).toISOString(),
      });
    const panic = await store({ type: 6, name: 'Panic', vehicleIds: [501, 502, 503, 504, 505], settings: { parameter: 'panic' } });
    // a rule whose state changes with every message above 90 km/h (and that never alerts within the test),
    // so that every message is stored at once and a late one is stale for sure
    const slow = await store({ type: 2, name: 'Slow speeding', vehicleIds: [504, 505], settings: { limit: '90', minDuration: '3600' } });
    await projectRules([panic, slow]);
  });
  afterAll(async () => emulators.stop());
  beforeEach(async () => {
    const { Items = [] } = await documentClient().send(new ScanCommand({ TableName: resourcesConfig().ALERTS_TABLE }));
    for (const item of Items)
      await documentClient().send(new DeleteCommand({ TableName: resourcesConfig().ALERTS_TABLE, Key: { alertId: item.alertId } }));
  });

  it('raises one alert when delivered in order, each message once', async () => {
    await batch(message(501, 0, true), message(501, 10, true));
    await batch(message(501, 20, true), message(501, 30, false));
    expect(await panicAlerts(501)).toEqual([new Date(PRESS_START).toISOString()]);
  });

  it('raises one alert when a message from the middle of the press is delivered again after the release', async () => {
    const middle = message(502, 10, true);
    await batch(message(502, 0, true), middle);
    await batch(message(502, 20, true), message(502, 30, false));
    // a producer retry of the middle message: same body, new message id
    await batch({ ...middle, messageId: `${middle.messageId}-again` });
    expect(await panicAlerts(502)).toHaveLength(1);
  });

  it('raises one alert when the whole press arrives late, after the release, in one batch', async () => {
    await batch(message(504, 0, false, 100));
    await batch(message(504, 40, false, 100));
    await batch(message(504, 10, true, 100), message(504, 20, true, 100), message(504, 30, true, 100));
    expect(await panicAlerts(504)).toHaveLength(1);
  });

  it('raises one alert when the whole press arrives late, after the release, one message per batch', async () => {
    await batch(message(505, 0, false, 100));
    await batch(message(505, 40, false, 100));
    await batch(message(505, 10, true, 100));
    await batch(message(505, 20, true, 100));
    expect(await panicAlerts(505)).toHaveLength(1);
  });

  it('raises one alert when the second message of the press arrives before the first', async () => {
    await batch(message(503, 10, true));
    await batch(message(503, 0, true));
    await batch(message(503, 20, true), message(503, 30, false));
    expect(await panicAlerts(503)).toHaveLength(1);
  });
});
