import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/dynamodb';
import { resourcesConfig } from '../../shared/config';
import { createRule, deleteRule, newRuleRecord, replaceRule } from '../../shared/store/rules-store';
import { createGeozone, replaceGeozone } from '../../shared/store/geozones-store';
import { notificationBodySchema } from '../../shared/schemas/notification';
import type { Emulators } from '../../infra/local/emulators';
import { startStreamProjector, type StreamProjector } from '../../infra/local/stream-projector';
import { startTestEmulators } from '../support/emulators';

/** The projector, fed from the real streams of DynamoDB Local by the local stand-in of the event source mapping. */
const PARENT = '0b5d2c6e-1f3a-4c5d-9e7f-8a9b0c1d2e3f';
const T0 = Date.parse('2026-03-01T00:00:00.000Z');

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

    await deleteRule(rule.id, 2);
    await projector.idle();
    expect((await vehicleItem(502))?.ruleRefs).toEqual({});
    expect((await vehicleItem(503))?.ruleRefs).toEqual({});
  });

  it('moves a geozone version onto the vehicles whose rules use the zone', async () => {
    const zone = await createGeozone({
      name: 'depot',
      type: 'circle',
      parentId: PARENT,
      radius: 100,
      description: '',
      geometry: { type: 'Point', coordinates: [37.62, 55.75] },
      area: 31_400,
      perimetr: 628,
      createDate: new Date(T0).toISOString(),
    });
    const body = notificationBodySchema.parse({ type: 0, parentId: PARENT, name: 'depot', active: true, vehicleIds: [601], geoids: [zone.id] });
    await createRule(newRuleRecord(body, 'Acme', T0));
    await projector.idle();
    expect((await vehicleItem(601))?.zoneRefs).toEqual({ [zone.id]: 1 });

    await replaceGeozone({ ...zone, radius: 200, version: 2 }, 1);
    await projector.idle();
    expect((await vehicleItem(601))?.zoneRefs).toEqual({ [zone.id]: 2 });
  });
});
