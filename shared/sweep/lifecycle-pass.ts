import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import type { StoredRule } from '../schemas/notification';
import { DAY_MS, sweepDecision } from '../rules/lifecycle';
import { ruleItem, rulesDueForExpiry } from '../store/rules-store';
import { logger } from '../observability/logger';
import { conditionFailed } from '../store/dynamo';

/**
 * Rule expiry: an expired active rule is deactivated, or prolonged when it has autoProlongation. The rules
 * due are read from the sparse `byExpiry` index (active rules by expiry time), so the pass reads only what
 * falls due. Each change is conditional on the rule's version (an API edit in between wins) and reaches the
 * evaluators through the rules table's stream, like any other rule write.
 */
export interface LifecycleResult {
  deactivated: number[];
  prolonged: number[];
  /** Rules edited concurrently; the next sweep looks at them again. */
  skipped: number[];
}

export async function runLifecyclePass(now: number, due: () => Promise<StoredRule[]> = () => rulesDueForExpiry(now)): Promise<LifecycleResult> {
  const result: LifecycleResult = { deactivated: [], prolonged: [], skipped: [] };
  const updatedAt = new Date(now).toISOString();
  for (const rule of await due()) {
    const decision = sweepDecision(rule, now);
    if (decision.action === 'none') continue;
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
    const shard = ruleItem(next).expiryShard;
    try {
      await documentClient().send(
        new UpdateCommand({
          TableName: resourcesConfig().RULES_TABLE,
          Key: { id: rule.id },
          UpdateExpression:
            'SET active = :active, expiresAt = :expiresAt, validFrom = :validFrom, version = :next, updatedAt = :updatedAt' +
            (shard === undefined ? ' REMOVE expiryShard' : ', expiryShard = :shard'),
          ConditionExpression: 'version = :expected',
          ExpressionAttributeValues: {
            ':active': next.active,
            ':expiresAt': next.expiresAt,
            ':validFrom': next.validFrom,
            ':next': next.version,
            ':updatedAt': updatedAt,
            ':expected': rule.version,
            ...(shard === undefined ? {} : { ':shard': shard }),
          },
        }),
      );
    } catch (error) {
      if (!conditionFailed(error)) throw error;
      logger.info('rule changed during the sweep; left for the next one', { ruleId: rule.id });
      result.skipped.push(rule.id);
      continue;
    }
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
