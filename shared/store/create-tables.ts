import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  type AttributeDefinition,
  type DynamoDBClient,
  type Projection,
} from '@aws-sdk/client-dynamodb';
import { TABLES, type IndexDefinition, type KeyAttribute, type TableDefinition } from './tables';
import { resourcesConfig } from '../config';

export interface CreateTablesOptions {
  /** Turn on time to live where a table has it (default). Tests whose clocks run in the past turn it off. */
  timeToLive?: boolean;
}

/** Creates every table that does not exist yet. Used by the local runtime, the admin CLI and the tests; CDK does this on AWS. */
export async function createTables(
  client: DynamoDBClient,
  env?: Record<string, string | undefined>,
  options: CreateTablesOptions = {},
): Promise<void> {
  const names = resourcesConfig(env);
  for (const definition of Object.values(TABLES) as TableDefinition[]) {
    await createTable(client, names[definition.envName], definition, options.timeToLive ?? true);
  }
}

async function createTable(client: DynamoDBClient, tableName: string, definition: TableDefinition, timeToLive: boolean): Promise<void> {
  const attributes = new Map<string, KeyAttribute>();
  const remember = (key: KeyAttribute | undefined) => key && attributes.set(key.name, key);
  remember(definition.partitionKey);
  remember(definition.sortKey);
  for (const index of definition.indexes) {
    remember(index.partitionKey);
    remember(index.sortKey);
  }
  const keySchema = (pk: KeyAttribute, sk?: KeyAttribute) => [
    { AttributeName: pk.name, KeyType: 'HASH' as const },
    ...(sk ? [{ AttributeName: sk.name, KeyType: 'RANGE' as const }] : []),
  ];
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [...attributes.values()].map((key): AttributeDefinition => ({ AttributeName: key.name, AttributeType: key.type })),
        KeySchema: keySchema(definition.partitionKey, definition.sortKey),
        ...(definition.stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: definition.stream } } : {}),
        ...(definition.indexes.length
          ? {
              GlobalSecondaryIndexes: definition.indexes.map((index) => ({
                IndexName: index.indexName,
                KeySchema: keySchema(index.partitionKey, index.sortKey),
                Projection: projectionOf(index),
              })),
            }
          : {}),
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
    return;
  }
  await waitUntilActive(client, tableName);
  if (definition.timeToLiveAttribute && timeToLive) {
    try {
      await client.send(
        new UpdateTimeToLiveCommand({
          TableName: tableName,
          TimeToLiveSpecification: { AttributeName: definition.timeToLiveAttribute, Enabled: true },
        }),
      );
    } catch (error) {
      // an emulator without time to live keeps expired items; nothing relies on their removal
      if ((error as Error).name !== 'UnknownOperationException') throw error;
    }
  }
}

async function waitUntilActive(client: DynamoDBClient, tableName: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`table ${tableName} did not become active`);
}

function projectionOf(index: IndexDefinition): Projection {
  const projection = index.projection ?? 'ALL';
  return typeof projection === 'string' ? { ProjectionType: projection } : { ProjectionType: 'INCLUDE', NonKeyAttributes: [...projection.include] };
}
