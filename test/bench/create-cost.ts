import { randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/dynamodb';
import { resourcesConfig } from '../../shared/config';
import { createAgent } from '../../shared/store/directory-store';
import { ID_BLOCK_SIZE } from '../../shared/store/client-counts';
import { createGeozone, deleteGeozone, GEOZONES_META_ID, geozonesExist } from '../../shared/store/geozones-store';
import { RULES_META_ID, createRule, deleteRule, newRuleRecord, ruleItem } from '../../shared/store/rules-store';
import { createWebhook, deleteWebhook } from '../../shared/store/webhooks-store';
import { geozoneMeasures } from '../../shared/api/geozone-measures';
import { notificationBodySchema } from '../../shared/schemas/notification';
import type { GeozoneGeometry } from '../../shared/schemas/geozone';
import type { CapacityCounter } from '../support/count-capacity';
import { directoryKeys, webhookKeys } from '../../shared/store/keys';

/**
 * Write units of creating and deleting one rule, geozone (a small one: one item under 1 KB) and webhook
 * endpoint, as the API's store functions write them (each create counted in its client's limit, in the same
 * transaction, the id taken from the client's counter), and the same records written the way they were before
 * the limits moved into the transaction (`…Before`: the global id sequence, then a lone conditional put, and for
 * an endpoint its index entry; a lone delete), in the same run, with `…Delta` the difference. Each client already
 * holds one record of the kind, so its counter exists and holds ids, as it does for every client but on its
 * first create. `…ReadUnits` are the reads a create adds (the counter's consistent read).
 *
 * `largeGeozone…` is a zone of LARGE_ZONE_VERTICES vertices (several KB), whose own item is written twice in
 * the transaction.
 *
 * A counter hands out ID_BLOCK_SIZE ids per draw from the global sequence: `…CreateWithIdBlockDraw…` is a create
 * that finds its counter's block used up, and `idBlockDrawWriteUnitsPerCreate` the draw's share of each create.
 *
 * `…WriteUnits` is DynamoDB Local's ReturnConsumedCapacity, which doubles every write of a transaction,
 * index writes included, and prices the items a transaction writes to one table together. `…BilledWriteUnits`
 * is what DynamoDB bills (CapacityCounter.billedWriteUnits): a transaction's index writes once, each item on
 * its own.
 */
export interface CreateCosts {
  [name: string]: number;
}

const LIMIT = 1_000;
const LARGE_ZONE_VERTICES = 400;

export async function measureCreateCosts(capacity: CapacityCounter): Promise<CreateCosts> {
  const { RULES_TABLE, GEOZONES_TABLE, DIRECTORY_TABLE } = resourcesConfig();
  const send = documentClient().send.bind(documentClient());
  const client = (await createAgent({ name: 'Cost Logistics' })).agentId;
  const figures: CreateCosts = {};
  const measure = async (name: string, run: () => Promise<unknown>) => {
    capacity.reset();
    await run();
    figures[`${name}WriteUnits`] = capacity.writeUnits();
    figures[`${name}BilledWriteUnits`] = capacity.billedWriteUnits();
    figures[`${name}ReadUnits`] = capacity.readUnits();
  };
  /** The counter's block used up, so that the next create draws a new one. */
  const exhaustIds = (kind: 'rules' | 'geozones') =>
    send(
      new UpdateCommand({
        TableName: DIRECTORY_TABLE,
        Key: directoryKeys.count(client, kind),
        UpdateExpression: 'SET #next = #end',
        ExpressionAttributeNames: { '#next': 'next', '#end': 'end' },
      }),
    );
  const nextId = async (table: string, id: number, attribute: string) =>
    Number(
      (
        await send(
          new UpdateCommand({
            TableName: table,
            Key: { id },
            UpdateExpression: 'ADD #last :one',
            ExpressionAttributeNames: { '#last': attribute },
            ExpressionAttributeValues: { ':one': 1 },
            ReturnValues: 'UPDATED_NEW',
          }),
        )
      ).Attributes?.[attribute],
    );
  const putAlone = (table: string, item: Record<string, unknown>, key: string) =>
    send(new PutCommand({ TableName: table, Item: item, ConditionExpression: `attribute_not_exists(${key})` }));

  const geometry: GeozoneGeometry = {
    type: 'Polygon',
    coordinates: [
      [
        [13.4, 52.52],
        [13.41, 52.52],
        [13.41, 52.53],
        [13.4, 52.53],
        [13.4, 52.52],
      ],
    ],
  };
  const zoneBody = {
    name: 'Depot North',
    type: 'polygon' as const,
    parentId: client,
    description: 'yard and gates',
    fname: null,
    radius: null,
    beginCalc: null,
    endCalc: null,
    geometry,
  };
  const zoneRecord = () => ({ ...zoneBody, ...geozoneMeasures(zoneBody.geometry, null), createDate: new Date().toISOString() });
  await createGeozone(zoneRecord(), LIMIT);
  await measure('geozoneCreate', () => createGeozone(zoneRecord(), LIMIT));
  await exhaustIds('geozones');
  await measure('geozoneCreateWithIdBlockDraw', () => createGeozone(zoneRecord(), LIMIT));
  let oldZoneId = 0;
  await measure('geozoneCreateBefore', async () => {
    oldZoneId = await nextId(GEOZONES_TABLE, GEOZONES_META_ID, 'lastGeozoneId');
    await putAlone(GEOZONES_TABLE, { ...zoneRecord(), id: oldZoneId, version: 1 }, 'id');
  });
  const zone = await createGeozone(zoneRecord(), LIMIT);
  // a zone of several KB: a ring of LARGE_ZONE_VERTICES points on a circle
  const ring = Array.from({ length: LARGE_ZONE_VERTICES }, (_, index): [number, number] => {
    const angle = (2 * Math.PI * index) / LARGE_ZONE_VERTICES;
    return [13.4 + 0.01 * Math.cos(angle), 52.52 + 0.01 * Math.sin(angle)];
  });
  const large: GeozoneGeometry = { type: 'Polygon', coordinates: [[...ring, ring[0]!]] };
  const largeRecord = () => ({ ...zoneBody, geometry: large, ...geozoneMeasures(large, null), createDate: new Date().toISOString() });
  await measure('largeGeozoneCreate', () => createGeozone(largeRecord(), LIMIT));
  await measure('largeGeozoneCreateBefore', async () => {
    const id = await nextId(GEOZONES_TABLE, GEOZONES_META_ID, 'lastGeozoneId');
    await putAlone(GEOZONES_TABLE, { ...largeRecord(), id, version: 1 }, 'id');
  });

  const speeding = newRuleRecord(
    notificationBodySchema.parse({
      type: 2,
      parentId: client,
      name: 'Speeding on the highway',
      active: true,
      vehicleIds: [101, 102, 103],
      settings: { limit: '90', minDuration: '10' },
      toEmail: true,
      recipientIds: [randomUUID()],
    }),
    'Cost Logistics',
    Date.now(),
  );
  const inZone = { ...speeding, type: 0 as const, name: 'Depot gates', settings: { mode: 'both' }, geoids: [zone.id] };
  await createRule(speeding, [], LIMIT);
  let rule = speeding as typeof speeding & { id: number };
  await measure('ruleCreate', async () => (rule = await createRule(speeding, [], LIMIT)));
  await exhaustIds('rules');
  await measure('ruleCreateWithIdBlockDraw', () => createRule(speeding, [], LIMIT));
  let oldRuleId = 0;
  await measure('ruleCreateBefore', async () => {
    oldRuleId = await nextId(RULES_TABLE, RULES_META_ID, 'lastRuleId');
    await putAlone(RULES_TABLE, ruleItem({ ...speeding, id: oldRuleId }), 'id');
  });
  await measure('ruleWithGeozoneCreate', () => createRule(inZone, geozonesExist([zone.id]), LIMIT));
  await measure('ruleWithGeozoneCreateBefore', async () => {
    const id = await nextId(RULES_TABLE, RULES_META_ID, 'lastRuleId');
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: RULES_TABLE, Item: ruleItem({ ...inZone, id }), ConditionExpression: 'attribute_not_exists(id)' } },
          ...geozonesExist([zone.id]),
        ],
      }),
    );
  });

  const endpoint = (path: string) => ({ parentId: client, url: `https://hooks.cost.example.com/${path}`, description: 'dispatch board' });
  await createWebhook(endpoint('first'), Date.now(), LIMIT);
  let hook = { id: '' };
  await measure('webhookCreate', async () => (hook = await createWebhook(endpoint('second'), Date.now(), LIMIT)));
  const oldHookId = randomUUID();
  await measure('webhookCreateBefore', () =>
    putAlone(
      DIRECTORY_TABLE,
      {
        ...webhookKeys.endpoint(client, oldHookId),
        gsi1pk: `WEBHOOK#${oldHookId}`,
        gsi1sk: 'ENDPOINT',
        id: oldHookId,
        ...endpoint('third'),
        enabled: true,
        createdAt: new Date().toISOString(),
        disabledAt: null,
        disabledReason: null,
        secret: `whsec_${'x'.repeat(43)}`,
      },
      'pk',
    ),
  );

  await measure('ruleDelete', () => deleteRule(rule.id, 1, client));
  await measure('ruleDeleteBefore', () => send(new DeleteCommand({ TableName: RULES_TABLE, Key: { id: oldRuleId } })));
  const spare = await createGeozone(zoneRecord(), LIMIT);
  await measure('geozoneDelete', () => deleteGeozone(spare.id, 1, 0, client));
  await measure('geozoneDeleteBefore', () => send(new DeleteCommand({ TableName: GEOZONES_TABLE, Key: { id: oldZoneId } })));
  await measure('webhookDelete', () => deleteWebhook(client, hook.id));
  await measure('webhookDeleteBefore', () => send(new DeleteCommand({ TableName: DIRECTORY_TABLE, Key: webhookKeys.endpoint(client, oldHookId) })));

  for (const kind of ['rule', 'ruleWithGeozone', 'geozone', 'largeGeozone', 'webhook']) {
    for (const action of ['Create', 'Delete']) {
      const name = `${kind}${action}`;
      if (figures[`${name}WriteUnits`] === undefined) continue;
      for (const units of ['WriteUnits', 'BilledWriteUnits'])
        figures[`${name}${units}Delta`] = figures[`${name}${units}`]! - figures[`${name}Before${units}`]!;
    }
  }
  figures.idBlockDrawWriteUnits = figures.ruleCreateWithIdBlockDrawBilledWriteUnits! - figures.ruleCreateBilledWriteUnits!;
  figures.idBlockDrawWriteUnitsPerCreate = figures.idBlockDrawWriteUnits / ID_BLOCK_SIZE;
  figures.idBlockSize = ID_BLOCK_SIZE;
  return figures;
}
