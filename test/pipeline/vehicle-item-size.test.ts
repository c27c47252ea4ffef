import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import type { Emulators } from '../../infra/local/emulators';
import { documentClient } from '../../shared/aws/clients';
import type { StoredRule } from '../../shared/schemas/notification';
import type { TerminalMessageInput } from '../../shared/schemas/terminal-message';
import { createAgent } from '../../shared/store/directory-store';
import { registerVehicle } from '../../shared/store/vehicle-registry';
import { loadVehicleState, vehicleStateTable } from '../../shared/store/vehicle-state-store';
import { startTestEmulators } from '../support/emulators';
import { itemBytes } from '../support/item-size';
import { alertsInTable, invoke, putRule, sqsRecord, storeCircleZone, storedRule } from './support';

/**
 * Every message of a vehicle may write its item, and each started kilobyte is one write unit. The largest item of
 * ordinary use, a client three levels deep with 10 rules of a usual mix in alerted episodes, a silence deadline
 * and 2 open visits, is held to one write unit, measured as DynamoDB counts it: 1,374 bytes (2 units) with the
 * state in attributes of its own, 860 packed (vehicle-state-codec.ts), of which the owners, zone sets, refs and
 * silence deadline, which indexes and update expressions name, take 495.
 *
 * A harsher case, 10 alike rules each with every noise counter in use (cooldown, maxPerDay, repeat and
 * notifyCleared), measured 2,222 bytes (3 units) in attributes and 784 packed. Alike rules compress better than
 * a mix: with every counter of every rule in distinct values such an item may still take 2 units.
 */
const WRITE_UNIT_BYTES = 1_024;
const RULES = 10;
const POSITION = { latitude: 55.75, longitude: 37.62 };
const START = Date.parse('2026-11-24T10:00:00Z');

describe('the vehicle item at its largest', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startTestEmulators('pipeline-vehicle-item-size');
  });
  afterAll(async () => emulators.stop());

  /** A vehicle of a client three levels deep, inside a zone of two of its clients (two visits stay open). */
  async function tenant(vehicleId: number) {
    const root = await createAgent({ name: 'Size Root' });
    const region = await createAgent({ name: 'Size Region', parentId: root.agentId });
    const depot = await createAgent({ name: 'Size Depot', parentId: region.agentId });
    await registerVehicle({ vehicleId, name: 'Truck', parentId: depot.agentId }, { allowMove: true });
    const zones = [];
    for (const [parentId, radius] of [
      [root.agentId, 800],
      [region.agentId, 400],
    ] as const) {
      zones.push(await storeCircleZone({ parentId, name: `Yard ${radius}`, center: POSITION, radius }));
    }
    return { owners: [depot.agentId, region.agentId, root.agentId], depot: depot.agentId, zoneIds: zones.map((zone) => zone.id) };
  }

  const rule = (vehicleId: number, parentId: string, id: number, fields: Partial<StoredRule>) =>
    storedRule({ id, parentId, vehicleIds: [vehicleId], expiresAt: '2027-01-01T00:00:00.000Z', timezone: 'Europe/Berlin', ...fields });

  async function storedItem(vehicleId: number) {
    const { Item } = await documentClient().send(new GetCommand({ TableName: vehicleStateTable(), Key: { vehicleId }, ConsistentRead: true }));
    return Item!;
  }

  it('keeps to one write unit with 3 owners, 10 rules of a usual mix in alerted episodes, a silence deadline and 2 open visits', async () => {
    const vehicleId = 1_999_999_998;
    const { owners, depot, zoneIds } = await tenant(vehicleId);
    const speedLimits = [80, 90, 100, 110];
    const rules = [
      ...speedLimits.map((limit, index) => rule(vehicleId, depot, 9_100_001 + index, { settings: { limit: String(limit), minDuration: '0' } })),
      rule(vehicleId, depot, 9_100_005, { type: 9, name: 'Reefer too warm', settings: { parameter: 'ain1', max: '-15' } }),
      rule(vehicleId, depot, 9_100_006, { type: 9, name: 'Low fuel', settings: { parameter: 'ain2', min: '40' } }),
      rule(vehicleId, depot, 9_100_007, { type: 8, name: 'Door opened', settings: { parameter: 'din1' } }),
      rule(vehicleId, depot, 9_100_008, { type: 6, name: 'Panic', settings: { parameter: 'panic' } }),
      rule(vehicleId, depot, 9_100_009, { type: 0, name: 'Yard', geoids: [zoneIds[1]!], settings: { mode: 'both' } }),
      rule(vehicleId, depot, 9_100_010, { type: 7, name: 'Silent for 30 minutes', settings: { minutes: '30' } }),
    ];
    expect(rules).toHaveLength(RULES);
    for (const stored of rules) await putRule(stored, { registerVehicles: false });

    // from outside the yard into it, faster each time, sensors drifting, the door opened, the panic button pressed
    let now = 0;
    const evaluate = createEvaluateHandler({ clock: () => now });
    const steps = 8;
    for (let step = 0; step < steps; step++) {
      const second = step * 17 + (step % 3);
      now = START + second * 1000 + 1_300 + step * 7;
      const message: TerminalMessageInput = {
        vehicleId,
        deviceTime: new Date(START + second * 1000).toISOString(),
        latitude: POSITION.latitude + 0.005 * 0.62 ** step,
        longitude: POSITION.longitude - step * 0.000_21,
        speed: 75 + step * 6.3,
        parameters: {
          ain1: -21.5 + step * 1.7,
          ain2: 52.25 - step * 2.35,
          din1: step > 2 ? 1 : 0,
          panic: step === 5 ? 1 : 0,
          mileage: 18_204.3 + step * 0.31,
        },
      };
      expect(await invoke(evaluate, [sqsRecord(message)])).toEqual({ batchItemFailures: [] });
    }

    const alerted = new Set((await alertsInTable()).filter((alert) => alert.vehicleId === vehicleId).map((alert) => Number(alert.ruleId)));
    // every rule but the connection loss raised its alert and keeps a state; the connection loss keeps the deadline
    const watching = rules.slice(0, RULES - 1).map((stored) => stored.id);
    expect([...alerted].sort()).toEqual(watching);
    const { state, projection, silentAt } = await loadVehicleState(vehicleId);
    expect(projection.owners).toEqual(owners);
    expect(Object.keys(state!.rules).map(Number).sort()).toEqual(watching);
    expect(Object.keys(state!.visits!.open)).toHaveLength(2);
    expect(silentAt).not.toBeNull();

    const bytes = itemBytes(marshall(await storedItem(vehicleId)));
    expect(bytes).toBeLessThan(WRITE_UNIT_BYTES);
  });

  it('keeps to one write unit with 3 owners, 10 alike rules with every noise counter in use and 2 open visits', async () => {
    const vehicleId = 1_999_999_999;
    const { owners, depot } = await tenant(vehicleId);
    for (let index = 0; index < RULES; index++) {
      await putRule(
        rule(vehicleId, depot, 9_000_001 + index, {
          settings: { limit: '90', minDuration: '0', endDuration: '0', cooldown: '60', maxPerDay: '2', repeat: '1', notifyCleared: 'true' },
        }),
        { registerVehicles: false },
      );
    }
    // per rule: an alert, a cleared message, a new episode in the cooldown (a run, closed by the next alert), the
    // next alert and, a minute on, its reminder over maxPerDay (the day's notice, and a run left open); the episode lasts
    const speeds: [number, number][] = [
      [0, 120],
      [10, 40],
      [20, 120],
      [30, 40],
      [100, 120.5],
      [160, 133.7],
    ];
    let now = 0;
    const evaluate = createEvaluateHandler({ clock: () => now });
    for (const [second, speed] of speeds) {
      now = START + second * 1000 + 1000;
      const message = { vehicleId, deviceTime: new Date(START + second * 1000).toISOString(), ...POSITION, speed };
      expect(await invoke(evaluate, [sqsRecord(message)])).toEqual({ batchItemFailures: [] });
    }

    const { state, projection } = await loadVehicleState(vehicleId);
    expect(projection.owners).toEqual(owners);
    expect(Object.keys(state!.rules)).toHaveLength(RULES);
    expect(Object.keys(state!.visits!.open)).toHaveLength(2);
    // every counter of every budget is in use
    const noise = state!.noise!;
    expect(Object.keys(noise)).toHaveLength(RULES);
    for (const counters of Object.values(noise)) expect(Object.keys(counters).sort()).toEqual(['d', 'e', 'n', 'q', 'r', 's', 't']);

    const bytes = itemBytes(marshall(await storedItem(vehicleId)));
    expect(bytes).toBeLessThan(WRITE_UNIT_BYTES);
  });
});
