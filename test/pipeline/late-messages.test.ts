import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { alertsInTable, drainQueue, invoke, putRule, sqsRecord, storedRule, T0, terminalMessage } from './support';

/**
 * A message older than the newest one processed is late, whether or not the newest one's heartbeat was
 * written: README principle 5 applies in the heartbeat interval as after it.
 */
describe('late messages', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startTestEmulators('pipeline-late-messages');
    await putRule(storedRule({ id: 71, name: 'Speeding at once', vehicleIds: [701, 702], settings: { limit: '90', minDuration: '0' } }));
  });
  afterAll(async () => emulators.stop());

  const lastDeviceTime = async (vehicleId: number) =>
    (await documentClient().send(new GetCommand({ TableName: resourcesConfig().VEHICLE_STATE_TABLE, Key: { vehicleId }, ConsistentRead: true }))).Item
      ?.lastDeviceTime;

  it.each([
    { vehicleId: 701, newer: 10, late: 5, what: 'inside the heartbeat interval' },
    { vehicleId: 702, newer: 70, late: 65, what: 'after the heartbeat interval' },
  ])('raises nothing from a message older than the newest processed one, $what', async ({ vehicleId, newer, late }) => {
    const at = (second: number) => T0 + second * 1000 + 500;
    await invoke(createEvaluateHandler({ clock: () => at(0) }), [sqsRecord(terminalMessage(vehicleId, 0, 50))]);
    await invoke(createEvaluateHandler({ clock: () => at(newer) }), [sqsRecord(terminalMessage(vehicleId, newer, 50))]);
    expect(await lastDeviceTime(vehicleId)).toBe(new Date(T0 + newer * 1000).toISOString());
    // the late message would be an episode above the limit if it were current
    await invoke(createEvaluateHandler({ clock: () => at(newer + 5) }), [sqsRecord(terminalMessage(vehicleId, late, 150))]);
    expect((await alertsInTable()).filter((alert) => alert.vehicleId === vehicleId)).toEqual([]);
    expect(await lastDeviceTime(vehicleId)).toBe(new Date(T0 + newer * 1000).toISOString());
    expect(await drainQueue(emulators.queues.deliveries)).toEqual([]);
  });
});
