import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/dynamodb';
import { resourcesConfig } from '../../shared/config';
import { createRule, deleteRule, newRuleRecord, replaceRule } from '../../shared/store/rules-store';
import { replaceGeozone } from '../../shared/store/geozones-store';
import { notificationBodySchema } from '../../shared/schemas/notification';
import type { Emulators } from '../../infra/local/emulators';
import { startStreamProjector, type StreamProjector } from '../../infra/local/stream-projector';
import { startTestEmulators } from '../support/emulators';
import { createAgent } from '../../shared/store/directory-store';
import { queryVisits } from '../../shared/store/visits-store';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import { invoke, sqsRecord, storeCircleZone, terminalMessage } from '../pipeline/support';
import { registerVehicle } from '../../shared/store/vehicle-registry';
import { T0 } from '../support/fixtures';

/** The projector, fed from the real streams of DynamoDB Local by the local stand-in of the event source mapping. */
const PARENT = '0b5d2c6e-1f3a-4c5d-9e7f-8a9b0c1d2e3f';

async function vehicleItem(vehicleId: number) {
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: resourcesConfig().VEHICLE_STATE_TABLE, Key: { vehicleId }, ConsistentRead: true }),
  );
  return Item;
}

describe('projector on the rules and geozones streams', () => {
  let emulators: Emulators;
  let projector: StreamProjector;
  const errors: unknown[] = [];
  beforeAll(async () => {
    emulators = await startTestEmulators('projector');
    projector = await startStreamProjector({ pollIntervalMs: 50, onError: (error) => errors.push(error) });
  });
  afterAll(async () => {
    await projector.stop();
    await emulators.stop();
    expect(errors).toEqual([]);
  });

  it('names a rule and its version on the items of the vehicles it lists, and only there', async () => {
    const body = notificationBodySchema.parse({ type: 2, parentId: PARENT, name: 'fast', active: true, vehicleIds: [501, 502] });
    const rule = await createRule(newRuleRecord(body, 'Acme', T0));
    await projector.idle();
    expect((await vehicleItem(501))?.ruleRefs).toEqual({ [rule.id]: 1 });
    expect((await vehicleItem(502))?.ruleRefs).toEqual({ [rule.id]: 1 });
    expect(await vehicleItem(503)).toBeUndefined();

    await replaceRule({ ...rule, vehicleIds: [502, 503], version: 2 }, 1);
    await projector.idle();
    expect((await vehicleItem(501))?.ruleRefs).toEqual({});
    expect((await vehicleItem(502))?.ruleRefs).toEqual({ [rule.id]: 2 });
    expect((await vehicleItem(503))?.ruleRefs).toEqual({ [rule.id]: 2 });

    await deleteRule(rule.id, 2, rule.parentId);
    await projector.idle();
    expect((await vehicleItem(502))?.ruleRefs).toEqual({});
    expect((await vehicleItem(503))?.ruleRefs).toEqual({});
  });

  it('moves a geozone version onto the vehicles whose rules use the zone', async () => {
    const zone = await storeCircleZone({ parentId: PARENT, name: 'depot', center: { latitude: 55.75, longitude: 37.62 }, radius: 100 });
    const body = notificationBodySchema.parse({ type: 0, parentId: PARENT, name: 'depot', active: true, vehicleIds: [601], geoids: [zone.id] });
    await createRule(newRuleRecord(body, 'Acme', T0));
    await projector.idle();
    expect((await vehicleItem(601))?.zoneRefs).toEqual({ [zone.id]: 1 });

    await replaceGeozone({ ...zone, radius: 200, version: 2 }, 1);
    await projector.idle();
    expect((await vehicleItem(601))?.zoneRefs).toEqual({ [zone.id]: 2 });
  });

  it("journals a client's new zone from the next message of its vehicles and of those of the clients below it", async () => {
    const parent = await createAgent({ name: 'Parent' });
    const child = await createAgent({ name: 'Child', parentId: parent.agentId });
    const other = await createAgent({ name: 'Other' });
    await registerVehicle({ vehicleId: 701, name: 'child truck', parentId: child.agentId }, { allowMove: true });
    await registerVehicle({ vehicleId: 702, name: 'other truck', parentId: other.agentId }, { allowMove: true });
    const evaluate = createEvaluateHandler({ clock: () => T0 + 3_600_000 });
    const message = (vehicleId: number, second: number, latitude: number) =>
      sqsRecord(terminalMessage(vehicleId, second, 30, { latitude, longitude: 40.1 }));
    // seen outside before the zone exists: the zone set of the chain is cached empty
    await invoke(evaluate, [message(701, 0, 50.0), message(702, 0, 50.0)]);
    const before = (await vehicleItem(701))?.zoneSets as Record<string, number>;

    const zone = await storeCircleZone({ parentId: parent.agentId, name: 'new yard', center: { latitude: 50.1, longitude: 40.1 }, radius: 200 });
    await projector.idle();
    const after = (await vehicleItem(701))?.zoneSets as Record<string, number>;
    expect(after[parent.agentId]).toBeGreaterThan(before[parent.agentId]!);
    expect(after[child.agentId]).toBe(before[child.agentId]);
    expect(Object.keys((await vehicleItem(702))?.zoneSets as object)).toEqual([other.agentId]);

    await invoke(evaluate, [message(701, 30, 50.1), message(702, 30, 50.1)]);
    const range = ['2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z'] as const;
    expect((await queryVisits({ kind: 'vehicle', vehicleId: 701 }, ...range)).map((visit) => visit.zoneId)).toEqual([zone.id]);
    expect(await queryVisits({ kind: 'vehicle', vehicleId: 702 }, ...range)).toEqual([]);
  });
});
