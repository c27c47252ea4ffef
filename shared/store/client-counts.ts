import { paginateQuery } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';

/**
 * How many rules or geozones one client owns, counted on the tables' `byParent` index. The count stops at
 * `upTo`, so checking a limit reads at most that many index entries, whatever the client holds.
 */
async function countByParent(tableName: string, parentId: string, upTo: number): Promise<number> {
  let count = 0;
  for await (const page of paginateQuery(
    { client: documentClient(), pageSize: Math.min(upTo, 1_000) },
    {
      TableName: tableName,
      IndexName: 'byParent',
      KeyConditionExpression: 'parentId = :parent',
      ExpressionAttributeValues: { ':parent': parentId },
      Select: 'COUNT',
    },
  )) {
    count += page.Count ?? 0;
    if (count >= upTo) break;
  }
  return count;
}

export const countRulesOfClient = (parentId: string, upTo: number) => countByParent(resourcesConfig().RULES_TABLE, parentId, upTo);
export const countGeozonesOfClient = (parentId: string, upTo: number) => countByParent(resourcesConfig().GEOZONES_TABLE, parentId, upTo);
