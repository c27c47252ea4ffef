import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { CloudWatchLogsClient, DeleteLogGroupCommand, DescribeLogGroupsCommand, ResourceNotFoundException } from '@aws-sdk/client-cloudwatch-logs';
import { DeleteTableCommand, DescribeTableCommand, DynamoDBClient, ListTablesCommand, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { DescribeKeyCommand, KMSClient, ScheduleKeyDeletionCommand } from '@aws-sdk/client-kms';
import { GetResourcesCommand, ResourceGroupsTaggingAPIClient } from '@aws-sdk/client-resource-groups-tagging-api';
import { DeleteSecretCommand, GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanupClients, type AwsTarget } from '../../infra/cleanup/clients';
import { isGeneratedName } from '../../infra/cleanup/find';
import { USAGE } from '../../infra/cleanup/help';
import { CLEANUP_KINDS, kindOfArn, leftoverOfArn } from '../../infra/cleanup/kinds';
import { cleanup } from '../../infra/cleanup/run';
import { DEFAULT_STACK_NAME, KEY_DELETION_WINDOW_DAYS, STACK_TAG } from '../../infra/stack-facts';

/**
 * `npm run cleanup` against a mocked account. No emulator here covers the Resource Groups Tagging API, KMS,
 * CloudFormation or CloudWatch Logs, so every client is mocked with aws-sdk-client-mock (DynamoDB and Secrets
 * Manager too, to keep one account per test): each instance's `send` answers what that account would.
 */
const cloudFormation = mockClient(CloudFormationClient);
const tagging = mockClient(ResourceGroupsTaggingAPIClient);
const dynamodb = mockClient(DynamoDBClient);
const logs = mockClient(CloudWatchLogsClient);
const kms = mockClient(KMSClient);
const secretsManager = mockClient(SecretsManagerClient);
const mocks = [cloudFormation, tagging, dynamodb, logs, kms, secretsManager];

const REGION = 'eu-central-1';
const ACCOUNT = '123456789012';
const STACK = 'Fleetwatch';
const TABLE = 'Fleetwatch-RulesTable1A2B3C4D-1QW2E3R4T5Y6';
const OTHER_TABLE = 'Fleetwatch-AlertsTable5E6F7A8B-9IU8Y7T6R5E4';
const LOG_GROUP = 'Fleetwatch-EvaluateLogs9F8E7D6C-AbCdEfGh1234';
const KEY_ARN = `arn:aws:kms:${REGION}:${ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab`;
const PENDING_KEY_ARN = `arn:aws:kms:${REGION}:${ACCOUNT}:key/9876fedc-12ab-34cd-56ef-1234567890ab`;
const SECRET_ARN = `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:Fleetwatch/telegram-AbCdEf`;
const QUEUE_ARN = `arn:aws:sqs:${REGION}:${ACCOUNT}:Fleetwatch-InputQueue1A2B3C4D-XyZ.fifo`;
const tableArn = (name: string) => `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${name}`;
const logGroupArn = (name: string) => `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${name}`;

const awsError = (name: string, message: string) => Object.assign(new Error(message), { name, $metadata: {} });
const stackGone = () => awsError('ValidationError', `Stack with id ${STACK} does not exist`);

async function run(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await cleanup(['--region', REGION, ...argv], { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

/** The resources tagged with the stack's name, on one page. */
function tagged(...arns: string[]) {
  tagging
    .on(GetResourcesCommand)
    .resolves({ ResourceTagMappingList: arns.map((ResourceARN) => ({ ResourceARN, Tags: [{ Key: STACK_TAG, Value: STACK }] })) });
}

const commandName = (command: unknown) => (command as object).constructor.name;
const sent = () => mocks.flatMap((mock) => mock.calls().map((call) => commandName(call.args[0])));
const sentTo = (mock: (typeof mocks)[number]) => mock.calls().map((call) => commandName(call.args[0]));
const lineOf = (stdout: string, id: string) => stdout.split('\n').find((line) => line.includes(id)) ?? '';

afterAll(() => {
  // the SDK classes outlive this file in its worker (isolate: false): a stub left on one would answer the next file
  for (const mock of mocks) mock.restore();
});

beforeEach(() => {
  for (const mock of mocks) mock.reset();
  cloudFormation.on(DescribeStacksCommand).rejects(stackGone());
  tagging.on(GetResourcesCommand).resolves({ ResourceTagMappingList: [] });
  dynamodb.on(ListTablesCommand).resolves({ TableNames: [] });
  dynamodb.on(DescribeTableCommand).resolves({ Table: { TableName: TABLE, TableStatus: 'ACTIVE', DeletionProtectionEnabled: true } });
  dynamodb.on(UpdateTableCommand).resolves({ TableDescription: { TableStatus: 'ACTIVE' } });
  dynamodb.on(DeleteTableCommand).resolves({});
  logs.on(DescribeLogGroupsCommand).resolves({ logGroups: [] });
  logs.on(DeleteLogGroupCommand).resolves({});
  kms.on(DescribeKeyCommand).resolves({ KeyMetadata: { KeyId: KEY_ARN, KeyState: 'Enabled' } });
  kms.on(ScheduleKeyDeletionCommand).resolves({ DeletionDate: new Date('2030-01-08T00:00:00Z'), KeyState: 'PendingDeletion' });
  secretsManager.on(DeleteSecretCommand).resolves({ ARN: SECRET_ARN });
});

describe('the stack guard', () => {
  it.each(['CREATE_COMPLETE', 'UPDATE_ROLLBACK_COMPLETE', 'DELETE_IN_PROGRESS', 'DELETE_FAILED'])('refuses while the stack is %s', async (status) => {
    cloudFormation.on(DescribeStacksCommand).resolves({ Stacks: [{ StackName: STACK, StackStatus: status as never, CreationTime: new Date() }] });
    tagged(tableArn(TABLE));
    const { code, stdout, stderr } = await run('--yes');
    expect(code).toBe(2);
    expect(stderr).toContain(`stack ${STACK}`);
    expect(stderr).toContain(status);
    expect(stdout).toBe('');
    expect(sent()).toEqual(['DescribeStacksCommand']);
  });

  it('proceeds when DescribeStacks says the stack does not exist', async () => {
    tagged(tableArn(TABLE));
    const { code, stdout } = await run();
    expect(code).toBe(0);
    expect(cloudFormation.commandCalls(DescribeStacksCommand)[0]!.args[0].input).toEqual({ StackName: STACK });
    expect(stdout).toContain(TABLE);
  });

  it('proceeds when DescribeStacks answers DELETE_COMPLETE', async () => {
    cloudFormation.on(DescribeStacksCommand).resolves({ Stacks: [{ StackName: STACK, StackStatus: 'DELETE_COMPLETE', CreationTime: new Date() }] });
    const { code, stdout } = await run();
    expect(code).toBe(0);
    expect(stdout).toBe(`Nothing is left of stack ${STACK} in ${REGION}.\n`);
  });

  it('stops when it cannot tell whether the stack exists', async () => {
    cloudFormation.on(DescribeStacksCommand).rejects(awsError('AccessDenied', 'not authorized to perform: cloudformation:DescribeStacks'));
    const { code, stderr } = await run('--yes');
    expect(code).toBe(1);
    expect(stderr).toMatch(/cannot tell whether stack Fleetwatch in eu-central-1 still exists.*AccessDenied/);
    expect(sent()).toEqual(['DescribeStacksCommand']);
  });
});

describe('finding the leftovers', () => {
  it('asks the tagging API for the stack tag, over every page', async () => {
    tagging
      .on(GetResourcesCommand)
      .resolvesOnce({ ResourceTagMappingList: [{ ResourceARN: tableArn(TABLE) }], PaginationToken: 'page-2' })
      .resolvesOnce({ ResourceTagMappingList: [{ ResourceARN: SECRET_ARN }], PaginationToken: '' });
    const { code, stdout } = await run();
    expect(code).toBe(0);
    const inputs = tagging.commandCalls(GetResourcesCommand).map((call) => call.args[0].input);
    expect(inputs).toHaveLength(2);
    expect(inputs[0]!.TagFilters).toEqual([{ Key: STACK_TAG, Values: [STACK] }]);
    expect(inputs[1]).toMatchObject({ TagFilters: [{ Key: STACK_TAG, Values: [STACK] }], PaginationToken: 'page-2' });
    expect(stdout).toContain(TABLE);
    expect(stdout).toContain(SECRET_ARN);
  });

  it('finds untagged tables and log groups named after the stack, over every page, and no other stack’s', async () => {
    dynamodb
      .on(ListTablesCommand)
      .resolvesOnce({ TableNames: ['Alpha-RulesTableAAAA-BBBB', TABLE], LastEvaluatedTableName: TABLE })
      .resolvesOnce({ TableNames: ['Fleetwatch-eu-RulesTable1A2B3C4D-ZZZZ', 'FleetwatchX-RulesTable-CCCC', OTHER_TABLE] });
    logs.on(DescribeLogGroupsCommand).resolves({
      logGroups: [{ logGroupName: LOG_GROUP }, { logGroupName: 'Fleetwatch-eu-EvaluateLogs9F8E7D6C-AbCd' }],
    });
    const { code, stdout } = await run();
    expect(code).toBe(0);
    expect(dynamodb.commandCalls(ListTablesCommand)[1]!.args[0].input).toMatchObject({ ExclusiveStartTableName: TABLE });
    expect(logs.commandCalls(DescribeLogGroupsCommand)[0]!.args[0].input).toEqual({ logGroupNamePrefix: `${STACK}-` });
    for (const name of [TABLE, OTHER_TABLE, LOG_GROUP]) expect(stdout).toContain(name);
    for (const name of ['Alpha-', 'Fleetwatch-eu-', 'FleetwatchX-']) expect(stdout).not.toContain(name);
  });

  it('lists a table found both by its tag and by its name once', async () => {
    tagged(tableArn(TABLE), logGroupArn(LOG_GROUP));
    dynamodb.on(ListTablesCommand).resolves({ TableNames: [TABLE] });
    logs.on(DescribeLogGroupsCommand).resolves({ logGroups: [{ logGroupName: LOG_GROUP }] });
    const { stdout } = await run();
    expect(stdout.split(TABLE)).toHaveLength(2);
    expect(stdout.split(LOG_GROUP)).toHaveLength(2);
  });

  it('stops, removing nothing, when a lookup fails', async () => {
    tagging.on(GetResourcesCommand).rejects(awsError('AccessDeniedException', 'not authorized to perform: tag:GetResources'));
    const { code, stderr } = await run('--yes');
    expect(code).toBe(1);
    expect(stderr).toMatch(/cannot list what is left of stack Fleetwatch.*tag:GetResources/);
    expect(sent().filter((name) => /^(Delete|Update|Schedule)/.test(name))).toEqual([]);
  });
});

describe('the dry run', () => {
  it('lists each leftover with its kind and what --yes would do, and removes nothing', async () => {
    tagged(tableArn(TABLE), logGroupArn(LOG_GROUP), KEY_ARN, SECRET_ARN, QUEUE_ARN);
    dynamodb.on(ListTablesCommand).resolves({ TableNames: [OTHER_TABLE] });
    const { code, stdout } = await run();
    expect(code).toBe(0);
    expect(lineOf(stdout, TABLE)).toMatch(/AWS::DynamoDB::Table .*would turn deletion protection off, then delete the table/);
    expect(lineOf(stdout, OTHER_TABLE)).toMatch(/AWS::DynamoDB::Table .*would turn deletion protection off/);
    expect(lineOf(stdout, LOG_GROUP)).toMatch(/AWS::Logs::LogGroup .*would delete the log group/);
    expect(lineOf(stdout, KEY_ARN)).toMatch(/AWS::KMS::Key .*would schedule the key's deletion in 7 days/);
    expect(lineOf(stdout, SECRET_ARN)).toMatch(/AWS::SecretsManager::Secret .*would delete the secret without a recovery window/);
    expect(lineOf(stdout, QUEUE_ARN)).toMatch(/other .*left alone: remove by hand/);
    expect(stdout).toContain(`re-run with --yes:\n  npm run cleanup -- --stack ${STACK} --region ${REGION} --yes`);
    expect(sent().filter((name) => /^(Delete|Update|Schedule|Put)/.test(name))).toEqual([]);
    expect(sentTo(kms)).toEqual([]);
  });

  it('says so when nothing is left', async () => {
    const { code, stdout } = await run('--stack', 'Staging');
    expect(code).toBe(0);
    expect(stdout).toBe(`Nothing is left of stack Staging in ${REGION}.\n`);
    expect(tagging.commandCalls(GetResourcesCommand)[0]!.args[0].input.TagFilters).toEqual([{ Key: STACK_TAG, Values: ['Staging'] }]);
  });
});

describe('--yes', () => {
  it('turns a table’s deletion protection off, then deletes it', async () => {
    tagged(tableArn(TABLE));
    const { code, stdout } = await run('--yes');
    expect(code).toBe(0);
    expect(sentTo(dynamodb)).toEqual(['ListTablesCommand', 'DescribeTableCommand', 'UpdateTableCommand', 'DeleteTableCommand']);
    expect(dynamodb.commandCalls(UpdateTableCommand)[0]!.args[0].input).toEqual({ TableName: TABLE, DeletionProtectionEnabled: false });
    expect(dynamodb.commandCalls(DeleteTableCommand)[0]!.args[0].input).toEqual({ TableName: TABLE });
    expect(lineOf(stdout, TABLE)).toMatch(/deletion protection turned off, table deleted$/);
    expect(stdout).toContain('Done: 1 removed.');
  });

  it('deletes an unprotected table without updating it', async () => {
    tagged(tableArn(TABLE));
    dynamodb.on(DescribeTableCommand).resolves({ Table: { TableName: TABLE, TableStatus: 'ACTIVE', DeletionProtectionEnabled: false } });
    expect((await run('--yes')).code).toBe(0);
    expect(sentTo(dynamodb)).toEqual(['ListTablesCommand', 'DescribeTableCommand', 'DeleteTableCommand']);
  });

  it('waits for a table left UPDATING to be ACTIVE before deleting it', async () => {
    tagged(tableArn(TABLE));
    dynamodb.on(UpdateTableCommand).resolves({ TableDescription: { TableStatus: 'UPDATING' } });
    expect((await run('--yes')).code).toBe(0);
    expect(sentTo(dynamodb)).toEqual([
      'ListTablesCommand',
      'DescribeTableCommand',
      'UpdateTableCommand',
      'DescribeTableCommand',
      'DeleteTableCommand',
    ]);
  });

  it('deletes a log group', async () => {
    tagged(logGroupArn(LOG_GROUP));
    const { code, stdout } = await run('--yes');
    expect(code).toBe(0);
    expect(logs.commandCalls(DeleteLogGroupCommand).map((call) => call.args[0].input)).toEqual([{ logGroupName: LOG_GROUP }]);
    expect(lineOf(stdout, LOG_GROUP)).toMatch(/log group deleted$/);
  });

  it(`schedules a key's deletion in ${KEY_DELETION_WINDOW_DAYS} days, and skips one already scheduled`, async () => {
    tagged(KEY_ARN, PENDING_KEY_ARN);
    kms
      .on(DescribeKeyCommand, { KeyId: PENDING_KEY_ARN })
      .resolves({ KeyMetadata: { KeyId: PENDING_KEY_ARN, KeyState: 'PendingDeletion', DeletionDate: new Date('2030-01-05T00:00:00Z') } });
    const { code, stdout } = await run('--yes');
    expect(code).toBe(0);
    expect(kms.commandCalls(ScheduleKeyDeletionCommand).map((call) => call.args[0].input)).toEqual([{ KeyId: KEY_ARN, PendingWindowInDays: 7 }]);
    expect(lineOf(stdout, KEY_ARN)).toMatch(/scheduled for deletion in 7 days \(on 2030-01-08\)$/);
    expect(lineOf(stdout, PENDING_KEY_ARN)).toMatch(/already scheduled for deletion \(on 2030-01-05\)$/);
    expect(stdout).toContain('Done: 1 removed, 1 already scheduled.');
  });

  it('force-deletes a secret, without reading it', async () => {
    tagged(SECRET_ARN);
    const { code, stdout } = await run('--yes');
    expect(code).toBe(0);
    expect(secretsManager.commandCalls(DeleteSecretCommand).map((call) => call.args[0].input)).toEqual([
      { SecretId: SECRET_ARN, ForceDeleteWithoutRecovery: true },
    ]);
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(0);
    expect(lineOf(stdout, SECRET_ARN)).toMatch(/secret deleted without a recovery window$/);
  });

  it('counts a resource already gone as removed', async () => {
    tagged(logGroupArn(LOG_GROUP), tableArn(TABLE));
    logs.on(DeleteLogGroupCommand).rejects(new ResourceNotFoundException({ message: 'The specified log group does not exist.', $metadata: {} }));
    dynamodb.on(DescribeTableCommand).rejects(awsError('ResourceNotFoundException', `Requested resource not found: Table: ${TABLE} not found`));
    const { code, stdout } = await run('--yes');
    expect(code).toBe(0);
    expect(lineOf(stdout, LOG_GROUP)).toMatch(/already gone$/);
    expect(lineOf(stdout, TABLE)).toMatch(/already gone$/);
    expect(sentTo(dynamodb)).not.toContain('DeleteTableCommand');
  });

  it('tries every resource when one fails, then exits 1', async () => {
    tagged(tableArn(TABLE), tableArn(OTHER_TABLE), logGroupArn(LOG_GROUP), SECRET_ARN);
    dynamodb
      .on(DeleteTableCommand, { TableName: TABLE })
      .rejects(awsError('AccessDeniedException', 'not authorized to perform: dynamodb:DeleteTable'));
    const { code, stdout, stderr } = await run('--yes');
    expect(code).toBe(1);
    expect(lineOf(stdout, TABLE)).toMatch(/FAILED: AccessDeniedException: not authorized to perform: dynamodb:DeleteTable$/);
    expect(dynamodb.commandCalls(DeleteTableCommand).map((call) => call.args[0].input.TableName)).toEqual([OTHER_TABLE, TABLE]);
    expect(logs.commandCalls(DeleteLogGroupCommand)).toHaveLength(1);
    expect(secretsManager.commandCalls(DeleteSecretCommand)).toHaveLength(1);
    expect(stdout).toContain('Done: 3 removed, 1 failed.');
    expect(stderr).toContain('Some removals failed');
  });

  it('leaves a resource of another kind alone, and that is no failure', async () => {
    tagged(QUEUE_ARN, `arn:aws:sns:${REGION}:${ACCOUNT}:Fleetwatch-AlarmTopic-XYZ`);
    const { code, stdout } = await run('--yes');
    expect(code).toBe(0);
    expect(lineOf(stdout, QUEUE_ARN)).toMatch(/^ {2}other .*left alone: remove by hand$/);
    expect(stdout).toContain('Done: 2 left alone.');
    expect(sent().filter((name) => /^(Delete|Update|Schedule)/.test(name))).toEqual([]);
  });
});

describe('kinds', () => {
  it('lists the CloudFormation types it removes', () => {
    expect([...CLEANUP_KINDS].sort()).toEqual(['AWS::DynamoDB::Table', 'AWS::KMS::Key', 'AWS::Logs::LogGroup', 'AWS::SecretsManager::Secret']);
  });

  it.each([
    [tableArn(TABLE), 'AWS::DynamoDB::Table'],
    [`arn:aws-cn:dynamodb:cn-north-1:${ACCOUNT}:table/${TABLE}`, 'AWS::DynamoDB::Table'],
    [`${tableArn(TABLE)}/stream/2030-01-01T00:00:00.000`, undefined],
    [`${tableArn(TABLE)}/index/byParentTime`, undefined],
    [logGroupArn(LOG_GROUP), 'AWS::Logs::LogGroup'],
    [`${logGroupArn(LOG_GROUP)}:*`, 'AWS::Logs::LogGroup'],
    [KEY_ARN, 'AWS::KMS::Key'],
    [`arn:aws:kms:${REGION}:${ACCOUNT}:alias/fleetwatch`, undefined],
    [SECRET_ARN, 'AWS::SecretsManager::Secret'],
    [QUEUE_ARN, undefined],
    ['not an arn', undefined],
  ])('%s is %s', (arn, kind) => {
    expect(kindOfArn(arn)).toBe(kind);
  });

  it('names tables and log groups by name, the rest by ARN', () => {
    expect(leftoverOfArn(tableArn(TABLE))).toEqual({ kind: 'AWS::DynamoDB::Table', id: TABLE });
    expect(leftoverOfArn(`${logGroupArn(LOG_GROUP)}:*`)).toEqual({ kind: 'AWS::Logs::LogGroup', id: LOG_GROUP });
    expect(leftoverOfArn(KEY_ARN)).toEqual({ kind: 'AWS::KMS::Key', id: KEY_ARN });
    expect(leftoverOfArn(QUEUE_ARN)).toEqual({ kind: undefined, id: QUEUE_ARN });
  });

  it('takes only the names CloudFormation generated for the stack itself', () => {
    expect(isGeneratedName(TABLE, STACK)).toBe(true);
    expect(isGeneratedName('Fleetwatch-eu-RulesTable1A2B3C4D-1QW2', STACK)).toBe(false);
    expect(isGeneratedName('Fleetwatch-eu-RulesTable1A2B3C4D-1QW2', 'Fleetwatch-eu')).toBe(true);
    expect(isGeneratedName('Fleetwatch-notes', STACK)).toBe(false);
  });
});

describe('options', () => {
  it(`passes --region and --profile into every client, with --stack ${DEFAULT_STACK_NAME} by default`, async () => {
    const targets: AwsTarget[] = [];
    const code = await cleanup(['--region', 'eu-west-1', '--profile', 'ops'], { stdout: () => {}, stderr: () => {} }, (target) => {
      targets.push(target);
      return cleanupClients(target);
    });
    expect(code).toBe(0);
    expect(targets).toEqual([{ stack: DEFAULT_STACK_NAME, region: 'eu-west-1', profile: 'ops', yes: false }]);
    const clients = cleanupClients({ region: 'eu-west-1', profile: 'ops' });
    for (const client of Object.values(clients)) {
      expect(await client.config.region()).toBe('eu-west-1');
      expect(client.config.profile).toBe('ops');
    }
    expect(cloudFormation.commandCalls(DescribeStacksCommand)[0]!.args[0].input).toEqual({ StackName: DEFAULT_STACK_NAME });
  });

  it('prints --help, naming the default stack', async () => {
    const { code, stdout } = await run('--help');
    expect(code).toBe(0);
    expect(stdout).toBe(USAGE);
    expect(USAGE).toContain(`(default: ${DEFAULT_STACK_NAME})`);
    expect(sent()).toEqual([]);
  });

  it.each([['--stack', '1-bad'], ['--region', 'Europe'], ['--force'], ['stray']])('refuses %s with exit 2', async (...argv) => {
    const { code, stderr } = await run(...argv);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^error: /);
    expect(stderr).toContain('Usage: npm run cleanup');
    expect(sent()).toEqual([]);
  });
});
