import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Emulators } from '../../infra/local/emulators';
import { documentClient } from '../../shared/aws/clients';
import { vehiclesFallingSilent } from '../../shared/store/vehicle-state-store';
import { TABLES, type IndexDefinition } from '../../shared/store/tables';
import { SILENCE_INDEX, silenceShardOf, vehicleStateTable } from '../../shared/store/vehicle-state-store';
import { startTestEmulators } from '../support/emulators';

/**
 * While an upgrade keeps `bySilence` as an older installation built it (`-c indexesAsBefore=bySilence`, keys
 * only), its entries carry no `owner`: the sweep reads each such vehicle's client as unknown.
 */
describe('the silence index as an installation from before built it', () => {
  let emulators: Emulators;
  const silence = TABLES.vehicleState.indexes.find((index) => index.indexName === SILENCE_INDEX) as IndexDefinition;
  const silentAt = Date.parse('2026-11-26T12:00:00Z');

  const putSilent = async (vehicleIds: number[]) => {
    for (const vehicleId of vehicleIds) {
      await documentClient().send(
        new PutCommand({ TableName: vehicleStateTable(), Item: { vehicleId, owner: 'client-a', silenceShard: silenceShardOf(vehicleId), silentAt } }),
      );
    }
  };
  const byVehicle = (vehicles: { vehicleId: number }[]) => vehicles.sort((a, b) => a.vehicleId - b.vehicleId);

  beforeAll(async () => {
    emulators = await startTestEmulators('silence-index-upgrade');
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await emulators?.stop();
  });

  it('holds the owner now, and the sweep reads it', async () => {
    await putSilent([7001]);
    expect(await vehiclesFallingSilent(silentAt)).toEqual([{ vehicleId: 7001, silentAt, owner: 'client-a' }]);
  });

  it('was keys only, and the sweep then reads its vehicles with their owner unknown', async () => {
    expect(silence.before).toBe('KEYS_ONLY');
    const tableName = `${vehicleStateTable()}-before`;
    await new DynamoDBClient({}).send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'vehicleId', AttributeType: 'N' },
          { AttributeName: silence.partitionKey.name, AttributeType: silence.partitionKey.type },
          { AttributeName: silence.sortKey!.name, AttributeType: silence.sortKey!.type },
        ],
        KeySchema: [{ AttributeName: 'vehicleId', KeyType: 'HASH' }],
        GlobalSecondaryIndexes: [
          {
            IndexName: SILENCE_INDEX,
            KeySchema: [
              { AttributeName: silence.partitionKey.name, KeyType: 'HASH' },
              { AttributeName: silence.sortKey!.name, KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'KEYS_ONLY' },
          },
        ],
      }),
    );
    vi.stubEnv('VEHICLE_STATE_TABLE', tableName);
    await putSilent([7001, 7002]);
    expect(byVehicle(await vehiclesFallingSilent(silentAt))).toEqual([
      { vehicleId: 7001, silentAt, owner: null },
      { vehicleId: 7002, silentAt, owner: null },
    ]);
  });
});
