import { DescribeStacksCommand, type CloudFormationClient } from '@aws-sdk/client-cloudformation';
import * as z from 'zod';
import { TABLES, type TableKey } from '../../shared/store/tables';
import { QUEUE_OUTPUTS, TABLE_OUTPUTS, TELEGRAM_SECRET_NAME_OUTPUT } from '../stack-facts';

/**
 * `npm run admin -- --stack <name>`: the tables, queues and Telegram secret of a deployed stack, read from its
 * outputs (CloudFormation DescribeStacks) into the environment variables the admin commands read
 * (`shared/config.ts`, `infra/admin/redrive.ts`), instead of setting each by hand.
 */
export const OUTPUT_OF_VARIABLE: Readonly<Record<string, string>> = {
  ...Object.fromEntries((Object.keys(TABLE_OUTPUTS) as TableKey[]).map((key) => [TABLES[key].envName, TABLE_OUTPUTS[key]])),
  INPUT_QUEUE_URL: QUEUE_OUTPUTS.input,
  INPUT_DLQ_URL: QUEUE_OUTPUTS.inputDeadLetters,
  DELIVERIES_QUEUE_URL: QUEUE_OUTPUTS.deliveries,
  DELIVERIES_DLQ_URL: QUEUE_OUTPUTS.deliveryDeadLetters,
  TELEGRAM_SECRET_ID: TELEGRAM_SECRET_NAME_OUTPUT,
};

const outputsSchema = z.object(
  Object.fromEntries(Object.values(OUTPUT_OF_VARIABLE).map((output) => [output, z.string({ error: 'missing' }).min(1, 'empty')])),
);

export class StackOutputsError extends Error {}

/** The environment variables of the stack's resources, from its outputs; a missing output is named. */
export async function stackEnvironment(stackName: string, client: CloudFormationClient): Promise<Record<string, string>> {
  const { Stacks = [] } = await client.send(new DescribeStacksCommand({ StackName: stackName }));
  const stack = Stacks[0];
  if (!stack) throw new StackOutputsError(`stack ${stackName} not found`);
  const outputs = Object.fromEntries((stack.Outputs ?? []).flatMap((output) => (output.OutputKey ? [[output.OutputKey, output.OutputValue]] : [])));
  const parsed = outputsSchema.safeParse(outputs);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${String(issue.path[0])} (${issue.message})`).join(', ');
    throw new StackOutputsError(
      `stack ${stackName} lacks outputs the admin commands need: ${problems}. Deploy the current version of the stack (cdk deploy), or set the variables by hand.`,
    );
  }
  const values = parsed.data as Record<string, string>;
  return Object.fromEntries(Object.entries(OUTPUT_OF_VARIABLE).map(([variable, output]) => [variable, values[output]!]));
}
