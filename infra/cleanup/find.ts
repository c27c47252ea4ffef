import { paginateDescribeLogGroups, type CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { paginateListTables, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { paginateGetResources, type ResourceGroupsTaggingAPIClient } from '@aws-sdk/client-resource-groups-tagging-api';
import { STACK_TAG } from '../stack-facts';
import type { CleanupClients } from './clients';
import { CLEANUP_KINDS, leftoverOfArn, type Leftover } from './kinds';

/** The ARNs of every resource tagged with the stack's name, over all pages. */
export async function taggedArns(tagging: ResourceGroupsTaggingAPIClient, stack: string): Promise<string[]> {
  const arns: string[] = [];
  for await (const page of paginateGetResources({ client: tagging }, { TagFilters: [{ Key: STACK_TAG, Values: [stack] }] })) {
    for (const mapping of page.ResourceTagMappingList ?? []) if (mapping.ResourceARN) arns.push(mapping.ResourceARN);
  }
  return arns;
}

/**
 * Whether a name is one CloudFormation generated for this stack: `<stack>-<logical id>-<suffix>`. A logical id has
 * no hyphen, so the tables of a stack `Fleetwatch-eu` are not taken for those of a stack `Fleetwatch`.
 */
export function isGeneratedName(name: string, stack: string): boolean {
  return name.startsWith(`${stack}-`) && /^[A-Za-z0-9]+-[A-Za-z0-9]+$/.test(name.slice(stack.length + 1));
}

export async function prefixedTableNames(dynamodb: DynamoDBClient, stack: string): Promise<string[]> {
  const names: string[] = [];
  for await (const page of paginateListTables({ client: dynamodb }, {})) {
    for (const name of page.TableNames ?? []) if (isGeneratedName(name, stack)) names.push(name);
  }
  return names;
}

export async function prefixedLogGroupNames(logs: CloudWatchLogsClient, stack: string): Promise<string[]> {
  const names: string[] = [];
  for await (const page of paginateDescribeLogGroups({ client: logs }, { logGroupNamePrefix: `${stack}-` })) {
    for (const group of page.logGroups ?? []) if (group.logGroupName && isGeneratedName(group.logGroupName, stack)) names.push(group.logGroupName);
  }
  return names;
}

/**
 * What is left of the stack: everything tagged with its name, and the tables and log groups named after it (an
 * installation from before the tag), each once.
 */
export async function findLeftovers(clients: Pick<CleanupClients, 'tagging' | 'dynamodb' | 'logs'>, stack: string): Promise<Leftover[]> {
  const [arns, tables, logGroups] = await Promise.all([
    taggedArns(clients.tagging, stack),
    prefixedTableNames(clients.dynamodb, stack),
    prefixedLogGroupNames(clients.logs, stack),
  ]);
  const found = [
    ...arns.map(leftoverOfArn),
    ...tables.map((id): Leftover => ({ kind: 'AWS::DynamoDB::Table', id })),
    ...logGroups.map((id): Leftover => ({ kind: 'AWS::Logs::LogGroup', id })),
  ];
  const unique = new Map(found.map((leftover) => [`${leftover.kind ?? 'other'} ${leftover.id}`, leftover]));
  // by kind in CLEANUP_KINDS' order, the kinds left alone last
  const rank = (leftover: Leftover) => (leftover.kind === undefined ? CLEANUP_KINDS.length : CLEANUP_KINDS.indexOf(leftover.kind));
  return [...unique.values()].sort((a, b) => rank(a) - rank(b) || a.id.localeCompare(b.id));
}
