import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { API_URL_OUTPUT } from '../stack-facts';

export class StackUrlError extends Error {}

/** Where the stack is: unset, the SDK's own chain decides (AWS_REGION, AWS_PROFILE, the default profile). */
export interface AwsTarget {
  region?: string;
  profile?: string;
}

export function cloudFormationClient({ region, profile }: AwsTarget): CloudFormationClient {
  return new CloudFormationClient({ ...(region ? { region } : {}), ...(profile ? { profile } : {}) });
}

/** The stack's ApiUrl output, as `--url` would take it. */
export async function apiUrlOfStack(stackName: string, client: CloudFormationClient): Promise<string> {
  const { Stacks = [] } = await client.send(new DescribeStacksCommand({ StackName: stackName }));
  const stack = Stacks[0];
  if (!stack) throw new StackUrlError(`stack ${stackName} not found`);
  const apiUrl = stack.Outputs?.find((output) => output.OutputKey === API_URL_OUTPUT)?.OutputValue;
  if (!apiUrl) throw new StackUrlError(`stack ${stackName} has no ${API_URL_OUTPUT} output: deploy the current version (cdk deploy), or give --url`);
  return apiUrl;
}
