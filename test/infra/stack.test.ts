import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLES } from '../../shared/store/tables';
import { FUNCTION_TIMEOUTS, FleetwatchStack, PROJECT_ROOT } from '../../infra/stack';
import { packageCodeBytes, packageCodeFiles } from '../../infra/bundling/bundle';
import { bundleBudget, type FunctionName } from '../../infra/constructs/fleetwatch-function';
import { DEFAULT_SES_MAX_SEND_RATE, deliveryPacing } from '../../infra/constructs/delivery-pacing';
import { DEFAULT_API_RESERVED_CONCURRENCY, DEFAULT_EVALUATE_MAX_CONCURRENCY } from '../../infra/context';
import { ALLOWED_WILDCARDS, narrowedToSender, wildcardResources } from '../support/iam-wildcards';

type Resource = {
  Type: string;
  Properties: Record<string, unknown>;
  DeletionPolicy?: string;
  Condition?: string;
  Metadata?: Record<string, unknown>;
};
type PolicyStatement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: unknown };

const FUNCTION_NAMES: FunctionName[] = ['evaluate', 'sweep', 'deliver', 'api', 'telegram', 'project'];

/** A stack synthesized without bundling: the template is complete, the code assets are not built. */
function unbundledStack(): { app: App; stack: FleetwatchStack } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  return { app, stack: new FleetwatchStack(app, 'FleetwatchTest') };
}

function logicalId(construct: IConstruct): string {
  const element = (construct.node.defaultChild ?? construct) as CfnElement;
  return Stack.of(construct).resolve(element.logicalId) as string;
}

/** A template string built with Fn::Join, with each reference replaced by the logical id it names. */
function flattenJoin(value: unknown): string {
  if (typeof value === 'string') return value;
  const intrinsic = value as { 'Fn::Join'?: [string, unknown[]]; Ref?: string; 'Fn::GetAtt'?: [string, string] };
  if (intrinsic['Fn::Join']) return intrinsic['Fn::Join'][1].map(flattenJoin).join(intrinsic['Fn::Join'][0]);
  return intrinsic.Ref ?? intrinsic['Fn::GetAtt']?.[0] ?? JSON.stringify(value);
}

function asArray<T>(value: T | T[]): T[] {
  return Array.isArray(value) ? value : [value];
}

describe('FleetwatchStack template', () => {
  let stack: FleetwatchStack;
  let template: Template;
  let resources: Record<string, Resource>;

  const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);
  const functionId = (name: FunctionName) => logicalId(stack.functions[name].function);
  const roleStatements = (name: FunctionName): PolicyStatement[] => {
    const roleId = logicalId(stack.functions[name].role);
    return ofType('AWS::IAM::Policy')
      .filter(([, policy]) => JSON.stringify(policy.Properties.Roles).includes(`"${roleId}"`))
      .flatMap(([, policy]) => (policy.Properties.PolicyDocument as { Statement: PolicyStatement[] }).Statement);
  };
  const actionsOf = (name: FunctionName) => roleStatements(name).flatMap((statement) => asArray(statement.Action));
  const environmentOf = (name: FunctionName) =>
    (resources[functionId(name)]!.Properties.Environment as { Variables: Record<string, unknown> }).Variables;

  beforeAll(() => {
    ({ stack } = unbundledStack());
    template = Template.fromStack(stack);
    resources = template.toJSON().Resources as Record<string, Resource>;
  });

  describe('tables', () => {
    it('creates one on-demand, encrypted, point-in-time-recoverable, retained table per shared definition', () => {
      const tables = ofType('AWS::DynamoDB::Table');
      expect(tables).toHaveLength(Object.keys(TABLES).length);
      for (const [key, definition] of Object.entries(TABLES)) {
        const keySchema = [
          { AttributeName: definition.partitionKey.name, KeyType: 'HASH' },
          ...('sortKey' in definition ? [{ AttributeName: definition.sortKey.name, KeyType: 'RANGE' }] : []),
        ];
        const matches = tables.filter(([id]) => id === logicalId(stack.tables.tables[key as keyof typeof TABLES]));
        expect(matches, key).toHaveLength(1);
        const [, table] = matches[0]!;
        expect(table.DeletionPolicy, key).toBe('Retain');
        expect(table.Properties, key).toMatchObject({
          KeySchema: keySchema,
          BillingMode: 'PAY_PER_REQUEST',
          SSESpecification: { SSEEnabled: true },
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          DeletionProtectionEnabled: true,
        });
        const indexes = (table.Properties.GlobalSecondaryIndexes ?? []) as { IndexName: string; KeySchema: unknown }[];
        expect(indexes.map((index) => index.IndexName).sort(), key).toEqual(definition.indexes.map((index) => index.indexName).sort());
        for (const index of definition.indexes) {
          expect(indexes.find((candidate) => candidate.IndexName === index.indexName)?.KeySchema, `${key}.${index.indexName}`).toEqual([
            { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
            ...(index.sortKey ? [{ AttributeName: index.sortKey.name, KeyType: 'RANGE' }] : []),
          ]);
        }
        const ttl = 'timeToLiveAttribute' in definition ? { AttributeName: definition.timeToLiveAttribute, Enabled: true } : undefined;
        expect(table.Properties.TimeToLiveSpecification, key).toEqual(ttl);
      }
    });

    it('keeps the alerts table serving history and the outbox, with TTL on expiresAt', () => {
      template.hasResource('AWS::DynamoDB::Table', {
        Properties: Match.objectLike({
          KeySchema: [{ AttributeName: 'alertId', KeyType: 'HASH' }],
          TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
          GlobalSecondaryIndexes: Match.arrayWith([
            Match.objectLike({ IndexName: 'byParentTime' }),
            Match.objectLike({ IndexName: 'byVehicleTime' }),
            Match.objectLike({
              IndexName: 'outbox',
              KeySchema: [
                { AttributeName: 'outbox', KeyType: 'HASH' },
                { AttributeName: 'createdAt', KeyType: 'RANGE' },
              ],
            }),
          ]),
        }),
      });
    });
    it('narrows the changed indexes to what their readers use, and during an upgrade builds them as before or leaves them out', () => {
      const indexesOf = (built: FleetwatchStack, key: 'alerts' | 'vehicleState') => {
        const tables = Template.fromStack(built).toJSON() as { Resources: Record<string, Resource> };
        const table = tables.Resources[logicalId(built.tables.tables[key])]!.Properties;
        return Object.fromEntries(
          (table.GlobalSecondaryIndexes as { IndexName: string; Projection: unknown }[]).map((index) => [index.IndexName, index.Projection]),
        );
      };
      const withContext = (context: Record<string, string>, id: string) =>
        new FleetwatchStack(new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } }), id);
      expect(indexesOf(stack, 'alerts')).toEqual({
        byParentTime: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['stored', 'ruleId', 'state'] },
        byVehicleTime: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['stored', 'ruleId', 'state', 'parentId'] },
        outbox: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['outboxEnqueuedAt', 'outboxAttempts'] },
        byDue: { ProjectionType: 'KEYS_ONLY' },
      });
      expect(indexesOf(stack, 'vehicleState')).toEqual({
        bySilence: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['owner'] },
        byOwner: { ProjectionType: 'KEYS_ONLY' },
      });
      const start = withContext({ indexesAsBefore: 'byParentTime,byVehicleTime,outbox,bySilence' }, 'FleetwatchUpgradeStart');
      expect(indexesOf(start, 'alerts')).toEqual({
        byParentTime: { ProjectionType: 'ALL' },
        byVehicleTime: { ProjectionType: 'ALL' },
        outbox: { ProjectionType: 'ALL' },
        byDue: { ProjectionType: 'KEYS_ONLY' },
      });
      expect(indexesOf(start, 'vehicleState')).toEqual({ bySilence: { ProjectionType: 'KEYS_ONLY' }, byOwner: { ProjectionType: 'KEYS_ONLY' } });
      // one index of each table moves in the same deploy
      const midway = withContext({ indexesAsBefore: 'byVehicleTime,outbox', indexesLeftOut: 'byParentTime,bySilence' }, 'FleetwatchUpgradeStep');
      expect(Object.keys(indexesOf(midway, 'alerts')).sort()).toEqual(['byDue', 'byVehicleTime', 'outbox']);
      expect(indexesOf(midway, 'vehicleState')).toEqual({ byOwner: { ProjectionType: 'KEYS_ONLY' } });
      // provisioned capacity autoscales only the indexes built
      const provisioned = withContext({ vehicleStateCapacity: 'provisioned', indexesLeftOut: 'bySilence' }, 'FleetwatchUpgradeProvisioned');
      const targets = Object.values((Template.fromStack(provisioned).toJSON() as { Resources: Record<string, Resource> }).Resources).filter(
        (resource) => resource.Type === 'AWS::ApplicationAutoScaling::ScalableTarget',
      );
      expect(targets.map((target) => JSON.stringify(target.Properties.ResourceId)).filter((id) => id.includes('/index/'))).toEqual([
        expect.stringContaining('/index/byOwner'),
        expect.stringContaining('/index/byOwner'),
      ]);
      expect(() => withContext({ indexesLeftOut: 'byDue' }, 'FleetwatchUpgradeBadName')).toThrow(/-c indexesLeftOut="byDue"/);
      expect(() => withContext({ indexesAsBefore: 'bySilence', indexesLeftOut: 'bySilence' }, 'FleetwatchUpgradeBoth')).toThrow(
        /bySilence both in -c indexesAsBefore and -c indexesLeftOut/,
      );
    });

    it('bills the vehicle-state table per request unless -c vehicleStateCapacity=provisioned, which autoscales it and its indexes at 70%', () => {
      expect(ofType('AWS::ApplicationAutoScaling::ScalableTarget')).toEqual([]);
      expect(ofType('AWS::ApplicationAutoScaling::ScalingPolicy')).toEqual([]);

      const context = { vehicleStateCapacity: 'provisioned', vehicleStateMinCapacity: '10', vehicleStateMaxCapacity: '2000' };
      const provisioned = new FleetwatchStack(new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } }), 'FleetwatchProvisioned');
      const chosen = Template.fromStack(provisioned).toJSON() as { Resources: Record<string, Resource> };
      const ofChosenType = (type: string) => Object.entries(chosen.Resources).filter(([, resource]) => resource.Type === type);
      const vehicleStateId = logicalId(provisioned.tables.tables.vehicleState);
      for (const [id, table] of ofChosenType('AWS::DynamoDB::Table')) {
        if (id !== vehicleStateId) {
          expect(table.Properties.BillingMode, id).toBe('PAY_PER_REQUEST');
          continue;
        }
        expect(table.Properties.BillingMode).toBeUndefined();
        expect(table.Properties.ProvisionedThroughput).toEqual({ ReadCapacityUnits: 10, WriteCapacityUnits: 10 });
        for (const index of table.Properties.GlobalSecondaryIndexes as { IndexName: string; ProvisionedThroughput: unknown }[]) {
          expect(index.ProvisionedThroughput, index.IndexName).toEqual({ ReadCapacityUnits: 10, WriteCapacityUnits: 10 });
        }
      }

      const targets = ofChosenType('AWS::ApplicationAutoScaling::ScalableTarget').map(
        ([id, target]) => ({ id, ...target.Properties }) as Record<string, unknown> & { id: string },
      );
      const expected = [
        'table/<table>:dynamodb:table:ReadCapacityUnits',
        'table/<table>:dynamodb:table:WriteCapacityUnits',
        ...TABLES.vehicleState.indexes.flatMap((index) => [
          `table/<table>/index/${index.indexName}:dynamodb:index:ReadCapacityUnits`,
          `table/<table>/index/${index.indexName}:dynamodb:index:WriteCapacityUnits`,
        ]),
      ];
      const described = targets.map(
        (target) => `${flattenJoin(target.ResourceId).replace(vehicleStateId, '<table>')}:${String(target.ScalableDimension)}`,
      );
      expect(described.sort()).toEqual(expected.sort());
      for (const target of targets) expect(target, target.id).toMatchObject({ MinCapacity: 10, MaxCapacity: 2000, ServiceNamespace: 'dynamodb' });

      const policies = ofChosenType('AWS::ApplicationAutoScaling::ScalingPolicy').map(([, policy]) => policy.Properties);
      expect(policies).toHaveLength(targets.length);
      for (const policy of policies) {
        expect(policy).toMatchObject({ PolicyType: 'TargetTrackingScaling', TargetTrackingScalingPolicyConfiguration: { TargetValue: 70 } });
      }
      const backwards = { ...context, vehicleStateMinCapacity: '3000' };
      expect(() => new FleetwatchStack(new App({ context: { 'aws:cdk:bundling-stacks': [], ...backwards } }), 'FleetwatchBadCapacity')).toThrow(
        /-c vehicleStateMaxCapacity=2000 is below -c vehicleStateMinCapacity=3000/,
      );
    });
  });

  describe('queues', () => {
    const queueId = (queue: 'input' | 'inputDeadLetters' | 'deliveries' | 'deliveryDeadLetters') => logicalId(stack.queues[queue]);

    it('receives terminal messages on a FIFO queue that moves a message to a FIFO DLQ after 5 receives', () => {
      const input = resources[queueId('input')]!.Properties;
      expect(input).toMatchObject({
        FifoQueue: true,
        ContentBasedDeduplication: true,
        SqsManagedSseEnabled: true,
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [queueId('inputDeadLetters'), 'Arn'] }, maxReceiveCount: 5 },
      });
      expect(input.QueueName).toMatch(/-messages\.fifo$/);
      expect(resources[queueId('inputDeadLetters')]!.Properties).toMatchObject({ FifoQueue: true, SqsManagedSseEnabled: true });
    });

    it('queues deliveries on a standard queue with its own DLQ', () => {
      const deliveries = resources[queueId('deliveries')]!.Properties;
      expect(deliveries.FifoQueue).toBeUndefined();
      expect(deliveries).toMatchObject({
        SqsManagedSseEnabled: true,
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [queueId('deliveryDeadLetters'), 'Arn'] }, maxReceiveCount: 5 },
      });
      expect(resources[queueId('deliveryDeadLetters')]!.Properties.FifoQueue).toBeUndefined();
    });

    it('gives each consumed queue a visibility timeout of at least six times its consumer timeout', () => {
      const timeoutOf = (name: FunctionName) => resources[functionId(name)]!.Properties.Timeout as number;
      expect(timeoutOf('evaluate')).toBe(FUNCTION_TIMEOUTS.evaluate.toSeconds());
      expect(resources[queueId('input')]!.Properties.VisibilityTimeout as number).toBeGreaterThanOrEqual(6 * timeoutOf('evaluate'));
      expect(resources[queueId('deliveries')]!.Properties.VisibilityTimeout as number).toBeGreaterThanOrEqual(6 * timeoutOf('deliver'));
    });

    it('denies every request to every queue that does not use TLS', () => {
      const queues = ofType('AWS::SQS::Queue').map(([id]) => id);
      expect(queues).toHaveLength(4);
      for (const queue of queues) {
        template.hasResourceProperties('AWS::SQS::QueuePolicy', {
          Queues: [{ Ref: queue }],
          PolicyDocument: {
            Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
          },
        });
      }
    });
  });

  describe('functions', () => {
    it('runs six bundled ESM handlers on nodejs24.x, arm64, each logging JSON without platform lines to its own log group with retention', () => {
      const functions = ofType('AWS::Lambda::Function');
      expect(functions).toHaveLength(6);
      for (const name of FUNCTION_NAMES) {
        const fn = resources[functionId(name)]!.Properties;
        expect(fn, name).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Handler: 'index.handler' });
        const logGroupId = logicalId(stack.functions[name].logGroup);
        // START/END/REPORT lines are dropped (system level WARN): CloudWatch Logs bills every byte
        expect(fn.LoggingConfig, name).toEqual({
          LogGroup: { Ref: logGroupId },
          LogFormat: 'JSON',
          ApplicationLogLevel: 'INFO',
          SystemLogLevel: 'WARN',
        });
        expect(resources[logGroupId]!.Properties.RetentionInDays, name).toBeGreaterThan(0);
        expect(environmentOf(name), name).toMatchObject({
          POWERTOOLS_SERVICE_NAME: `fleetwatch-${name}`,
          POWERTOOLS_METRICS_NAMESPACE: 'fleetwatch',
        });
      }
    });

    it('gives every function a role of its own with no managed policy', () => {
      const roleIds = FUNCTION_NAMES.map((name) => logicalId(stack.functions[name].role));
      expect(new Set(roleIds).size).toBe(FUNCTION_NAMES.length);
      for (const [, role] of ofType('AWS::IAM::Role')) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    });

    it('tells each function exactly the tables it uses, under the names shared/config.ts reads', () => {
      const tableVariables = (name: FunctionName) =>
        Object.keys(environmentOf(name))
          .filter((key) => key.endsWith('_TABLE'))
          .sort();
      // the directory: only the clients' maintenance silences (SILENCE_DIRECTORY_KEYS)
      expect(tableVariables('evaluate')).toEqual([
        'ALERTS_TABLE',
        'DIRECTORY_TABLE',
        'GEOZONES_TABLE',
        'RULES_TABLE',
        'VEHICLE_STATE_TABLE',
        'VISITS_TABLE',
      ]);
      // the directory: only the confirmations that waited for their client's budget (SWEEP_DIRECTORY_KEYS)
      expect(tableVariables('sweep')).toEqual([
        'ALERTS_TABLE',
        'DIRECTORY_TABLE',
        'GEOZONES_TABLE',
        'RULES_TABLE',
        'VEHICLE_STATE_TABLE',
        'VISITS_TABLE',
      ]);
      expect(tableVariables('deliver')).toEqual(['ALERTS_TABLE', 'DIRECTORY_TABLE', 'RULES_TABLE']);
      expect(tableVariables('api')).toEqual([
        'ALERTS_TABLE',
        'DIRECTORY_TABLE',
        'GEOZONES_TABLE',
        'RULES_TABLE',
        'VEHICLE_STATE_TABLE',
        'VISITS_TABLE',
      ]);
      // the rules table: a rule's timezone, for the mute button's "until tomorrow 08:00"
      expect(tableVariables('telegram')).toEqual(['ALERTS_TABLE', 'DIRECTORY_TABLE', 'RULES_TABLE']);
      expect(environmentOf('evaluate')).toMatchObject({
        DELIVERIES_QUEUE_URL: { Ref: logicalId(stack.queues.deliveries) },
        INPUT_DLQ_URL: { Ref: logicalId(stack.queues.inputDeadLetters) },
      });
      expect(environmentOf('deliver')).toMatchObject({
        DELIVERIES_DLQ_URL: { Ref: logicalId(stack.queues.deliveryDeadLetters) },
        SES_FROM_ADDRESS: { Ref: 'SenderAddress' },
        SES_CONFIGURATION_SET: { Ref: logicalId(stack.sesFeedback.configurationSet) },
        PUBLIC_API_URL: expect.anything(),
        PUSH_FCM_APPLICATION_ARN: { Ref: 'FcmPlatformApplicationArn' },
        PUSH_APNS_APPLICATION_ARN: { Ref: 'ApnsPlatformApplicationArn' },
        TEMPLATES_DIR: '/var/task/templates',
      });
      expect(environmentOf('api')).toMatchObject({
        RATE_LIMIT_INTERVAL_MS: '1000',
        TELEGRAM_BOT_USERNAME: { Ref: 'TelegramBotUsername' },
        TEMPLATES_DIR: '/var/task/templates',
      });
    });

    it('points the api and deliver functions, which read phone numbers, at the numbering plan in their package, and no other', () => {
      const planFiles = Object.fromEntries(FUNCTION_NAMES.map((name) => [name, environmentOf(name).PHONE_PLAN_FILE]));
      expect(planFiles).toEqual({
        evaluate: undefined,
        sweep: undefined,
        deliver: '/var/task/phone-plan.json',
        api: '/var/task/phone-plan.json',
        telegram: undefined,
        project: undefined,
      });
    });

    it("lets the api function geocode addresses on the region's own place data, and nothing else of Amazon Location; -c geocoding=false turns it off", () => {
      expect(environmentOf('api').GEOCODER).toBe('amazon-location');
      const geocoding = roleStatements('api').filter((statement) => asArray(statement.Action).some((action) => String(action).startsWith('geo')));
      expect(geocoding).toHaveLength(1);
      expect(asArray(geocoding[0]!.Action)).toEqual(['geo-places:Geocode']);
      expect(JSON.stringify(geocoding[0]!.Resource)).toMatch(/:geo-places:",\{"Ref":"AWS::Region"\},"::provider\/default"/);
      for (const name of FUNCTION_NAMES.filter((name) => name !== 'api')) {
        expect(environmentOf(name).GEOCODER, name).toBeUndefined();
        expect(
          actionsOf(name).some((action) => action.startsWith('geo')),
          name,
        ).toBe(false);
      }
      const app = new App({ context: { 'aws:cdk:bundling-stacks': [], geocoding: 'false' } });
      const off = Template.fromStack(new FleetwatchStack(app, 'FleetwatchNoGeocoding')).toJSON() as {
        Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
      };
      expect(JSON.stringify(off.Resources)).not.toMatch(/geo-places|GEOCODER/);
    });

    it('stores vehicle clocks exactly unless -c vehicleClock=coalesced, and tells evaluate, the sweep and the preview the same', () => {
      const clocked = ['evaluate', 'sweep', 'api'] as const;
      for (const name of clocked) expect(environmentOf(name).VEHICLE_CLOCK, name).toBe('exact');
      for (const name of FUNCTION_NAMES.filter((name) => !(clocked as readonly string[]).includes(name)))
        expect(environmentOf(name).VEHICLE_CLOCK, name).toBeUndefined();
      const app = new App({ context: { 'aws:cdk:bundling-stacks': [], vehicleClock: 'coalesced' } });
      const coalesced = new FleetwatchStack(app, 'FleetwatchCoalescedClock');
      const variables = Template.fromStack(coalesced).toJSON() as { Resources: Record<string, Resource> };
      const clockOf = (name: (typeof clocked)[number]) =>
        (variables.Resources[logicalId(coalesced.functions[name].function)]!.Properties.Environment as { Variables: Record<string, unknown> })
          .Variables.VEHICLE_CLOCK;
      expect(clocked.map(clockOf)).toEqual(['coalesced', 'coalesced', 'coalesced']);
      const typo = new App({ context: { 'aws:cdk:bundling-stacks': [], vehicleClock: 'exactly' } });
      expect(() => new FleetwatchStack(typo, 'FleetwatchBadClock')).toThrow(
        /-c vehicleClock="exactly": Invalid option: expected one of "exact"\|"coalesced"/,
      );
    });

    it('ages messages by -c maxEventAgeSeconds (900 unless set) in evaluate and the preview, and nowhere else', () => {
      const aged = ['evaluate', 'api'] as const;
      for (const name of aged) expect(environmentOf(name).MAX_EVENT_AGE_SECONDS, name).toBe('900');
      for (const name of FUNCTION_NAMES.filter((name) => !(aged as readonly string[]).includes(name)))
        expect(environmentOf(name).MAX_EVENT_AGE_SECONDS, name).toBeUndefined();
      const app = new App({ context: { 'aws:cdk:bundling-stacks': [], maxEventAgeSeconds: '3600' } });
      const longer = new FleetwatchStack(app, 'FleetwatchLongerAge');
      const variables = Template.fromStack(longer).toJSON() as { Resources: Record<string, Resource> };
      const ageOf = (name: (typeof aged)[number]) =>
        (variables.Resources[logicalId(longer.functions[name].function)]!.Properties.Environment as { Variables: Record<string, unknown> }).Variables
          .MAX_EVENT_AGE_SECONDS;
      expect(aged.map(ageOf)).toEqual(['3600', '3600']);
      const typo = new App({ context: { 'aws:cdk:bundling-stacks': [], maxEventAgeSeconds: '15m' } });
      expect(() => new FleetwatchStack(typo, 'FleetwatchBadAge')).toThrow(/-c maxEventAgeSeconds="15m"/);
    });

    it('keeps tables and log groups when the stack is deleted unless -c throwaway=true, which removes them all, the secret and keys too', () => {
      const kept = (type: string) => ofType(type).map(([id, resource]) => [id, resource.DeletionPolicy]);
      for (const type of ['AWS::DynamoDB::Table', 'AWS::Logs::LogGroup']) {
        expect(kept(type).length, type).toBeGreaterThan(0);
        for (const [id, policy] of kept(type)) expect(policy, id).toBe('Retain');
      }
      for (const [id, table] of ofType('AWS::DynamoDB::Table')) expect(table.Properties.DeletionProtectionEnabled, id).toBe(true);

      const throwaway = (value: unknown) =>
        Template.fromStack(
          new FleetwatchStack(new App({ context: { 'aws:cdk:bundling-stacks': [], throwaway: value } }), 'FleetwatchThrowaway'),
        ).toJSON() as {
          Resources: Record<string, Resource>;
        };
      for (const value of ['true', true]) {
        const all = Object.entries(throwaway(value).Resources);
        const of = (type: string) => all.filter(([, resource]) => resource.Type === type);
        for (const type of ['AWS::DynamoDB::Table', 'AWS::Logs::LogGroup', 'AWS::SecretsManager::Secret', 'AWS::KMS::Key']) {
          expect(of(type).length, type).toBeGreaterThan(0);
          for (const [id, resource] of of(type)) expect(resource.DeletionPolicy, `${id} with throwaway=${String(value)}`).toBe('Delete');
        }
        expect(all.filter(([, resource]) => resource.DeletionPolicy === 'Retain' || resource.DeletionPolicy === 'RetainExceptOnCreate')).toEqual([]);
        for (const [id, table] of of('AWS::DynamoDB::Table')) expect(table.Properties.DeletionProtectionEnabled, id).toBe(false);
      }
      const retained = Object.values(throwaway('false').Resources).filter((resource) => resource.Type === 'AWS::DynamoDB::Table');
      expect(retained.map((table) => [table.DeletionPolicy, table.Properties.DeletionProtectionEnabled])).toEqual(
        retained.map(() => ['Retain', true]),
      );
      expect(() => throwaway('yes')).toThrow(/-c throwaway="yes": .*expected one of "true"\|"false"/);
    });

    it('never puts a secret in an environment variable: functions get only secret ARNs, and read only their own secret', () => {
      const secrets = ofType('AWS::SecretsManager::Secret');
      expect(secrets).toHaveLength(3);
      const [telegramId] = secrets.find(([, secret]) => JSON.stringify(secret.Properties.GenerateSecretString).includes('webhookSecret'))!;
      const [linkKeyId, linkKey] = secrets.find(([, secret]) => String(secret.Properties.Description).includes('acknowledge links'))!;
      const [historyKeyId, historyKey] = secrets.find(([id]) => id !== telegramId && id !== linkKeyId)!;
      expect(linkKey.Properties.GenerateSecretString).toMatchObject({ PasswordLength: 64 });
      expect(resources[telegramId]!.Properties.GenerateSecretString).toMatchObject({ GenerateStringKey: 'webhookSecret', ExcludePunctuation: true });
      expect(historyKey.Properties.GenerateSecretString).toMatchObject({ PasswordLength: 64 });
      for (const name of FUNCTION_NAMES) {
        for (const [variable, value] of Object.entries(environmentOf(name))) {
          if (typeof value === 'string') expect(value, `${name} ${variable}`).not.toMatch(/token|password|secret/i);
          expect(JSON.stringify(value), `${name} ${variable}`).not.toMatch(/botToken|webhookSecret/);
        }
      }
      const secretResources = (name: FunctionName) =>
        roleStatements(name)
          .filter((statement) => asArray(statement.Action).some((action) => action.startsWith('secretsmanager:')))
          .flatMap((statement) => asArray(statement.Resource).map(flattenJoin));
      for (const name of ['deliver', 'telegram'] as const) expect(environmentOf(name).TELEGRAM_SECRET_ID, name).toEqual({ Ref: telegramId });
      expect(new Set(secretResources('telegram'))).toEqual(new Set([telegramId]));
      // deliver signs the acknowledge links, the api checks them
      expect(new Set(secretResources('deliver'))).toEqual(new Set([telegramId, linkKeyId]));
      for (const name of ['deliver', 'api'] as const) expect(environmentOf(name).ALERT_LINK_SECRET_ID, name).toEqual({ Ref: linkKeyId });
      expect(environmentOf('api').HISTORY_TOKEN_SECRET_ID).toEqual({ Ref: historyKeyId });
      expect(new Set(secretResources('api'))).toEqual(new Set([historyKeyId, linkKeyId]));
      for (const name of ['evaluate', 'sweep', 'api'] as const) expect(environmentOf(name).TELEGRAM_SECRET_ID, name).toBeUndefined();
      for (const name of ['evaluate', 'sweep', 'project'] as const) expect(secretResources(name), name).toEqual([]);
    });
  });

  describe('least privilege', () => {
    const tableId = (key: keyof typeof TABLES) => logicalId(stack.tables.tables[key]);
    const touchesTable = (name: FunctionName, key: keyof typeof TABLES) =>
      roleStatements(name).some((statement) => JSON.stringify(statement.Resource).includes(`"${tableId(key)}"`));
    const writesTable = (name: FunctionName, key: keyof typeof TABLES) =>
      roleStatements(name).some(
        (statement) => JSON.stringify(statement.Resource).includes(`"${tableId(key)}"`) && asArray(statement.Action).includes('dynamodb:PutItem'),
      );

    it('grants no wildcard action and no wildcard resource, but ListStreams to the projector and the metric read to the sweep', () => {
      for (const name of FUNCTION_NAMES) {
        for (const statement of roleStatements(name)) {
          expect(
            asArray(statement.Action).filter((action) => action.includes('*')),
            name,
          ).toEqual([]);
          // ListStreams has no resource-level permission; it lists stream ARNs, never data
          if (name === 'project' && asArray(statement.Action).join() === 'dynamodb:ListStreams') continue;
          // CloudWatch grants metric reads only on "*"
          if (name === 'sweep' && asArray(statement.Action).join() === 'cloudwatch:GetMetricStatistics') continue;
          // SES grants reading the account's sending quota only on "*"
          if (name === 'deliver' && asArray(statement.Action).join() === 'ses:GetAccount') continue;
          if (name === 'deliver' && narrowedToSender(statement)) continue;
          const ownLogStreams = (wildcard: string) => wildcard.endsWith(':*') && wildcard.startsWith(`<${logicalId(stack.functions[name].logGroup)}`);
          const unexpected = wildcardResources(statement).filter(
            (wildcard) => !ownLogStreams(wildcard) && !ALLOWED_WILDCARDS.some((allowed) => allowed.test(wildcard)),
          );
          expect(unexpected, name).toEqual([]);
        }
      }
    });

    it("lets the sweep read the input queue's age from CloudWatch, by the queue's name", () => {
      expect(actionsOf('sweep')).toContain('cloudwatch:GetMetricStatistics');
      const environment = JSON.stringify(template.findResources('AWS::Lambda::Function'));
      expect(environment).toContain('INPUT_QUEUE_NAME');
    });

    it('lets the projector read the rules and geozones streams and update vehicle items, and nothing else', () => {
      // the directory only to walk the client hierarchy (Query on AGENT# keys), never written
      expect(writesTable('project', 'directory')).toBe(false);
      expect(touchesTable('project', 'alerts')).toBe(false);
      expect(writesTable('project', 'rules')).toBe(false);
      expect(writesTable('project', 'geozones')).toBe(false);
      expect(touchesTable('project', 'vehicleState')).toBe(true);
    });

    it('keeps evaluate away from e-mail, push, secrets and the directory but its silences, and read-only on rules and geozones', () => {
      expect(actionsOf('evaluate').filter((action) => /^(ses|sns|secretsmanager):/.test(action))).toEqual([]);
      expect(writesTable('evaluate', 'directory')).toBe(false);
      const directory = roleStatements('evaluate').filter((statement) =>
        JSON.stringify(statement.Resource).includes(`"${logicalId(stack.tables.tables.directory)}"`),
      );
      expect(directory.map((statement) => [asArray(statement.Action), statement.Condition])).toEqual([
        [['dynamodb:Query'], { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['SILENCE#*'] } }],
      ]);
      expect(touchesTable('evaluate', 'rules')).toBe(true);
      expect(writesTable('evaluate', 'rules')).toBe(false);
      expect(writesTable('evaluate', 'geozones')).toBe(false);
      expect(writesTable('evaluate', 'vehicleState')).toBe(true);
      expect(writesTable('evaluate', 'alerts')).toBe(true);
    });

    it('lets only deliver send e-mail, and only from the sender address or its domain', () => {
      for (const name of ['evaluate', 'sweep', 'api', 'telegram'] as const) {
        expect(
          actionsOf(name).filter((action) => action.startsWith('ses:')),
          name,
        ).toEqual([]);
      }
      const send = roleStatements('deliver').filter((statement) => asArray(statement.Action).includes('ses:SendEmail'));
      const [named, anyIdentity] = [
        send.filter((statement) => !JSON.stringify(statement.Resource).includes('identity/*')),
        send.filter((statement) => JSON.stringify(statement.Resource).includes('identity/*')),
      ];
      const resourcesJson = JSON.stringify(named.map((statement) => statement.Resource));
      expect(resourcesJson).toContain(':identity/');
      expect(resourcesJson).toContain('{"Ref":"SenderAddress"}');
      expect(resourcesJson).toContain(':configuration-set/');
      expect(resourcesJson).toContain(logicalId(stack.sesFeedback.configurationSet));
      expect(named.every((statement) => statement.Condition === undefined)).toBe(true);
      // the SES sandbox authorizes a send against the recipient's identity too (AccessDenied otherwise): every
      // identity is granted, for e-mails from the sender address alone
      expect(anyIdentity).toHaveLength(1);
      expect(anyIdentity[0]!.Condition).toEqual({ StringEquals: { 'ses:FromAddress': { Ref: 'SenderAddress' } } });
    });

    it('grants endpoint registration to the api only for configured platform applications', () => {
      const registration = ofType('AWS::IAM::Policy').filter(([, policy]) =>
        JSON.stringify(policy.Properties.PolicyDocument).includes('sns:CreatePlatformEndpoint'),
      );
      expect(registration.map(([, policy]) => policy.Condition).sort()).toEqual(['HasApnsPlatformApplication', 'HasFcmPlatformApplication']);
      for (const [, policy] of registration) expect(JSON.stringify(policy.Properties.Roles)).toContain(logicalId(stack.functions.api.role));
      expect(actionsOf('deliver')).toEqual(expect.arrayContaining(['sns:Publish', 'sns:DeleteEndpoint']));
      // a token registered by another user moves to the caller: the api reads and rewrites the endpoint's owner, never sends or deletes
      expect(actionsOf('api')).toEqual(expect.arrayContaining(['sns:GetEndpointAttributes', 'sns:SetEndpointAttributes']));
      expect(actionsOf('api')).not.toEqual(expect.arrayContaining(['sns:Publish']));
      expect(actionsOf('api')).not.toEqual(expect.arrayContaining(['sns:DeleteEndpoint']));
      expect(actionsOf('evaluate').some((action) => action.startsWith('sns:'))).toBe(false);
    });

    it('lets the api and the Telegram webhook change alerts only by updating their state, and keeps the webhook off other tables', () => {
      expect(touchesTable('api', 'alerts')).toBe(true);
      expect(writesTable('api', 'alerts')).toBe(false);
      expect(writesTable('api', 'rules')).toBe(true);
      expect(touchesTable('telegram', 'alerts')).toBe(true);
      expect(writesTable('telegram', 'alerts')).toBe(false);
      for (const key of ['geozones', 'vehicleState'] as const) expect(touchesTable('telegram', key), key).toBe(false);
      // a rule's timezone, for the mute button, and nothing written
      expect(writesTable('telegram', 'rules')).toBe(false);
      expect(writesTable('telegram', 'directory')).toBe(true);
      expect(touchesTable('deliver', 'vehicleState')).toBe(false);
      expect(writesTable('deliver', 'rules')).toBe(false);
    });
  });

  describe('event sources', () => {
    it('feeds evaluate from the input queue, deliver from the deliveries queue and the projector from the rules and geozones streams, reporting batch item failures', () => {
      const mappings = ofType('AWS::Lambda::EventSourceMapping').map(([, mapping]) => mapping.Properties);
      expect(mappings).toHaveLength(4);
      const streams = mappings.filter((mapping) => JSON.stringify(mapping.FunctionName).includes(functionId('project')));
      expect(streams.map((mapping) => mapping.EventSourceArn)).toEqual([
        { 'Fn::GetAtt': [logicalId(stack.tables.tables.rules), 'StreamArn'] },
        { 'Fn::GetAtt': [logicalId(stack.tables.tables.geozones), 'StreamArn'] },
      ]);
      for (const mapping of streams)
        expect(mapping).toMatchObject({ FunctionResponseTypes: ['ReportBatchItemFailures'], BisectBatchOnFunctionError: true });
      const forFunction = (name: FunctionName) => mappings.find((mapping) => JSON.stringify(mapping.FunctionName).includes(functionId(name)));
      expect(forFunction('evaluate')).toMatchObject({
        EventSourceArn: { 'Fn::GetAtt': [logicalId(stack.queues.input), 'Arn'] },
        BatchSize: 10,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
      expect(forFunction('deliver')).toMatchObject({
        EventSourceArn: { 'Fn::GetAtt': [logicalId(stack.queues.deliveries), 'Arn'] },
        BatchSize: 10,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
      expect(forFunction('deliver')!.MaximumBatchingWindowInSeconds).toBeGreaterThan(0);
    });

    it('runs the sweep every minute without stacking retries of a failed run', () => {
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'rate(1 minute)',
        State: 'ENABLED',
        Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [functionId('sweep'), 'Arn'] } })],
      });
      template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: functionId('sweep') },
        MaximumRetryAttempts: 0,
      });
    });
  });

  describe('HTTP API', () => {
    it('routes /api/v3 and openapi.json to the api function and the Telegram webhook to its function', () => {
      const integrationTarget = Object.fromEntries(
        ofType('AWS::ApiGatewayV2::Integration').map(([id, integration]) => [id, JSON.stringify(integration.Properties.IntegrationUri)]),
      );
      const routes = Object.fromEntries(
        ofType('AWS::ApiGatewayV2::Route').map(([, route]) => {
          const target = JSON.stringify(route.Properties.Target);
          const integrationId = Object.keys(integrationTarget).find((id) => target.includes(`"${id}"`))!;
          return [route.Properties.RouteKey as string, integrationTarget[integrationId]];
        }),
      );
      expect(Object.keys(routes).sort()).toEqual(['ANY /api/v3/{proxy+}', 'GET /api/v3/openapi.json', 'POST /telegram/webhook']);
      expect(routes['ANY /api/v3/{proxy+}']).toContain(functionId('api'));
      expect(routes['GET /api/v3/openapi.json']).toContain(functionId('api'));
      expect(routes['POST /telegram/webhook']).toContain(functionId('telegram'));
    });

    it('writes JSON access logs without headers or bodies, and throttles the stage', () => {
      template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
        StageName: '$default',
        AutoDeploy: true,
        AccessLogSettings: { DestinationArn: { 'Fn::GetAtt': [logicalId(stack.httpApi.accessLogs), 'Arn'] }, Format: Match.anyValue() },
        DefaultRouteSettings: Match.objectLike({ ThrottlingRateLimit: Match.anyValue(), ThrottlingBurstLimit: Match.anyValue() }),
      });
      const [, stage] = ofType('AWS::ApiGatewayV2::Stage')[0]!;
      const format = JSON.parse((stage.Properties.AccessLogSettings as { Format: string }).Format) as Record<string, string>;
      expect(format.requestId).toBe('$context.requestId');
      expect(Object.values(format).some((variable) => /header|requestBody|authorizer/i.test(variable))).toBe(false);
    });
  });

  describe('observability', () => {
    const alarms = () => ofType('AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
    const alarmOn = (metricName: string, dimension?: string) =>
      alarms().find(
        (alarm) => alarm.MetricName === metricName && (dimension === undefined || JSON.stringify(alarm.Dimensions).includes(`"${dimension}"`)),
      );

    const alarmUsing = (text: string) => alarms().filter((alarm) => JSON.stringify(alarm).includes(text));

    it('alarms when messages arrive on a DLQ, not while they wait there', () => {
      for (const queue of [stack.queues.inputDeadLetters, stack.queues.deliveryDeadLetters]) {
        const [arrivals, ...others] = alarmUsing(`"${logicalId(queue)}"`);
        expect(others).toEqual([]);
        const metrics = arrivals!.Metrics as Array<{ Expression?: string; ReturnData?: boolean; MetricStat?: { Metric: { MetricName: string } } }>;
        expect(metrics.find((metric) => metric.Expression)?.Expression).toBe('IF(DIFF(visible) > 0, DIFF(visible), 0)');
        expect(metrics.find((metric) => metric.MetricStat)?.MetricStat?.Metric.MetricName).toBe('ApproximateNumberOfMessagesVisible');
        expect(arrivals).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', EvaluationPeriods: 1 });
      }
    });

    it('alarms on errors and throttles of every function, and on throttled requests to every table', () => {
      for (const name of Object.keys(stack.functions) as FunctionName[]) {
        expect(alarmOn('Errors', functionId(name)), name).toMatchObject({ Namespace: 'AWS/Lambda', Threshold: 1 });
        expect(alarmOn('Throttles', functionId(name)), name).toMatchObject({ Namespace: 'AWS/Lambda', Threshold: 1 });
      }
      for (const [name, table] of Object.entries(stack.tables.tables)) {
        const [throttles] = alarmUsing(`"${logicalId(table)}"`).filter((alarm) => JSON.stringify(alarm).includes('ReadThrottleEvents'));
        expect(JSON.stringify(throttles), name).toContain('WriteThrottleEvents');
      }
    });

    it("alarms on SES bounce and complaint rates at SES's review thresholds, the input backlog, delivery failures and API 5xx", () => {
      expect(alarmOn('Reputation.BounceRate')).toMatchObject({ Namespace: 'AWS/SES', Threshold: 0.05 });
      expect(alarmOn('Reputation.ComplaintRate')).toMatchObject({ Namespace: 'AWS/SES', Threshold: 0.001 });
      expect(alarmOn('ApproximateAgeOfOldestMessage', logicalId(stack.queues.input))).toMatchObject({ Namespace: 'AWS/SQS' });
      const deliveryFailures = alarms().find((alarm) => JSON.stringify(alarm.Metrics ?? []).includes('DeliveryFailures'));
      expect(JSON.stringify(deliveryFailures?.Metrics)).toContain('SELECT SUM(DeliveryFailures) FROM fleetwatch');
      expect(alarmOn('5xx', logicalId(stack.httpApi.httpApi))).toMatchObject({ Namespace: 'AWS/ApiGateway', Statistic: 'Sum', Threshold: 5 });
    });

    it('alarms once the sweep holds connection losses for an interrupted feed, tuned by -c feedOutageShare and feedOutageMinVehicles', () => {
      const [feed, ...others] = alarms().filter((alarm) => JSON.stringify(alarm.Metrics ?? []).includes('SUM(FeedOutages)'));
      expect(others).toEqual([]);
      expect(feed).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', EvaluationPeriods: 1 });
      expect(String(feed!.AlarmDescription)).toContain('feed interrupted');
      expect(environmentOf('sweep')).toMatchObject({ FEED_OUTAGE_SHARE: '0.5', FEED_OUTAGE_MIN_VEHICLES: '50' });
      // the client of each silent vehicle is read from the silence index itself
      const [, stateTable] = ofType('AWS::DynamoDB::Table').find(([id]) => id === logicalId(stack.tables.tables.vehicleState))!;
      const indexes = stateTable.Properties.GlobalSecondaryIndexes as { IndexName: string; Projection: unknown }[];
      expect(indexes.find((index) => index.IndexName === 'bySilence')?.Projection).toEqual({
        ProjectionType: 'INCLUDE',
        NonKeyAttributes: ['owner'],
      });

      const tuned = new FleetwatchStack(
        new App({ context: { 'aws:cdk:bundling-stacks': [], feedOutageShare: '0.8', feedOutageMinVehicles: '200' } }),
        'FleetwatchFeedOutage',
      );
      const sweep = (Template.fromStack(tuned).toJSON().Resources as Record<string, Resource>)[logicalId(tuned.functions.sweep.function)]!;
      expect((sweep.Properties.Environment as { Variables: Record<string, unknown> }).Variables).toMatchObject({
        FEED_OUTAGE_SHARE: '0.8',
        FEED_OUTAGE_MIN_VEHICLES: '200',
      });
      const bad = new App({ context: { 'aws:cdk:bundling-stacks': [], feedOutageShare: '1.5' } });
      expect(() => new FleetwatchStack(bad, 'FleetwatchBadFeedOutage')).toThrow(/feedOutageShare/);
    });

    it('alarms at 80 % of the SES daily quota, on the share the deliver function reads with GetAccount and publishes', () => {
      const quota = alarms().filter((alarm) => JSON.stringify(alarm.Metrics ?? []).includes('SesQuotaUsedPercent'));
      expect(quota).toHaveLength(1);
      expect(quota[0]).toMatchObject({ Threshold: 80, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
      const [query] = (quota[0]!.Metrics as { Expression: string }[]).map((metric) => metric.Expression);
      expect(query).toBe('SELECT MAX(SesQuotaUsedPercent) FROM fleetwatch');
      const getAccount = roleStatements('deliver').filter((statement) => asArray(statement.Action).includes('ses:GetAccount'));
      expect(getAccount).toHaveLength(1);
      for (const name of ['evaluate', 'sweep', 'api', 'telegram', 'project'] as const) expect(actionsOf(name), name).not.toContain('ses:GetAccount');
    });

    it('caps concurrent deliver functions and paces each, so that a burst of alerts stays under the SES send rate', () => {
      const deliverSource = ofType('AWS::Lambda::EventSourceMapping').find(([, mapping]) =>
        JSON.stringify(mapping.Properties.FunctionName).includes(functionId('deliver')),
      );
      const pacing = deliveryPacing(DEFAULT_SES_MAX_SEND_RATE);
      expect(deliverSource![1].Properties.ScalingConfig).toEqual({ MaximumConcurrency: pacing.maxConcurrency });
      expect(environmentOf('deliver').SES_SEND_RATE_PER_FUNCTION).toBe(String(pacing.perFunctionRate));
      expect(pacing.maxConcurrency * pacing.perFunctionRate).toBeLessThanOrEqual(DEFAULT_SES_MAX_SEND_RATE);

      const app = new App({ context: { 'aws:cdk:bundling-stacks': [], sesMaxSendRate: '100' } });
      const fast = Template.fromStack(new FleetwatchStack(app, 'FleetwatchFastSes'));
      fast.hasResourceProperties('AWS::Lambda::EventSourceMapping', { ScalingConfig: { MaximumConcurrency: 20 } });
      fast.hasResourceProperties('AWS::Lambda::Function', { Environment: { Variables: Match.objectLike({ SES_SEND_RATE_PER_FUNCTION: '5' }) } });
    });

    it('bounds evaluate and deliver and reserves concurrency for the API, so that a backlog never starves the API', () => {
      const scaling = (built: FleetwatchStack, name: FunctionName) => {
        const mappings = Template.fromStack(built).findResources('AWS::Lambda::EventSourceMapping');
        const id = logicalId(built.functions[name].function);
        return Object.values(mappings).find((mapping) => JSON.stringify(mapping.Properties.FunctionName).includes(id))?.Properties.ScalingConfig;
      };
      const functionProperties = (built: FleetwatchStack, name: FunctionName) =>
        (Template.fromStack(built).toJSON().Resources as Record<string, Resource>)[logicalId(built.functions[name].function)]!.Properties;

      expect(scaling(stack, 'evaluate')).toEqual({ MaximumConcurrency: DEFAULT_EVALUATE_MAX_CONCURRENCY });
      // the default deploys on a new account (limit 10): Lambda refuses a reservation leaving fewer than 100 unreserved
      expect(DEFAULT_API_RESERVED_CONCURRENCY).toBe(0);
      for (const name of ['evaluate', 'deliver', 'sweep', 'api', 'telegram', 'project'] as const) {
        expect(resources[functionId(name)]!.Properties.ReservedConcurrentExecutions, name).toBeUndefined();
      }
      const reserving = new FleetwatchStack(
        new App({ context: { 'aws:cdk:bundling-stacks': [], apiReservedConcurrency: '20' } }),
        'FleetwatchReserving',
      );
      expect(functionProperties(reserving, 'api').ReservedConcurrentExecutions).toBe(20);

      const context = { evaluateMaxConcurrency: '40', deliverMaxConcurrency: '2', apiReservedConcurrency: '0', sesMaxSendRate: '100' };
      const set = new FleetwatchStack(new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } }), 'FleetwatchConcurrency');
      expect(scaling(set, 'evaluate')).toEqual({ MaximumConcurrency: 40 });
      // a ceiling below what the send rate allows lowers deliver's concurrency, and each function's share rises
      expect(scaling(set, 'deliver')).toEqual({ MaximumConcurrency: 2 });
      expect((functionProperties(set, 'deliver').Environment as { Variables: Record<string, unknown> }).Variables.SES_SEND_RATE_PER_FUNCTION).toBe(
        '50',
      );
      expect(functionProperties(set, 'api').ReservedConcurrentExecutions).toBeUndefined();

      const bad = new App({ context: { 'aws:cdk:bundling-stacks': [], evaluateMaxConcurrency: '1' } });
      expect(() => new FleetwatchStack(bad, 'FleetwatchBadConcurrency')).toThrow(/evaluateMaxConcurrency/);
    });

    it('notifies an encrypted, TLS-only topic on alarm and on recovery, mailing AlarmEmail only when it is set', () => {
      const topicId = logicalId(stack.monitoring.topic);
      for (const alarm of alarms()) {
        expect(alarm.AlarmActions).toEqual([{ Ref: topicId }]);
        expect(alarm.OKActions).toEqual([{ Ref: topicId }]);
        expect(alarm.TreatMissingData).toBe('notBreaching');
      }
      expect(resources[topicId]!.Properties.KmsMasterKeyId).toBeDefined();
      template.hasResource('AWS::SNS::Subscription', {
        Condition: 'HasAlarmEmail',
        Properties: { Protocol: 'email', Endpoint: { Ref: 'AlarmEmail' }, TopicArn: { Ref: topicId } },
      });
      template.hasResourceProperties('AWS::KMS::Key', {
        EnableKeyRotation: true,
        KeyPolicy: { Statement: Match.arrayWith([Match.objectLike({ Principal: { Service: 'cloudwatch.amazonaws.com' } })]) },
      });
      template.hasResourceProperties('AWS::SNS::TopicPolicy', {
        Topics: [{ Ref: topicId }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
            Match.objectLike({ Effect: 'Allow', Action: 'sns:Publish', Principal: { Service: 'cloudwatch.amazonaws.com' } }),
          ]),
        },
      });
    });

    it('draws a dashboard of messages, alerts, deliveries per channel, the SES quota, queues and functions', () => {
      const dashboards = ofType('AWS::CloudWatch::Dashboard');
      expect(dashboards).toHaveLength(1);
      const body = JSON.parse(flattenJoin(dashboards[0]![1].Properties.DashboardBody)) as {
        widgets: { properties: { metrics?: unknown[][] } }[];
      };
      const lines = body.widgets.flatMap((widget) => widget.properties.metrics ?? []);
      const expressions = lines.map((line) => (line.at(-1) as { expression?: string }).expression).filter(Boolean);
      expect(expressions).toEqual(
        expect.arrayContaining([
          'SELECT SUM(MessagesRejected) FROM fleetwatch',
          'SELECT SUM(AlertsRaised) FROM fleetwatch',
          'SELECT SUM(DeliveriesSent) FROM fleetwatch GROUP BY channel',
          'SELECT SUM(DeliveryFailures) FROM fleetwatch GROUP BY channel',
          'SELECT MAX(SesQuotaUsedPercent) FROM fleetwatch',
          'SELECT SUM(EmailsHeldForDigest) FROM fleetwatch',
        ]),
      );
      const plotted = (namespace: string, metric: string) =>
        lines.filter((line) => line[0] === namespace && line[1] === metric).map((line) => line[3]);
      const queueIds = (['input', 'deliveries', 'inputDeadLetters', 'deliveryDeadLetters'] as const).map((queue) => logicalId(stack.queues[queue]));
      expect(plotted('AWS/SQS', 'ApproximateNumberOfMessagesVisible').sort()).toEqual([...queueIds].sort());
      expect(plotted('AWS/SQS', 'ApproximateAgeOfOldestMessage')).toEqual(queueIds.slice(0, 2));
      expect(plotted('AWS/SQS', 'NumberOfMessagesDeleted')).toEqual(queueIds.slice(0, 1));
      expect(plotted('AWS/Lambda', 'Errors')).toEqual(FUNCTION_NAMES.map(functionId));
      expect(plotted('AWS/Lambda', 'Duration')).toEqual(FUNCTION_NAMES.map(functionId));
      expect(plotted('AWS/ApiGateway', '5xx')).toHaveLength(1);
    });
  });

  describe('deploy parameters and outputs', () => {
    it('requires the sender address and documents every optional parameter', () => {
      const parameters = template.toJSON().Parameters as Record<string, { Default?: string; Description?: string; AllowedPattern?: string }>;
      expect(parameters.SenderAddress?.Default).toBeUndefined();
      expect(parameters.SenderAddress?.Description).toMatch(/verified/i);
      for (const name of ['TelegramBotUsername', 'FcmPlatformApplicationArn', 'ApnsPlatformApplicationArn', 'AlarmEmail']) {
        expect(parameters[name]?.Default, name).toBe('');
        expect(parameters[name]?.Description?.length ?? 0, name).toBeGreaterThan(40);
        expect(new RegExp(parameters[name]!.AllowedPattern!).test(''), name).toBe(true);
      }
      expect(new RegExp(parameters.FcmPlatformApplicationArn!.AllowedPattern!).test('arn:aws:sns:eu-west-1:123456789012:app/GCM/fleet')).toBe(true);
      expect(new RegExp(parameters.ApnsPlatformApplicationArn!.AllowedPattern!).test('arn:aws:sns:eu-west-1:123456789012:app/GCM/fleet')).toBe(false);
      expect(new RegExp(parameters.SenderAddress!.AllowedPattern!).test('not-an-address')).toBe(false);
    });

    it('outputs what an operator needs after deploying', () => {
      const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
      expect(Object.keys(outputs)).toEqual(
        expect.arrayContaining(['ApiUrl', 'InputQueueUrl', 'TelegramWebhookUrl', 'TelegramSecretName', 'DashboardName']),
      );
      // the ApiUrl output is the base a request path is appended to: it ends in /api/v3 and no path repeats it
      const apiUrl = outputs.ApiUrl!.Value as { 'Fn::Join': [string, unknown[]] };
      const parts = apiUrl['Fn::Join'][1];
      expect(parts.at(-1)).toMatch(/\/api\/v3$/);
      expect(JSON.stringify(apiUrl).match(/api\/v3/g)).toHaveLength(1);
      expect(JSON.stringify(outputs.TelegramWebhookUrl!.Value)).toContain('telegram/webhook');
      expect(outputs.TelegramSecretName!.Value).toBe('FleetwatchTest/telegram');
      expect(outputs.InputQueueUrl!.Value).toEqual({ Ref: logicalId(stack.queues.input) });
    });

    it('outputs every table, both queues with their DLQs and the API URL under stable keys, none exported', () => {
      const outputs = template.toJSON().Outputs as Record<string, { Value: unknown; Export?: unknown; Description?: string }>;
      // literal keys: renaming one breaks `npm run admin -- --stack` and operators' scripts on deployed stacks
      const tables: Record<keyof typeof TABLES, string> = {
        rules: 'RulesTableName',
        vehicleState: 'VehicleStateTableName',
        alerts: 'AlertsTableName',
        directory: 'DirectoryTableName',
        geozones: 'GeozonesTableName',
        visits: 'VisitsTableName',
      };
      for (const [key, output] of Object.entries(tables)) {
        expect(outputs[output]?.Value, output).toEqual({ Ref: logicalId(stack.tables.tables[key as keyof typeof TABLES]) });
      }
      const queues = {
        InputQueueUrl: stack.queues.input,
        InputDeadLetterQueueUrl: stack.queues.inputDeadLetters,
        DeliveriesQueueUrl: stack.queues.deliveries,
        DeliveriesDeadLetterQueueUrl: stack.queues.deliveryDeadLetters,
      };
      for (const [output, queue] of Object.entries(queues)) expect(outputs[output]?.Value, output).toEqual({ Ref: logicalId(queue) });
      expect(flattenJoin(outputs.ApiUrl?.Value)).toMatch(/[a-z]\/api\/v3$/);
      for (const [key, output] of Object.entries(outputs)) {
        expect(output.Export, key).toBeUndefined();
        expect(output.Description?.length ?? 0, key).toBeGreaterThan(10);
      }
    });
  });
});

describe('cdk-nag AwsSolutions checks', () => {
  it('reports no unacknowledged error or warning, and every acknowledgment gives its reason', () => {
    const { app } = unbundledStack();
    const report = new AwsSolutionsChecks(app, { verbose: true }).validateScope(app);
    const findings = report.violations.map(
      (violation) =>
        `${violation.severity} ${violation.ruleName} at ${violation.violatingResources.map((resource) => resource.constructPath).join(', ')}`,
    );
    expect(findings).toEqual([]);

    const acknowledgments: [string, string][] = [];
    const visit = (construct: IConstruct) => {
      for (const entry of construct.node.metadata) {
        if (entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY) {
          acknowledgments.push(...Object.entries(entry.data as Record<string, string>));
        }
      }
      construct.node.children.forEach(visit);
    };
    visit(app);
    expect(acknowledgments.length).toBeGreaterThan(0);
    for (const [id, reason] of acknowledgments) {
      expect(id).toMatch(/AwsSolutions-/);
      expect(reason.length, id).toBeGreaterThan(60);
    }

    // The same check as a synthesis plugin, the way `cdk synth` runs it through infra/app.ts.
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).not.toThrow();
  });
});

describe('bundled deployment packages', () => {
  const entries = FUNCTION_NAMES.map((name) => join('functions', name, 'handler.ts'));
  const missing = [...entries, join('shared', 'templates')].filter((path) => !existsSync(join(PROJECT_ROOT, path)));
  const title = missing.length
    ? `bundles every function (skipped: ${missing.join(', ')} not written yet)`
    : 'bundles every function with esbuild into an ESM package that loads and exports handler';
  let outdir: string | undefined;

  afterAll(() => {
    if (outdir) rmSync(outdir, { recursive: true, force: true });
  });

  it.skipIf(missing.length > 0)(
    title,
    () => {
      outdir = mkdtempSync(join(tmpdir(), 'fleetwatch-synth-'));
      const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
      const stack = new FleetwatchStack(app, 'FleetwatchBundled');
      const assembly = app.synth();
      const template = assembly.getStackByName(stack.stackName).template as { Resources: Record<string, Resource> };

      // Lambda supplies the AWS SDK at run time (it is left out of the bundles); here the repository's copy stands in.
      symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(outdir, 'node_modules'), 'dir');
      // each function its own package: the synth's cache of bundles must not hand one function's to another
      const packages = FUNCTION_NAMES.map((name) => template.Resources[logicalId(stack.functions[name].function)]!.Metadata!['aws:asset:path']);
      expect(new Set(packages).size).toBe(FUNCTION_NAMES.length);
      for (const name of FUNCTION_NAMES) {
        const fn = template.Resources[logicalId(stack.functions[name].function)]!;
        const assetDir = join(outdir, fn.Metadata!['aws:asset:path'] as string);
        const files = readdirSync(assetDir);
        expect(files, name).toEqual(expect.arrayContaining(['index.mjs', 'index.mjs.map']));
        expect(packageCodeBytes(assetDir), `${name} bundle bytes`).toBeLessThanOrEqual(bundleBudget(name));
        const loaded = spawnSync(
          process.execPath,
          ['--input-type=module', '-e', `const m = await import(${JSON.stringify(join(assetDir, 'index.mjs'))}); console.log(typeof m.handler);`],
          { env: { ...process.env, AWS_REGION: 'eu-west-1', NODE_OPTIONS: '' }, encoding: 'utf8' },
        );
        expect(loaded.stdout.trim(), name).toBe('function');
        // a cold start prints nothing: no deprecation warning (DEP0040 punycode came with grammy's node-fetch)
        expect(loaded.stderr, name).toBe('');
        // and what loads later, with the first request that needs it, loads from the package as it is
        const chunks = packageCodeFiles(assetDir).slice(1);
        if (name === 'api' || name === 'deliver') expect(chunks.length, name).toBeGreaterThan(0);
        const later = spawnSync(
          process.execPath,
          ['--input-type=module', '-e', `for (const chunk of ${JSON.stringify(chunks)}) await import(chunk); console.log(${chunks.length});`],
          { env: { ...process.env, AWS_REGION: 'eu-west-1', NODE_OPTIONS: '' }, encoding: 'utf8' },
        );
        expect(later.stderr, name).toBe('');
        expect(later.stdout.trim(), name).toBe(String(chunks.length));
      }

      // the numbering plan (PHONE_PLAN_FILE) is the installed libphonenumber-js's, beside the bundles that read numbers
      const installedPlan = readFileSync(createRequire(import.meta.url).resolve('libphonenumber-js/metadata.mobile.json'));
      for (const name of FUNCTION_NAMES) {
        const plan = join(
          outdir,
          template.Resources[logicalId(stack.functions[name].function)]!.Metadata!['aws:asset:path'] as string,
          'phone-plan.json',
        );
        if (name === 'api' || name === 'deliver') expect(readFileSync(plan).equals(installedPlan), name).toBe(true);
        else expect(existsSync(plan), name).toBe(false);
      }

      const deliver = template.Resources[logicalId(stack.functions.deliver.function)]!;
      const bundledTemplates = readdirSync(join(outdir, deliver.Metadata!['aws:asset:path'] as string, 'templates'), { recursive: true });
      const sourceTemplates = readdirSync(join(PROJECT_ROOT, 'shared', 'templates'), { recursive: true });
      expect(sourceTemplates.length).toBeGreaterThan(0);
      expect([...bundledTemplates].sort()).toEqual([...sourceTemplates].sort());
    },
    240_000,
  );
});
