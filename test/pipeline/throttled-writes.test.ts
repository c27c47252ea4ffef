import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ProvisionedThroughputExceededException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { loadVehicleState } from '../../shared/store/vehicle-state-store';
import { documentClient } from '../../shared/aws/clients';
import { DYNAMODB_MAX_ATTEMPTS } from '../../shared/aws/dynamodb';
import { resourcesConfig } from '../../shared/config';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { alertsInTable, drainQueue, invoke, putRule, sqsRecord, storedRule, T0, terminalMessage } from './support';

/**
 * Provisioned capacity throttles writes while autoscaling catches up. No emulator throttles (DynamoDB Local
 * accepts every request), so this stand-in refuses the vehicle-state writes of chosen vehicles the way
 * DynamoDB does: a PutItem with ProvisionedThroughputExceededException, a transaction with
 * TransactionCanceledException naming `ProvisionedThroughputExceeded` for the throttled item. It sits in the
 * deserialize step, inside the SDK's retry loop, so the SDK's own retries meet it on every attempt.
 */
function throttleVehicleStateWrites(vehicleIds: Set<number>) {
  const name = 'fleetwatchThrottleStandIn';
  const attempts = { PutItem: 0, TransactWriteItems: 0 };
  const stateTable = resourcesConfig().VEHICLE_STATE_TABLE;
  type Marshalled = { TableName?: string; Item?: { vehicleId?: { N?: string } } };
  const throttled = (put: Marshalled | undefined) => put?.TableName === stateTable && vehicleIds.has(Number(put.Item?.vehicleId?.N));
  documentClient().middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Marshalled & { TransactItems?: { Put?: Marshalled }[] };
      const $metadata = { httpStatusCode: 400 };
      if (context.commandName === 'PutItemCommand' && throttled(input)) {
        attempts.PutItem++;
        throw new ProvisionedThroughputExceededException({
          message: 'The level of configured provisioned throughput for the table was exceeded.',
          $metadata,
        });
      }
      if (context.commandName === 'TransactWriteItemsCommand' && input.TransactItems?.some((item) => throttled(item.Put))) {
        attempts.TransactWriteItems++;
        throw new TransactionCanceledException({
          message: 'Transaction cancelled, please refer cancellation reasons for specific reasons',
          $metadata,
          CancellationReasons: input.TransactItems.map((item) =>
            throttled(item.Put)
              ? { Code: 'ProvisionedThroughputExceeded', Message: 'Throughput exceeds the current capacity of your table or index.' }
              : { Code: 'None' },
          ),
        });
      }
      return next(args);
    },
    { step: 'deserialize', name },
  );
  return { attempts, lift: () => documentClient().middlewareStack.remove(name) };
}

const SPEEDING = storedRule({ id: 1, vehicleIds: [21, 22, 23], settings: { limit: '90', minDuration: '10', endMargin: '5', endDuration: '30' } });

/** One speeding episode from 10 s to 30 s: over the limit for 10 s at 20 s, so one alert at T0 + 20 s. */
const EPISODE: [number, number][] = [
  [0, 50],
  [10, 100],
  [20, 110],
  [30, 120],
  [40, 50],
];

async function stateOf(vehicleId: number) {
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: resourcesConfig().VEHICLE_STATE_TABLE, Key: { vehicleId }, ConsistentRead: true }),
  );
  return Item;
}

const alertsOf = async (vehicleId: number) => (await alertsInTable()).filter((alert) => alert.vehicleId === vehicleId);

describe('evaluate under throttled vehicle-state writes', () => {
  let emulators: Emulators;
  let throttle: ReturnType<typeof throttleVehicleStateWrites> | undefined;
  beforeAll(async () => {
    emulators = await startTestEmulators('pipeline-throttled');
    await putRule(SPEEDING);
  });
  afterEach(() => throttle?.lift());
  afterAll(async () => emulators.stop());

  it('hands the throttled vehicles back to the queue, commits the rest, and the redelivery raises each alert once', async () => {
    // 21 speeds while throttled (a transaction with its alert), 22 speeds unthrottled, 23 drives slowly while
    // throttled (a lone PutItem of its state)
    const records = EPISODE.flatMap(([second, speed]) => [
      sqsRecord(terminalMessage(21, second, speed)),
      sqsRecord(terminalMessage(22, second, speed)),
      sqsRecord(terminalMessage(23, second, 40)),
    ]);
    const recordsOf = (vehicleId: number) => records.filter((record) => JSON.parse(record.body).vehicleId === vehicleId);
    const handler = createEvaluateHandler({ clock: () => T0 + 60_000 });

    const registered = { 21: await stateOf(21), 23: await stateOf(23) };
    throttle = throttleVehicleStateWrites(new Set([21, 23]));
    const response = await invoke(handler, records);
    const failed = response.batchItemFailures.map((failure) => failure.itemIdentifier);
    expect(failed.sort()).toEqual([...recordsOf(21), ...recordsOf(23)].map((record) => record.messageId).sort());
    // the SDK retried each throttled PutItem its own attempts before evaluate gave the messages back
    expect(throttle.attempts.PutItem).toBe(DYNAMODB_MAX_ATTEMPTS);
    // a throttled transaction is not re-evaluated and retried in the invocation: the shared one, then its own
    expect(throttle.attempts.TransactWriteItems).toBe(2);
    expect(await stateOf(21)).toEqual(registered[21]);
    expect(await stateOf(23)).toEqual(registered[23]);
    expect(await alertsOf(21)).toEqual([]);
    const unthrottled = await alertsOf(22);
    expect(unthrottled.map((alert) => (alert.event as { time: string }).time)).toEqual([new Date(T0 + 20_000).toISOString()]);
    const firstRequests = await drainQueue(emulators.queues.deliveries);
    expect(firstRequests.map((request) => JSON.parse(request.Body!).alertId)).toEqual([unthrottled[0]!.alertId]);
    throttle.lift();

    // the throttle lifts; SQS delivers the failed records again, later
    const later = createEvaluateHandler({ clock: () => T0 + 120_000 });
    expect(
      await invoke(
        later,
        records.filter((record) => failed.includes(record.messageId)),
      ),
    ).toEqual({ batchItemFailures: [] });
    const redelivered = await alertsOf(21);
    expect(redelivered.map((alert) => (alert.event as { time: string }).time)).toEqual([new Date(T0 + 20_000).toISOString()]);
    expect(redelivered[0]!.event).toEqual(unthrottled[0]!.event);
    expect((await loadVehicleState(23)).state?.lastDeviceTime).toBe(new Date(T0 + 40_000).toISOString());
    const secondRequests = await drainQueue(emulators.queues.deliveries);
    expect(secondRequests.map((request) => JSON.parse(request.Body!).alertId)).toEqual([redelivered[0]!.alertId]);

    // and a duplicate of the whole batch (an acknowledgement lost meanwhile) adds nothing
    expect(await invoke(later, records)).toEqual({ batchItemFailures: [] });
    expect(await alertsOf(21)).toHaveLength(1);
    expect(await alertsOf(22)).toHaveLength(1);
    expect(await drainQueue(emulators.queues.deliveries)).toEqual([]);
  });
});
