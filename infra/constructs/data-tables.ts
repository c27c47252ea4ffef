import { CfnOutput, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table, TableEncryption, type CfnTable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, type IRole } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { TABLES, type IndexDefinition, type KeyAttribute, type TableDefinition, type TableKey } from '../../shared/store/tables';
import { TABLE_OUTPUTS } from '../stack-facts';
import type { IndexPhase, VehicleStateCapacity } from '../context';

/** Autoscaling keeps provisioned capacity this busy: room for a burst while the next step up is made. */
export const TARGET_UTILIZATION_PERCENT = 70;

/** The DynamoDB actions the functions use; nothing else is ever granted. */
export type DynamoAction =
  'GetItem' | 'BatchGetItem' | 'Query' | 'Scan' | 'ConditionCheckItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'BatchWriteItem';

function attribute(key: KeyAttribute): { name: string; type: AttributeType } {
  return { name: key.name, type: key.type === 'N' ? AttributeType.NUMBER : AttributeType.STRING };
}

function projectionOf(index: IndexDefinition): { projectionType: ProjectionType; nonKeyAttributes?: string[] } {
  if (index.projection === undefined || index.projection === 'ALL') return { projectionType: ProjectionType.ALL };
  if (index.projection === 'KEYS_ONLY') return { projectionType: ProjectionType.KEYS_ONLY };
  return { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...index.projection.include] };
}

/**
 * The DynamoDB tables, built from the same definitions the emulators use (`shared/store/tables.ts`).
 * Every table holds data that cannot be rebuilt (rules, alerts history, users), so all are retained
 * on stack deletion and protected against accidental deletion.
 */
export class DataTables extends Construct {
  readonly tables: Record<TableKey, Table>;

  constructor(
    scope: Construct,
    id: string,
    options: { vehicleStateCapacity?: VehicleStateCapacity; indexUpgrade?: ReadonlyMap<string, IndexPhase> } = {},
  ) {
    super(scope, id);
    const entries = (Object.entries(TABLES) as [TableKey, TableDefinition][]).map(([key, definition]) => {
      const capacity = key === 'vehicleState' ? options.vehicleStateCapacity : undefined;
      const provisioned = capacity?.mode === 'provisioned' ? capacity : undefined;
      const startingUnits = provisioned ? { readCapacity: provisioned.minCapacity, writeCapacity: provisioned.minCapacity } : {};
      const table = new Table(this, `${key[0]!.toUpperCase()}${key.slice(1)}Table`, {
        partitionKey: attribute(definition.partitionKey),
        ...(definition.sortKey ? { sortKey: attribute(definition.sortKey) } : {}),
        billingMode: provisioned ? BillingMode.PROVISIONED : BillingMode.PAY_PER_REQUEST,
        ...startingUnits,
        encryption: TableEncryption.AWS_MANAGED,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        deletionProtection: true,
        removalPolicy: RemovalPolicy.RETAIN,
        ...(definition.timeToLiveAttribute ? { timeToLiveAttribute: definition.timeToLiveAttribute } : {}),
        ...(definition.stream ? { stream: StreamViewType.NEW_AND_OLD_IMAGES } : {}),
      });
      const built: string[] = [];
      for (const index of definition.indexes) {
        // an upgrade moves a changed index in two deploys: left out, then created anew (docs/deploy.md)
        const phase = index.before === undefined ? undefined : options.indexUpgrade?.get(index.indexName);
        if (phase === 'absent') continue;
        built.push(index.indexName);
        table.addGlobalSecondaryIndex({
          indexName: index.indexName,
          partitionKey: attribute(index.partitionKey),
          ...(index.sortKey ? { sortKey: attribute(index.sortKey) } : {}),
          ...projectionOf(phase === 'asBefore' ? { ...index, projection: index.before } : index),
          ...startingUnits,
        });
      }
      if (provisioned) autoscale(table, built, provisioned);
      // the stable key, not one derived from the construct path: `npm run admin -- --stack` reads it
      new CfnOutput(this, TABLE_OUTPUTS[key], {
        description: `DynamoDB table ${key} (${definition.envName} for \`npm run admin\`)`,
        value: table.tableName,
      }).overrideLogicalId(TABLE_OUTPUTS[key]);
      return [key, table] as const;
    });
    this.tables = Object.fromEntries(entries) as Record<TableKey, Table>;
  }

  /**
   * Grants a function's role exactly the DynamoDB actions it uses on one table. Query also covers
   * `<table>/index/*`, so queries can use the table's global secondary indexes; that wildcard is acknowledged
   * here, for exactly this table. `leadingKeys` limits the items to partition keys with these prefixes
   * (`dynamodb:LeadingKeys`), so that a function that reads users cannot read sessions or credentials kept in
   * the same table.
   */
  grant(role: IRole, key: TableKey, actions: readonly DynamoAction[], options: { leadingKeys?: readonly string[] } = {}): void {
    const table = this.tables[key];
    const usesIndexes = actions.includes('Query') && TABLES[key].indexes.length > 0;
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [...new Set(actions)].sort().map((action) => `dynamodb:${action}`),
        resources: usesIndexes ? [table.tableArn, `${table.tableArn}/index/*`] : [table.tableArn],
        ...(options.leadingKeys
          ? { conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': options.leadingKeys.map((prefix) => `${prefix}*`) } } }
          : {}),
      }),
    );
    if (usesIndexes) {
      const logicalId = Stack.of(this).resolve((table.node.defaultChild as CfnTable).logicalId) as string;
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${logicalId}.Arn>/index/*]`,
        reason: `Queries use the global secondary indexes of the ${key} table; the wildcard covers only that table's indexes.`,
      });
    }
  }

  /** Environment entry carrying one table's deployed name, under the variable `shared/config.ts` reads. */
  environmentFor(...keys: TableKey[]): Record<string, string> {
    return Object.fromEntries(keys.map((key) => [TABLES[key].envName, this.tables[key].tableName]));
  }
}

/**
 * Target-tracking autoscaling of a provisioned table's read and write units, and of each index's: throttled
 * writes are retried by the SDK, then left on the input queue for redelivery, so a burst shows as queue latency.
 */
function autoscale(table: Table, indexNames: readonly string[], range: { minCapacity: number; maxCapacity: number }): void {
  const bounds = { minCapacity: range.minCapacity, maxCapacity: range.maxCapacity };
  const target = { targetUtilizationPercent: TARGET_UTILIZATION_PERCENT };
  table.autoScaleReadCapacity(bounds).scaleOnUtilization(target);
  table.autoScaleWriteCapacity(bounds).scaleOnUtilization(target);
  for (const indexName of indexNames) {
    table.autoScaleGlobalSecondaryIndexReadCapacity(indexName, bounds).scaleOnUtilization(target);
    table.autoScaleGlobalSecondaryIndexWriteCapacity(indexName, bounds).scaleOnUtilization(target);
  }
}
