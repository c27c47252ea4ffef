import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import type { Emulators } from '../../infra/local/emulators';
import { documentClient } from '../../shared/aws/clients';
import { createAgent } from '../../shared/store/directory-store';
import { registerVehicle } from '../../shared/store/vehicle-registry';
import { vehicleStateTable } from '../../shared/store/vehicle-state-store';
import { startTestEmulators } from '../support/emulators';
import { itemBytes } from '../support/item-size';
import { invoke, putRule, sqsRecord, storeCircleZone, storedRule } from './support';

/**
 * Every message of a vehicle may write its item, and each started kilobyte is one write unit. At its largest in
 * ordinary use (a client three levels deep, 10 rules in an alerted episode with every noise counter in use, 2 open
 * visits) the item is measured as DynamoDB counts it: the rules' own states, visits, owners and zone sets take
 * about 1.5 KB without any noise budget, so the budget's counters are held to a size per rule, and the item to
 * three write units.
 */
const NOISE_BYTES_PER_RULE = 80;
const WRITE_UNITS = 3;
const VEHICLE_ID = 1_999_999_999;
const RULES = 10;
const POSITION = { latitude: 55.75, longitude: 37.62 };

describe('the vehicle item at its largest', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startTestEmulators('pipeline-vehicle-item-size');
  });
  afterAll(async () => emulators.stop());

  it('keeps the noise counters to 80 bytes a rule, and the item to 3 write units, with 3 owners, 10 busy rules and 2 open visits', async () => {
    const root = await createAgent({ name: 'Size Root' });
    const region = await createAgent({ name: 'Size Region', parentId: root.agentId });
    const depot = await createAgent({ name: 'Size Depot', parentId: region.agentId });
    await registerVehicle({ vehicleId: VEHICLE_ID, name: 'Truck', parentId: depot.agentId }, { allowMove: true });
    // two zones of the owners around the vehicle: two visits stay open
    for (const [parentId, radius] of [
      [root.agentId, 800],
      [region.agentId, 400],
    ] as const) {
      await storeCircleZone({ parentId, name: `Yard ${radius}`, center: POSITION, radius });
    }
    const start = Date.parse('2026-11-24T10:00:00Z');
    for (let index = 0; index < RULES; index++) {
      await putRule(
        storedRule({
          id: 9_000_001 + index,
          parentId: depot.agentId,
          vehicleIds: [VEHICLE_ID],
          expiresAt: '2027-01-01T00:00:00.000Z',
          timezone: 'Europe/Berlin',
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
      now = start + second * 1000 + 1000;
      const message = { vehicleId: VEHICLE_ID, deviceTime: new Date(start + second * 1000).toISOString(), ...POSITION, speed };
      expect(await invoke(evaluate, [sqsRecord(message)])).toEqual({ batchItemFailures: [] });
    }

    const { Item } = await documentClient().send(
      new GetCommand({ TableName: vehicleStateTable(), Key: { vehicleId: VEHICLE_ID }, ConsistentRead: true }),
    );
    const item = Item!;
    expect(item.owners).toEqual([depot.agentId, region.agentId, root.agentId]);
    expect(Object.keys(item.rules as object)).toHaveLength(RULES);
    expect(Object.keys((item.visits as { zones: object }).zones)).toHaveLength(2);
    // every counter of every budget is in use
    const noise = item.noise as Record<string, Record<string, unknown>>;
    expect(Object.keys(noise)).toHaveLength(RULES);
    for (const counters of Object.values(noise)) expect(Object.keys(counters).sort()).toEqual(['d', 'e', 'n', 'q', 'r', 's', 't']);
    const { noise: _counters, ...withoutNoise } = item;
    const bytes = itemBytes(marshall(item, { removeUndefinedValues: true }));
    const noiseBytes = bytes - itemBytes(marshall(withoutNoise, { removeUndefinedValues: true }));
    // seven numbers and an open run per rule, in one-letter keys
    expect(noiseBytes / RULES).toBeLessThanOrEqual(NOISE_BYTES_PER_RULE);
    expect(Math.ceil(bytes / 1_024)).toBeLessThanOrEqual(WRITE_UNITS);
  });
});
