import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import { createAgent } from '../../shared/store/directory-store';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { countDynamoRequests } from '../support/count-requests';
import { alertsInTable, drainQueue, invoke, putRule, sqsRecord, storedRule, T0, terminalMessage } from './support';
import { registerVehicle } from '../../shared/store/vehicle-registry';

/**
 * The vehicle as the unit of loading and of trust: what a vehicle's item names decides which rules evaluate
 * its messages, read by id and version, and a rule applies only while the vehicle's owner is the rule's client
 * or a client below it.
 */
const alertsOf = async (ruleId: number, vehicleId: number) =>
  (await alertsInTable()).filter((alert) => alert.ruleId === ruleId && alert.vehicleId === vehicleId);

describe('per-vehicle rules and ownership at evaluation', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startTestEmulators('pipeline-vehicle-unit');
  });
  afterAll(async () => emulators.stop());

  it('applies a rule edit to the next message of an affected vehicle', async () => {
    const rule = storedRule({ id: 301, vehicleIds: [3001, 3002], settings: { limit: '150', minDuration: '0' } });
    await putRule(rule);
    let now = T0 + 10_000;
    const evaluate = createEvaluateHandler({ clock: () => now });
    // 120 km/h under a 150 limit: nothing, and the rule is now cached by the running function
    await invoke(evaluate, [sqsRecord(terminalMessage(3001, 10, 120))]);
    expect(await alertsOf(301, 3001)).toHaveLength(0);

    await putRule({ ...rule, version: 2, settings: { limit: '100', minDuration: '0' } });
    now = T0 + 20_000;
    await invoke(evaluate, [sqsRecord(terminalMessage(3001, 20, 120))]);
    expect(await alertsOf(301, 3001)).toHaveLength(1);
    expect((await alertsOf(301, 3001))[0]).toMatchObject({ event: { kind: 'speeding', values: { limit: 100 } } });
    await drainQueue(emulators.queues.deliveries);
  });

  it("stops the former owner's rules for a vehicle moved to another client, and applies a parent client's rules below it", async () => {
    const parent = await createAgent({ name: 'Holding' });
    const first = await createAgent({ name: 'First carrier', parentId: parent.agentId });
    const second = await createAgent({ name: 'Second carrier' });
    await registerVehicle({ vehicleId: 3101, name: 'Truck 3101', parentId: first.agentId }, { allowMove: true });
    const firstRule = storedRule({ id: 311, parentId: first.agentId, vehicleIds: [3101], settings: { limit: '90', minDuration: '0' } });
    const parentRule = storedRule({
      id: 312,
      type: 6,
      name: 'Panic (holding)',
      parentId: parent.agentId,
      vehicleIds: [3101],
      settings: { parameter: 'panic' },
    });
    await putRule(firstRule, { registerVehicles: false });
    await putRule(parentRule, { registerVehicles: false });

    let now = T0 + 10_000;
    const evaluate = createEvaluateHandler({ clock: () => now });
    await invoke(evaluate, [sqsRecord(terminalMessage(3101, 10, 120, { parameters: { panic: '1' } }))]);
    expect(await alertsOf(311, 3101)).toHaveLength(1);
    expect(await alertsOf(312, 3101)).toHaveLength(1);

    // sold to a client outside the holding: neither rule applies from the next message on
    await registerVehicle({ vehicleId: 3101, name: 'Truck 3101', parentId: second.agentId }, { allowMove: true });
    now = T0 + 60_000;
    await invoke(evaluate, [
      sqsRecord(terminalMessage(3101, 40, 50, { parameters: { panic: '0' } })),
      sqsRecord(terminalMessage(3101, 50, 130, { parameters: { panic: '1' } })),
    ]);
    expect(await alertsOf(311, 3101)).toHaveLength(1);
    expect(await alertsOf(312, 3101)).toHaveLength(1);
    await drainQueue(emulators.queues.deliveries);
  });

  it('raises nothing for a vehicle no client owns, at the cost of one read', async () => {
    await putRule(storedRule({ id: 321, vehicleIds: [3201], settings: { limit: '90', minDuration: '0' } }), { registerVehicles: false });
    const now = T0 + 10_000;
    const evaluate = createEvaluateHandler({ clock: () => now });
    const counter = countDynamoRequests();
    try {
      expect(await invoke(evaluate, [sqsRecord(terminalMessage(3201, 10, 150)), sqsRecord(terminalMessage(3299, 10, 150))])).toEqual({
        batchItemFailures: [],
      });
      expect(counter.byCommand()).toEqual({ BatchGetItem: 1 });
    } finally {
      counter.detach();
    }
    expect(await alertsOf(321, 3201)).toHaveLength(0);
    expect(await drainQueue(emulators.queues.deliveries)).toHaveLength(0);
  });
});
