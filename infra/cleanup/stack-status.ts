import { DescribeStacksCommand, type CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { errorName, errorText } from '../preflight/errors';

/**
 * The stack's status while CloudFormation still has it, or undefined once it is gone. Asked by name, DescribeStacks
 * answers a ValidationError "does not exist" for a deleted stack; DELETE_COMPLETE is read as gone too.
 */
export async function liveStackStatus(cloudFormation: CloudFormationClient, stack: string): Promise<string | undefined> {
  try {
    const { Stacks = [] } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stack }));
    const status = Stacks[0]?.StackStatus;
    return status === undefined || status === 'DELETE_COMPLETE' ? undefined : status;
  } catch (error) {
    if (errorName(error) === 'ValidationError' && /does not exist/i.test(errorText(error))) return undefined;
    throw error;
  }
}
