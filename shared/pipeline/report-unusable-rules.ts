import type { Geozone } from '../schemas/geozone';
import type { StoredRule } from '../schemas/notification';
import { logger } from '../observability/logger';
import { MetricName, MetricUnit, metrics } from '../observability/metrics';
import { compileRuleIndex, type RuleIndex } from '../rules/rule-index';

/**
 * Compiles the rule index and makes the rules it leaves out visible: one warning per rule that cannot work
 * (with the reason), and their number as the `UnusableRules` metric, so that a rule that broke after it was
 * saved (its geozone deleted since) does not fall silent unnoticed.
 */
export function compileRuleIndexReporting(rules: StoredRule[], geozones: Geozone[]): RuleIndex {
  const index = compileRuleIndex(rules, geozones);
  for (const { ruleId, reason } of index.invalidRules) logger.warn('rule left out of evaluation: it cannot work', { ruleId, reason });
  metrics.addMetric(MetricName.UnusableRules, MetricUnit.Count, index.invalidRules.length);
  return index;
}
