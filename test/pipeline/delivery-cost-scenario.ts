import { createEvaluateHandler } from '../../functions/evaluate/handler';
import { pollOnce } from '../../infra/local/sqs-poller';
import { resourcesConfig } from '../../shared/config';
import { countCapacity, type CapacityCounter } from '../support/count-capacity';
import { deliverHandler } from '../support/deliver-handler';
import { countSqsRequests } from '../support/count-sqs-requests';
import { captureOutput } from '../support/replay-output';
import { projectRules } from '../support/project-rules';
import { PARENT_ID, getAlertItem, putUser, putVehicle } from '../delivery/support/fixtures';
import { SesQuotaStub } from '../delivery/support/ses-quota-stub';
import { sesClient } from '../../shared/aws/ses';
import { sendQuota } from '../../shared/channels/email/send-quota';
import { vehicleStateTable } from '../../shared/store/vehicle-state-store';
import { alertsInTable, invoke, putRule, sqsRecord, storedRule, T0, terminalMessage } from './support';

/**
 * What one alert costs from its creation to its delivery, measured on DynamoDB Local, the SQS emulator and the
 * SES stand-in with the real evaluate and deliver functions: a speeding rule with one e-mail target (one
 * recipient user), each vehicle speeding once.
 *
 * - Creation: the units of the evaluate invocation that raises the alert, less those of the invocation before it
 *   (the same vehicle starting to speed, its item written alone): the alert's own item and index writes, and the
 *   vehicle item's write turned into a transaction.
 * - Delivery: every unit the deliver function spends (reads, the lease, each delivery recorded, the settling
 *   write), handed one alert per invocation as Lambda's deliveries queue mapping does at a low alert rate.
 * - SQS: the deliveries queue requests evaluate makes to enqueue, and those of the deliver side (receive and
 *   delete, as the event source mapping makes them, and any the function makes itself).
 * Units are billed units (CapacityCounter.billedWriteUnits: a transaction's index writes once).
 *
 * SES's GetAccount is answered by SesQuotaStub (the SES emulator has no quotas, and refuses the call), so that the
 * deliver function reads the quota and logs as it does deployed. The scenario's clock passes the quota's cache
 * interval between alerts, so every invocation reads it: deployed, one instance reads it once a minute.
 */
export interface DeliveryCost {
  alerts: number;
  createReadUnitsPerAlert: number;
  createWriteUnitsPerAlert: number;
  /** Of the creation's write units, those on the vehicle-state table: its write turned into a transaction. */
  createVehicleWriteUnitsPerAlert: number;
  deliverReadUnitsPerAlert: number;
  deliverWriteUnitsPerAlert: number;
  enqueueRequestsPerAlert: number;
  deliverSqsRequestsPerAlert: number;
  deliverInvocationsPerAlert: number;
  deliverMsPerInvocation: number;
  deliverLogBytesPerInvocation: number;
  emailsPerAlert: number;
}

const FIRST_VEHICLE = 60_001;

export async function measureDeliveryCost(options: { alerts: number }): Promise<DeliveryCost> {
  const recipient = await putUser({ login: 'cost-dispatcher', email: 'dispatcher@example.com' });
  const vehicleIds = Array.from({ length: options.alerts }, (_, index) => FIRST_VEHICLE + index);
  for (const vehicleId of vehicleIds) await putVehicle(vehicleId, `Truck ${vehicleId}`);
  const rule = storedRule({
    id: 951,
    parentId: PARENT_ID,
    userId: recipient.id,
    name: 'Speeding over 90',
    vehicleIds,
    toEmail: true,
    recipientIds: [recipient.id],
    settings: { limit: '90', minDuration: '10' },
  });
  await putRule(rule, { registerVehicles: false });
  await projectRules([rule]);

  const queueUrl = resourcesConfig().DELIVERIES_QUEUE_URL;
  let now = T0;
  const evaluate = createEvaluateHandler({ clock: () => now });
  const deliver = deliverHandler({ clock: () => now });
  const capacity = countCapacity();
  const sqs = countSqsRequests();
  const quota = new SesQuotaStub();
  quota.install(await sesClient());
  sendQuota.reset();
  const totals = {
    alerts: 0,
    createRead: 0,
    createWrite: 0,
    createVehicleWrite: 0,
    deliverRead: 0,
    deliverWrite: 0,
    enqueue: 0,
    deliverSqs: 0,
    invocations: 0,
    ms: 0,
    logBytes: 0,
  };
  const units = async (run: () => Promise<unknown>, counter: CapacityCounter = capacity) => {
    counter.reset();
    await run();
    const vehicleWrite = Object.entries(counter.writeUnitsByIndex())
      .filter(([key]) => key.split('/')[0] === vehicleStateTable())
      .reduce((sum, [, units]) => sum + units, 0);
    return { read: counter.readUnits(), write: counter.billedWriteUnits(), vehicleWrite };
  };
  try {
    for (const [index, vehicleId] of vehicleIds.entries()) {
      const base = index * 600;
      const message = async (second: number, speed: number) => {
        now = T0 + (base + second + 1) * 1000;
        const output = captureOutput({ silent: true });
        try {
          const response = await invoke(evaluate, [sqsRecord(terminalMessage(vehicleId, base + second, speed))]);
          if (response.batchItemFailures.length > 0) throw new Error(`evaluate failed vehicle ${vehicleId}`);
        } finally {
          output.restore();
        }
      };
      await message(0, 50);
      // the speeding starts (the item written alone), then has lasted long enough: the alert
      const speeding = await units(() => message(30, 120));
      sqs.reset();
      const raising = await units(() => message(60, 120));
      totals.enqueue += sqs.requests(queueUrl);
      totals.createRead += raising.read - speeding.read;
      totals.createWrite += raising.write - speeding.write;
      totals.createVehicleWrite += raising.vehicleWrite - speeding.vehicleWrite;

      sqs.reset();
      for (;;) {
        const output = captureOutput({ silent: true });
        const started = performance.now();
        let taken = 0;
        const spent = await units(async () => {
          taken = await pollOnce({ queueUrl, handler: deliver, functionName: 'deliver', batchSize: 1, visibilityTimeoutSeconds: 0 });
        }).finally(() => output.restore());
        if (taken === 0) break;
        totals.invocations++;
        totals.ms += performance.now() - started;
        totals.logBytes += Buffer.byteLength(output.text());
        totals.deliverRead += spent.read;
        totals.deliverWrite += spent.write;
      }
      // the last, empty receive is what a poller makes between alerts: not a cost of this alert
      totals.deliverSqs += sqs.requests(queueUrl) - 1;
    }
  } finally {
    capacity.detach();
    sqs.detach();
    quota.uninstall(await sesClient());
    sendQuota.reset();
  }
  const alertIds = (await alertsInTable()).filter((alert) => vehicleIds.includes(alert.vehicleId as number)).map((alert) => String(alert.alertId));
  let emails = 0;
  for (const alertId of alertIds) {
    const deliveries = (await getAlertItem(alertId)).deliveries as Record<string, { status: string }>;
    emails += Object.entries(deliveries).filter(([target, entry]) => target.startsWith('email:') && entry.status === 'sent').length;
  }
  const alerts = alertIds.length;
  return {
    alerts,
    createReadUnitsPerAlert: totals.createRead / alerts,
    createWriteUnitsPerAlert: totals.createWrite / alerts,
    createVehicleWriteUnitsPerAlert: totals.createVehicleWrite / alerts,
    deliverReadUnitsPerAlert: totals.deliverRead / alerts,
    deliverWriteUnitsPerAlert: totals.deliverWrite / alerts,
    enqueueRequestsPerAlert: totals.enqueue / alerts,
    deliverSqsRequestsPerAlert: totals.deliverSqs / alerts,
    deliverInvocationsPerAlert: totals.invocations / alerts,
    deliverMsPerInvocation: totals.ms / Math.max(1, totals.invocations),
    deliverLogBytesPerInvocation: totals.logBytes / Math.max(1, totals.invocations),
    emailsPerAlert: emails / alerts,
  };
}
