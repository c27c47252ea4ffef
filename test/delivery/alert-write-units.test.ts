import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, sqsClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { alertPut, buildAlertItem } from '../../shared/store/alerts-store';
import { createDeliverHandler } from '../../functions/deliver/handler';
import { pollOnce, type SqsHandler } from '../../infra/local/sqs-poller';
import type { Emulators } from '../../infra/local/emulators';
import { countCapacity } from '../support/count-capacity';
import { sentEmails, startTestEmulators } from '../support/emulators';
import { getAlertItem, putRule, putUser, putVehicle } from './support/fixtures';

describe('write units of one alert', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startTestEmulators('alert-write-units');
  });
  afterAll(async () => emulators.stop());

  it('create and delivery to one e-mail address', async () => {
    const owner = await putUser({ login: 'units-owner', email: 'units-owner@example.com' });
    const rule = await putRule({ userId: owner.id, toEmail: true, recipientIds: [owner.id], stored: true });
    await putVehicle(31, 'Truck 31');
    const now = Date.parse('2026-03-01T10:00:00.000Z');
    const event = { kind: 'speeding', time: new Date(now - 5_000).toISOString(), latitude: 55.7558, longitude: 37.6173, speed: 104, values: { limit: 90 } };
    const counter = countCapacity();
    try {
      const alert = buildAlertItem(rule, 31, event, now);
      await documentClient().send(new TransactWriteCommand({ TransactItems: [alertPut(alert)] }));
      const created = counter.writeUnitsByIndex();
      counter.reset();
      await sqsClient().send(new SendMessageCommand({ QueueUrl: emulators.queues.deliveries, MessageBody: JSON.stringify({ alertId: alert.alertId }) }));
      const handler = createDeliverHandler() as unknown as SqsHandler;
      expect(await pollOnce({ queueUrl: emulators.queues.deliveries, handler, functionName: 'deliver', visibilityTimeoutSeconds: 0 })).toBe(1);
      const delivered = counter.writeUnitsByIndex();
      expect((await sentEmails(emulators)).length).toBe(1);
      expect((await getAlertItem(alert.alertId)).status).toBe('delivered');
      const table = resourcesConfig().ALERTS_TABLE;
      const ofAlerts = (units: Record<string, number>) => Object.fromEntries(Object.entries(units).filter(([key]) => key.startsWith(table)));
      console.log(JSON.stringify({ created: ofAlerts(created), delivered: ofAlerts(delivered), all: delivered }, null, 1));
    } finally {
      counter.detach();
    }
  });
});
