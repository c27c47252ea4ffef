import type { StoredRule } from '../schemas/notification';
import { DAY_MS, sweepDecision } from '../rules/lifecycle';
import { rulesDueForExpiry, writeSweptRule } from '../store/rules-store';
import { logger } from '../observability/logger';

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
    if (!(await writeSweptRule(rule, next))) {
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
