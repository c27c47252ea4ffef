import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, sqsClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { alertPut, buildAlertItem } from '../../shared/store/alerts/alerts-store';
import { startEmulators } from '../../infra/local/emulators';
import { pollOnce } from '../../infra/local/sqs-poller';
import { countCapacity } from '../support/count-capacity';
import { putRule, putUser, putVehicle } from '../delivery/support/fixtures';
import type { BenchSection } from './section';

/**
 * The hot key of the alerts table: `byParentTime` is keyed by client, so one client's alerts all land in one index
 * partition, which takes about 1,000 write units a second. Measured on DynamoDB Local: the index's write units
 * per alert, over its creation (as evaluate writes it) and its delivery to one e-mail address (the deliver
 * function), scaled to one client raising 500 alerts a second.
 */
const ALERTS = 20;
const ALERTS_PER_SECOND = 500;
const PARTITION_WRITE_UNITS_PER_SECOND = 1_000;

export async function runHotKeyBench(): Promise<BenchSection> {
  const emulators = await startEmulators({ prefix: `bench-hot-key-${process.pid}` });
  // the deliver function's logs and metrics go to stdout, where they would mix with the report
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try {
    const { deliverHandler } = await import('../support/deliver-handler');
    const owner = await putUser({ login: 'hot-key-owner', email: 'hot-key-owner@example.com' });
    const rule = await putRule({ userId: owner.id, toEmail: true, recipientIds: [owner.id], stored: true });
    await putVehicle(41, 'Truck 41');
    const now = Date.now();
    const counter = countCapacity();
    try {
      for (let index = 0; index < ALERTS; index++) {
        const time = new Date(now - (index + 1) * 1_000).toISOString();
        const alert = buildAlertItem(
          rule,
          41,
          { kind: 'speeding', time, latitude: 55.7558, longitude: 37.6173, speed: 104, values: { limit: 90 } },
          now,
        );
        await documentClient().send(new TransactWriteCommand({ TransactItems: [alertPut(alert)] }));
        await sqsClient().send(
          new SendMessageCommand({ QueueUrl: emulators.queues.deliveries, MessageBody: JSON.stringify({ alertId: alert.alertId }) }),
        );
      }
      const handler = deliverHandler();
      while ((await pollOnce({ queueUrl: emulators.queues.deliveries, handler, functionName: 'deliver', visibilityTimeoutSeconds: 0 })) > 0);
      const byIndex = counter.writeUnitsByIndex();
      const perAlert = (byIndex[`${resourcesConfig().ALERTS_TABLE}/byParentTime`] ?? 0) / ALERTS;
      const perSecond = perAlert * ALERTS_PER_SECOND;
      const ratio = perSecond / PARTITION_WRITE_UNITS_PER_SECOND;
      return {
        lines: [
          `byParentTime (one partition per client): ${perAlert.toFixed(2)} write units per alert, created and delivered to one e-mail address`,
          `one client at ${ALERTS_PER_SECOND} alerts/s: ${perSecond.toFixed(0)} WCU/s on its partition, ${ratio.toFixed(2)}× the ~${PARTITION_WRITE_UNITS_PER_SECOND} a partition takes (must stay < 1)`,
        ],
        figures: { byParentTimeWcuPerSecondAt500AlertsPerSecond: perSecond, byParentTimeWcuOverPartitionLimit: ratio },
      };
    } finally {
      counter.detach();
    }
  } finally {
    process.stdout.write = write;
    await emulators.stop();
  }
}
