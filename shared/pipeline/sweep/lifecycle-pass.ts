import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { documentClient } from '../../aws/dynamodb';
import { resourcesConfig } from '../../config';
import type { StoredRule } from '../../schemas/notification';
import { DAY_MS, sweepDecision } from '../../rules/lifecycle';
import { META_ITEM_ID } from '../../store/rule-snapshot';
import { logger } from '../../observability/logger';

/**
 * Rule expiry: an expired active rule is deactivated, or prolonged when it has autoProlongation. Each change
 * is conditional on the rule's version (an API edit in between wins) and bumps the rules version in the same
 * transaction so that every evaluator reloads its index.
 * Returns the rules as they are after the pass.
 */
export interface LifecycleResult {
  rules: StoredRule[];
  deactivated: number[];
  prolonged: number[];
  /** Rules edited concurrently; the next sweep looks at them again. */
  skipped: number[];
}

export async function runLifecyclePass(rules: readonly StoredRule[], now: number): Promise<LifecycleResult> {
  const result: LifecycleResult = { rules: [], deactivated: [], prolonged: [], skipped: [] };
  const tableName = resourcesConfig().RULES_TABLE;
  const updatedAt = new Date(now).toISOString();
  for (const rule of rules) {
    const decision = sweepDecision(rule, now);
    if (decision.action === 'none') {
      result.rules.push(rule);
      continue;
    }
    const next: StoredRule =
      decision.action === 'deactivate'
        ? { ...rule, active: false, version: rule.version + 1, updatedAt }
        : {
            ...rule,
            expiresAt: decision.expiresAt,
            validFrom: new Date(Date.parse(decision.expiresAt) - rule.validity * DAY_MS).toISOString(),
            version: rule.version + 1,
            updatedAt,
          };
    try {
      await documentClient().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: tableName,
                Key: { id: rule.id },
                UpdateExpression: 'SET active = :active, expiresAt = :expiresAt, validFrom = :validFrom, version = :next, updatedAt = :updatedAt',
                ConditionExpression: 'version = :expected',
                ExpressionAttributeValues: {
                  ':active': next.active,
                  ':expiresAt': next.expiresAt,
                  ':validFrom': next.validFrom,
                  ':next': next.version,
                  ':updatedAt': updatedAt,
                  ':expected': rule.version,
                },
              },
            },
            {
              Update: {
                TableName: tableName,
                Key: { id: META_ITEM_ID },
                UpdateExpression: 'ADD rulesVersion :one',
                ExpressionAttributeValues: { ':one': 1 },
              },
            },
          ],
        }),
      );
    } catch (error) {
      if (!(error instanceof TransactionCanceledException || (error as Error).name === 'TransactionCanceledException')) throw error;
      logger.info('rule changed during the sweep; left for the next one', { ruleId: rule.id });
      result.skipped.push(rule.id);
      continue;
    }
    result.rules.push(next);
    if (decision.action === 'deactivate') {
      result.deactivated.push(rule.id);
      logger.info('expired rule deactivated', { ruleId: rule.id, expiresAt: rule.expiresAt });
    } else {
      result.prolonged.push(rule.id);
      logger.info('expired rule prolonged', { ruleId: rule.id, expiresAt: next.expiresAt });
    }
  }
  return result;
}
