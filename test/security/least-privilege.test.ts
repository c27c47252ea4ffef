import { App, Stack, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { FleetwatchStack } from '../../infra/stack';
import { TELEGRAM_WEBHOOK_PATH } from '../../infra/stack-facts';
import type { FunctionName } from '../../infra/constructs/fleetwatch-function';
import { PK } from '../../shared/store/keys';
import { ALLOWED_WILDCARDS, narrowedToSender, wildcardResources } from '../support/iam-wildcards';

type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: Record<string, Record<string, unknown>> };
type Resource = { Type: string; Properties: Record<string, unknown> };

const asArray = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/**
 * Attacks replayed: a compromised or buggy deliver or telegram function reading sessions and password hashes
 * from the directory table, or any function scanning, batch-writing or deleting what it never needs to; and
 * a template check that only caught a bare "*", so `Resource: ["arn:…", "*"]` or `…/table/*` passed.
 */
describe('security: least privilege in the template', () => {
  let stack: FleetwatchStack;
  let resources: Record<string, Resource>;

  const logicalId = (construct: IConstruct) =>
    Stack.of(construct).resolve(((construct.node.defaultChild ?? construct) as CfnElement).logicalId) as string;
  const statementsOf = (name: FunctionName): Statement[] => {
    const roleId = logicalId(stack.functions[name].role);
    return Object.values(resources)
      .filter((resource) => resource.Type === 'AWS::IAM::Policy' && JSON.stringify(resource.Properties.Roles).includes(`"${roleId}"`))
      .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
  };
  const onTable = (name: FunctionName, table: 'directory' | 'rules' | 'geozones' | 'alerts' | 'vehicleState' | 'visits') =>
    statementsOf(name).filter((statement) => JSON.stringify(statement.Resource).includes(`"${logicalId(stack.tables.tables[table])}"`));
  const actionsOn = (name: FunctionName, table: Parameters<typeof onTable>[1]) =>
    onTable(name, table)
      .flatMap((statement) => asArray(statement.Action))
      .sort();

  beforeAll(() => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    stack = new FleetwatchStack(app, 'LeastPrivilege');
    resources = Template.fromStack(stack).toJSON().Resources as Record<string, Resource>;
  });

  it('the wildcard check sees wildcards inside lists and as …/* patterns', () => {
    expect(wildcardResources({ Resource: '*' })).toEqual(['*']);
    expect(wildcardResources({ Resource: ['arn:aws:s3:::bucket', '*'] })).toEqual(['*']);
    expect(wildcardResources({ Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['Table', 'Arn'] }, '/*']] } })).toEqual(['<Table.Arn>/*']);
    expect(wildcardResources({ Resource: ['arn:aws:dynamodb:eu-west-1:1:table/fleet*'] })).toHaveLength(1);
    expect(wildcardResources({ Resource: ['arn:aws:dynamodb:eu-west-1:1:table/fleet'] })).toEqual([]);
  });

  it('grants no wildcard resource beyond the acknowledged ones, in any function policy', () => {
    const names: FunctionName[] = ['evaluate', 'sweep', 'deliver', 'api', 'telegram', 'project'];
    const actionsOf = (statement: { Action: string | string[] }) => [statement.Action].flat().join();
    for (const name of names) {
      for (const statement of statementsOf(name)) {
        // acknowledged: CloudWatch grants metric reads, and DynamoDB ListStreams, only on "*"
        if (name === 'sweep' && actionsOf(statement) === 'cloudwatch:GetMetricStatistics') continue;
        if (name === 'project' && actionsOf(statement) === 'dynamodb:ListStreams') continue;
        // acknowledged: SES grants reading the account's sending quota only on "*"
        if (name === 'deliver' && actionsOf(statement) === 'ses:GetAccount') continue;
        // acknowledged: the SES sandbox authorizes sends against recipients' identities too, so every identity is
        // granted, but only for e-mails from the stack's sender address
        if (name === 'deliver' && narrowedToSender(statement)) continue;
        for (const wildcard of wildcardResources(statement)) {
          // a log group's own streams (`<log group>:*`) are how CloudWatch Logs names them
          const ownLogStreams = wildcard.endsWith(':*') && wildcard.startsWith(`<${logicalId(stack.functions[name].logGroup)}`);
          expect(ownLogStreams || ALLOWED_WILDCARDS.some((allowed) => allowed.test(wildcard)), `${name}: ${wildcard}`).toBe(true);
        }
      }
    }
  });

  it('keeps deliver and telegram away from sessions and password hashes (dynamodb:LeadingKeys)', () => {
    for (const name of ['deliver', 'telegram'] as const) {
      const statements = onTable(name, 'directory');
      expect(statements.length, name).toBeGreaterThan(0);
      for (const statement of statements) {
        const prefixes = asArray(statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] as string | string[]);
        expect(prefixes.length, name).toBeGreaterThan(0);
        for (const forbidden of ['SESSION#', 'LOGIN#', 'USERSESSIONS#', 'LOGINFAIL#']) {
          expect(
            prefixes.some((prefix) => forbidden.startsWith(prefix.replace(/\*$/, '')) || prefix === '*'),
            `${name} ${forbidden}`,
          ).toBe(false);
        }
      }
    }
  });

  it('limits the directory only by prefixes of shared/store/keys.ts (dynamodb:LeadingKeys)', () => {
    const known = new Set(Object.values(PK).map((prefix) => `${prefix}*`));
    const conditioned = Object.values(resources)
      .filter((resource) => resource.Type === 'AWS::IAM::Policy')
      .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
      .flatMap((statement) => asArray((statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] ?? []) as string | string[]));
    expect(conditioned.length).toBeGreaterThan(0);
    expect(conditioned.filter((prefix) => !known.has(prefix))).toEqual([]);
  });

  it('gives no function Scan, BatchWriteItem or DeleteItem it does not use', () => {
    const all: FunctionName[] = ['evaluate', 'sweep', 'deliver', 'api', 'telegram'];
    for (const name of all) {
      for (const statement of statementsOf(name)) expect(asArray(statement.Action), name).not.toContain('dynamodb:BatchWriteItem');
    }
    // the second GetItem and UpdateItem, and the first Query, reach only the webhook endpoints (WEBHOOKS#): listing them,
    // disabling one, their health and the one a notice is about; the third GetItem, second PutItem, third UpdateItem and
    // first DeleteItem only the circuit breakers (DESTINATION#, FAILING#, WEBHOOKNOTICE); the second Query only a client's
    // users (AGENT#); the third PutItem only the outcomes of test alerts (NOTIFTEST#), the fourth, with the third Query,
    // only the webhook delivery logs (WEBHOOKLOG#); the fourth GetItem, the fifth PutItem and the fourth UpdateItem only the
    // webhook recovery jobs (WEBHOOKRECOVERY#); the second DeleteItem, with the sixth PutItem, the fourth Query and the
    // fifth UpdateItem, only the e-mail digests (DIGEST#, DIGESTDUE#). The client's users (AGENT#) are read for the
    // notices of a disabled endpoint and of the SMS spend cap
    expect(actionsOn('deliver', 'directory')).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:DeleteItem',
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:GetItem',
      'dynamodb:GetItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:PutItem',
      'dynamodb:PutItem',
      'dynamodb:PutItem',
      'dynamodb:PutItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:Query',
      'dynamodb:Query',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
      'dynamodb:UpdateItem',
      'dynamodb:UpdateItem',
      'dynamodb:UpdateItem',
      'dynamodb:UpdateItem',
    ]);
    const queryStatements = onTable('deliver', 'directory').filter((statement) => asArray(statement.Action).includes('dynamodb:Query'));
    expect(queryStatements.map((statement) => statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'])).toEqual([
      ['WEBHOOKS#*'],
      ['AGENT#*'],
      ['WEBHOOKLOG#*'],
      ['DIGEST#*', 'DIGESTDUE#*'],
    ]);
    const deleteStatements = onTable('deliver', 'directory').filter((statement) => asArray(statement.Action).includes('dynamodb:DeleteItem'));
    expect(deleteStatements.map((statement) => statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'])).toEqual([
      ['DESTINATION#*', 'FAILING#*', 'HELD*', 'WEBHOOKNOTICE*'],
      ['DIGEST#*', 'DIGESTDUE#*'],
    ]);
    const narrowStatements = onTable('deliver', 'directory').filter((statement) => {
      const prefixes = asArray(statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] as string | string[]);
      return ['AGENT#*', 'NOTIFTEST#*', 'WEBHOOKLOG#*', 'WEBHOOKRECOVERY#*'].includes(prefixes.join());
    });
    expect(
      narrowStatements.map((statement) => [
        asArray(statement.Action).sort(),
        statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'],
      ]),
    ).toEqual([
      [['dynamodb:Query'], ['AGENT#*']],
      [['dynamodb:PutItem'], ['NOTIFTEST#*']],
      [['dynamodb:PutItem', 'dynamodb:Query'], ['WEBHOOKLOG#*']],
      [['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], ['WEBHOOKRECOVERY#*']],
    ]);
    // the sweep reaches the webhook endpoints, and the shared destinations' health, only to read a circuit's health,
    // claim its probe, and disable an endpoint whose circuit stayed open for days
    const sweepOnEndpoints = onTable('sweep', 'directory').filter((statement) =>
      asArray(statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] as string | string[]).includes('WEBHOOKS#*'),
    );
    expect(
      sweepOnEndpoints.map((statement) => [
        asArray(statement.Action).sort(),
        statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'],
      ]),
    ).toEqual([
      [
        ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
        ['DESTINATION#*', 'WEBHOOKS#*'],
      ],
    ]);
    // a webhook recovery reads one step's alerts at once (BatchGetItem), and records those that went out
    expect(actionsOn('deliver', 'alerts')).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem']);
    expect(actionsOn('deliver', 'rules')).toEqual(['dynamodb:GetItem']);
    // the second GetItem reads only the clients (AGENT#), for the acknowledge button's scope check; the third GetItem,
    // the second PutItem and UpdateItem, and Query reach only the maintenance silences (SILENCE#) the mute buttons make
    expect(actionsOn('telegram', 'directory')).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:GetItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
      'dynamodb:UpdateItem',
    ]);
    const scopeStatements = onTable('telegram', 'directory').filter((statement) => asArray(statement.Action).join() === 'dynamodb:GetItem');
    expect(scopeStatements.map((statement) => statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'])).toEqual([['AGENT#*']]);
    const silenceStatements = onTable('telegram', 'directory').filter((statement) => asArray(statement.Action).includes('dynamodb:Query'));
    expect(silenceStatements.map((statement) => statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'])).toEqual([['SILENCE#*']]);
    expect(actionsOn('telegram', 'rules')).toEqual(['dynamodb:GetItem']);
    // acknowledging and closing: one conditional UpdateItem after reading the alert; never a put or delete
    expect(actionsOn('telegram', 'alerts')).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
    expect(actionsOn('api', 'alerts')).toEqual(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem']);
    // registering a vehicle (owner chain and zone sets) and finding vehicles by owner; never its evaluation state wholesale
    expect(actionsOn('api', 'vehicleState')).toEqual(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem']);
    // visits and the rules' suppressed logs are read by Query only; evaluate puts visits and sets log entries, the sweep sets log entries
    expect(actionsOn('api', 'visits')).toEqual(['dynamodb:Query']);
    expect(actionsOn('evaluate', 'visits')).toEqual(['dynamodb:PutItem', 'dynamodb:UpdateItem']);
    expect(actionsOn('sweep', 'visits')).toEqual(['dynamodb:UpdateItem']);
    for (const name of ['evaluate', 'sweep'] as const) {
      for (const table of ['rules', 'geozones', 'alerts', 'vehicleState'] as const) {
        expect(actionsOn(name, table), `${name} ${table}`).not.toContain('dynamodb:DeleteItem');
      }
    }
    for (const table of ['directory', 'alerts', 'geozones'] as const) expect(actionsOn('api', table), table).not.toContain('dynamodb:Scan');
  });

  it('throttles the Telegram webhook apart from the API', () => {
    const stage = Object.values(resources).find((resource) => resource.Type === 'AWS::ApiGatewayV2::Stage')!;
    const settings = stage.Properties.RouteSettings as Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }>;
    expect(settings[`POST /${TELEGRAM_WEBHOOK_PATH}`]).toMatchObject({
      ThrottlingRateLimit: expect.any(Number),
      ThrottlingBurstLimit: expect.any(Number),
    });
    expect(stage.Properties.DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: expect.any(Number) });
  });

  it('feeds SES bounces and complaints of the configuration set to the deliver function', () => {
    const destination = Object.values(resources).find((resource) => resource.Type === 'AWS::SES::ConfigurationSetEventDestination')!;
    const event = destination.Properties.EventDestination as { MatchingEventTypes: string[]; SnsDestination: { TopicARN: { Ref: string } } };
    expect(event.MatchingEventTypes.sort()).toEqual(['bounce', 'complaint']);
    const topicId = event.SnsDestination.TopicARN.Ref;
    const subscription = Object.values(resources).find(
      (resource) => resource.Type === 'AWS::SNS::Subscription' && JSON.stringify(resource.Properties.TopicArn).includes(topicId),
    )!;
    expect(subscription.Properties).toMatchObject({
      Protocol: 'lambda',
      Endpoint: { 'Fn::GetAtt': [logicalId(stack.functions.deliver.function), 'Arn'] },
    });
  });
});
