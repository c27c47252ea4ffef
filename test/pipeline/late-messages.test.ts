import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import { MAX_HEARTBEAT_INTERVAL_MS } from '../../shared/pipeline/evaluate-vehicle';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { alertsInTable, drainQueue, invoke, putRule, sqsRecord, storedRule, T0, terminalMessage } from './support';

/**
 * A message at or before the vehicle's stored device time is late (README principle 5): it moves no clock,
 * rolls no rule back and raises nothing but what a stale-aware rule (panic) allows. The stored clock follows
 * every write: each rule-state change, and the heartbeat (here every 10 minutes, the vehicle having no
 * connection-loss rule).
 */
describe('late messages', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startTestEmulators('pipeline-late-messages');
    await putRule(storedRule({ id: 71, name: 'Speeding at once', vehicleIds: [701], settings: { limit: '90', minDuration: '0' } }));
  });
  afterAll(async () => emulators.stop());

  const lastDeviceTime = async (vehicleId: number) =>
    (await documentClient().send(new GetCommand({ TableName: resourcesConfig().VEHICLE_STATE_TABLE, Key: { vehicleId }, ConsistentRead: true }))).Item
      ?.lastDeviceTime;

  it('raises nothing from a message older than the stored device time, and keeps the clock', async () => {
    const vehicleId = 701;
    const newer = MAX_HEARTBEAT_INTERVAL_MS / 1000 + 10;
    const at = (second: number) => T0 + second * 1000 + 500;
    await invoke(createEvaluateHandler({ clock: () => at(0) }), [sqsRecord(terminalMessage(vehicleId, 0, 50))]);
    await invoke(createEvaluateHandler({ clock: () => at(newer) }), [sqsRecord(terminalMessage(vehicleId, newer, 50))]);
    expect(await lastDeviceTime(vehicleId)).toBe(new Date(T0 + newer * 1000).toISOString());
    // the late message would be an episode above the limit if it were current
    await invoke(createEvaluateHandler({ clock: () => at(newer + 5) }), [sqsRecord(terminalMessage(vehicleId, newer - 5, 150))]);
    expect((await alertsInTable()).filter((alert) => alert.vehicleId === vehicleId)).toEqual([]);
    expect(await lastDeviceTime(vehicleId)).toBe(new Date(T0 + newer * 1000).toISOString());
    expect(await drainQueue(emulators.queues.deliveries)).toEqual([]);
  });
});
