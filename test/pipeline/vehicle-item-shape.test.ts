import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import type { Emulators } from '../../infra/local/emulators';
import { documentClient } from '../../shared/aws/clients';
import { logger } from '../../shared/observability/logger';
import { loadVehicleState, silenceShardOf, vehicleStateTable } from '../../shared/store/vehicle-state-store';
import { startTestEmulators } from '../support/emulators';
import { alertsInTable, drainQueue, invoke, putRule, sqsRecord, storedRule, T0, terminalMessage } from './support';

/**
 * The state evaluation alone reads is packed into one attribute of the vehicle's item. Items written before, with
 * each field an attribute of its own, are read as they are and packed by their next write; a packed state that
 * cannot be unpacked is an unreadable state, evaluated afresh under the stored version.
 */
const SILENCE_RULE = { id: 82, type: 7 as const, name: 'Silent for 30 minutes', settings: { minutes: '30' } };

describe('the shape of the vehicle item', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startTestEmulators('pipeline-vehicle-item-shape');
    const vehicleIds = [801, 802];
    await putRule(storedRule({ id: 81, vehicleIds, settings: { limit: '90', minDuration: '10' } }));
    await putRule(storedRule({ ...SILENCE_RULE, vehicleIds }));
  });
  afterAll(async () => emulators.stop());

  const storedItem = async (vehicleId: number) =>
    (await documentClient().send(new GetCommand({ TableName: vehicleStateTable(), Key: { vehicleId }, ConsistentRead: true }))).Item!;
  const alertsOf = async (vehicleId: number) => (await alertsInTable()).filter((alert) => alert.vehicleId === vehicleId);

  it('reads an item written with the state in attributes of its own, and packs it with the next write', async () => {
    const vehicleId = 801;
    let now = T0 + 1_000;
    const evaluate = createEvaluateHandler({ clock: () => now });
    // 120 km/h for 10 s raises speeding; the first message starts the episode
    expect(await invoke(evaluate, [sqsRecord(terminalMessage(vehicleId, 0, 120))])).toEqual({ batchItemFailures: [] });
    const before = await loadVehicleState(vehicleId);
    expect(before.state?.rules['81']).toBeDefined();

    // the same item as it was written before the state was packed: every field an attribute
    const { state, projection, silentAt } = before;
    const { owners, ruleRefs, zoneRefs, zoneSets } = projection;
    const legacy = { ...state!, owners, owner: owners[0], ruleRefs, zoneRefs, zoneSets, silenceShard: silenceShardOf(vehicleId), silentAt };
    await documentClient().send(new PutCommand({ TableName: vehicleStateTable(), Item: legacy }));
    expect(await loadVehicleState(vehicleId)).toEqual(before);

    // the episode started in the older item goes on: its alert is raised 10 s after its start
    now = T0 + 11_000;
    expect(await invoke(evaluate, [sqsRecord(terminalMessage(vehicleId, 10, 120))])).toEqual({ batchItemFailures: [] });
    expect((await alertsOf(vehicleId)).map((alert) => (alert.event as { kind: string }).kind)).toEqual(['speeding']);
    const item = await storedItem(vehicleId);
    expect(item.state).toBeInstanceOf(Uint8Array);
    for (const field of ['rules', 'lastDeviceTime', 'lastSeenAt', 'lastPosition']) expect(item).not.toHaveProperty(field);
    expect(item).toMatchObject({ owners, owner: owners[0], ruleRefs, version: before.version + 1, silenceShard: silenceShardOf(vehicleId) });
    expect((await loadVehicleState(vehicleId)).state).toMatchObject({ lastDeviceTime: new Date(T0 + 10_000).toISOString() });
    await drainQueue(emulators.queues.deliveries);
  });

  it('treats a packed state that cannot be unpacked as unreadable: evaluated afresh, written under the stored version', async () => {
    const vehicleId = 802;
    let now = T0 + 1_000;
    const evaluate = createEvaluateHandler({ clock: () => now });
    expect(await invoke(evaluate, [sqsRecord(terminalMessage(vehicleId, 0, 50))])).toEqual({ batchItemFailures: [] });
    const before = await loadVehicleState(vehicleId);
    await documentClient().send(
      new PutCommand({
        TableName: vehicleStateTable(),
        Item: { ...(await storedItem(vehicleId)), state: Uint8Array.from([0x1b, 0x7f, 0x00, 0x42]) },
      }),
    );

    const error = vi.spyOn(logger, 'error');
    try {
      const unreadable = await loadVehicleState(vehicleId);
      expect(unreadable).toEqual({ ...before, state: undefined });
      expect(error).toHaveBeenCalledWith('unreadable vehicle state', expect.objectContaining({ vehicleId }));
    } finally {
      error.mockRestore();
    }

    now = T0 + 21_000;
    expect(await invoke(evaluate, [sqsRecord(terminalMessage(vehicleId, 20, 50))])).toEqual({ batchItemFailures: [] });
    const after = await loadVehicleState(vehicleId);
    expect(after.version).toBe(before.version + 1);
    expect(after.state).toMatchObject({ lastDeviceTime: new Date(T0 + 20_000).toISOString() });
  });
});
