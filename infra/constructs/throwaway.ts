import { Aspects, RemovalPolicies, type IAspect } from 'aws-cdk-lib';
import { CfnTable } from 'aws-cdk-lib/aws-dynamodb';
import type { IConstruct } from 'constructs';

const tablesUnprotected: IAspect = {
  visit(node: IConstruct): void {
    if (node instanceof CfnTable) node.deletionProtectionEnabled = false;
  },
};

/**
 * Makes everything in `scope` go with `cdk destroy`: tables (without deletion protection), log groups, the
 * Telegram secret, keys. For test stacks only: a production stack keeps its data when the stack is deleted.
 */
export function makeThrowaway(scope: IConstruct): void {
  RemovalPolicies.of(scope).destroy();
  Aspects.of(scope).add(tablesUnprotected);
}
