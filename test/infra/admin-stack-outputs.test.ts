import { CloudFormationClient, type DescribeStacksCommandInput, type DescribeStacksCommandOutput, type Output } from '@aws-sdk/client-cloudformation';
import { describe, expect, it } from 'vitest';
import { StackOutputsError, stackEnvironment } from '../../infra/admin/stack-outputs';
import { GlobalOptionError, takeGlobalOptions } from '../../infra/admin/global-options';
import { resourcesConfig } from '../../shared/config';

/**
 * `npm run admin -- --stack <name>` against a deployed stack's outputs. No CloudFormation emulator exists, so
 * the CloudFormation client is mocked: a real client whose DescribeStacks answer is given here, cut short
 * before it would go to the network. Whether the stack really has these outputs is test/infra/stack.test.ts's job.
 */
function clientAnswering(outputs: Output[], asked: DescribeStacksCommandInput[] = []): CloudFormationClient {
  const client = new CloudFormationClient({ region: 'eu-west-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  client.middlewareStack.add(
    () => async (args) => {
      asked.push(args.input as DescribeStacksCommandInput);
      const output: DescribeStacksCommandOutput = {
        $metadata: { httpStatusCode: 200 },
        Stacks: [{ StackName: 'fleet-staging', CreationTime: new Date(), StackStatus: 'UPDATE_COMPLETE', Outputs: outputs }],
      };
      return { output, response: {} };
    },
    { step: 'initialize', name: 'cannedDescribeStacks' },
  );
  return client;
}

/** The outputs of a stack named fleet-staging, as DescribeStacks lists them (other outputs among them). */
const DEPLOYED: Output[] = [
  { OutputKey: 'ApiUrl', OutputValue: 'https://abc.execute-api.eu-west-1.amazonaws.com/api/v3/' },
  { OutputKey: 'RulesTableName', OutputValue: 'fleet-staging-DataTablesRulesTable-1A' },
  { OutputKey: 'VehicleStateTableName', OutputValue: 'fleet-staging-DataTablesVehicleStateTable-2B' },
  { OutputKey: 'AlertsTableName', OutputValue: 'fleet-staging-DataTablesAlertsTable-3C' },
  { OutputKey: 'DirectoryTableName', OutputValue: 'fleet-staging-DataTablesDirectoryTable-4D' },
  { OutputKey: 'GeozonesTableName', OutputValue: 'fleet-staging-DataTablesGeozonesTable-5E' },
  { OutputKey: 'VisitsTableName', OutputValue: 'fleet-staging-DataTablesVisitsTable-6F' },
  { OutputKey: 'InputQueueUrl', OutputValue: 'https://sqs.eu-west-1.amazonaws.com/123456789012/fleet-staging-messages.fifo' },
  { OutputKey: 'InputDeadLetterQueueUrl', OutputValue: 'https://sqs.eu-west-1.amazonaws.com/123456789012/fleet-staging-messages-dlq.fifo' },
  { OutputKey: 'DeliveriesQueueUrl', OutputValue: 'https://sqs.eu-west-1.amazonaws.com/123456789012/fleet-staging-deliveries' },
  { OutputKey: 'DeliveriesDeadLetterQueueUrl', OutputValue: 'https://sqs.eu-west-1.amazonaws.com/123456789012/fleet-staging-deliveries-dlq' },
  { OutputKey: 'TelegramSecretName', OutputValue: 'fleet-staging/telegram' },
  { OutputKey: 'DashboardName', OutputValue: 'fleet-staging' },
];

describe('admin CLI --stack', () => {
  it("configures every table, queue and the Telegram secret from the stack's outputs", async () => {
    const asked: DescribeStacksCommandInput[] = [];
    const environment = await stackEnvironment('fleet-staging', clientAnswering(DEPLOYED, asked));
    expect(asked).toEqual([{ StackName: 'fleet-staging' }]);
    expect(environment).toEqual({
      RULES_TABLE: 'fleet-staging-DataTablesRulesTable-1A',
      VEHICLE_STATE_TABLE: 'fleet-staging-DataTablesVehicleStateTable-2B',
      ALERTS_TABLE: 'fleet-staging-DataTablesAlertsTable-3C',
      DIRECTORY_TABLE: 'fleet-staging-DataTablesDirectoryTable-4D',
      GEOZONES_TABLE: 'fleet-staging-DataTablesGeozonesTable-5E',
      VISITS_TABLE: 'fleet-staging-DataTablesVisitsTable-6F',
      INPUT_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/fleet-staging-messages.fifo',
      INPUT_DLQ_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/fleet-staging-messages-dlq.fifo',
      DELIVERIES_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/fleet-staging-deliveries',
      DELIVERIES_DLQ_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/fleet-staging-deliveries-dlq',
      TELEGRAM_SECRET_ID: 'fleet-staging/telegram',
    });
    // the names reach the code through the same configuration it reads today
    const config = resourcesConfig(environment);
    expect(config).toMatchObject({
      RULES_TABLE: environment.RULES_TABLE,
      VISITS_TABLE: environment.VISITS_TABLE,
      DELIVERIES_DLQ_URL: environment.DELIVERIES_DLQ_URL,
    });
  });

  it('names each missing output instead of running against default table names', async () => {
    const older = DEPLOYED.filter((output) => output.OutputKey !== 'VisitsTableName' && output.OutputKey !== 'DirectoryTableName');
    const failure = stackEnvironment('fleet-staging', clientAnswering(older));
    await expect(failure).rejects.toThrow(StackOutputsError);
    await expect(failure).rejects.toThrow(/fleet-staging lacks outputs .*DirectoryTableName \(missing\).*VisitsTableName \(missing\)/);
    await expect(stackEnvironment('fleet-staging', clientAnswering([]))).rejects.toThrow(/RulesTableName/);
    const emptied = DEPLOYED.map((output) => (output.OutputKey === 'InputQueueUrl' ? { ...output, OutputValue: '' } : output));
    await expect(stackEnvironment('fleet-staging', clientAnswering(emptied))).rejects.toThrow(/InputQueueUrl \(empty\)/);
  });

  it('takes --stack and --region wherever they stand and leaves the command line to the command', () => {
    expect(takeGlobalOptions(['--stack', 'fleet-staging', '--region=eu-west-1', 'create-client', '--name', 'Acme'])).toEqual({
      stack: 'fleet-staging',
      region: 'eu-west-1',
      argv: ['create-client', '--name', 'Acme'],
    });
    expect(takeGlobalOptions(['redrive', 'input', '--stack=fleet-staging', '--max', '5'])).toEqual({
      stack: 'fleet-staging',
      argv: ['redrive', 'input', '--max', '5'],
    });
    expect(takeGlobalOptions(['link-users'])).toEqual({ argv: ['link-users'] });
    expect(() => takeGlobalOptions(['link-users', '--stack'])).toThrow(GlobalOptionError);
  });
});
