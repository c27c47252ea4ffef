import type { StoredRule } from '../schemas/notification';
import { isEffective } from './lifecycle';
import { RULE_EVALUATORS } from './registry';
import { conditionZoneIds, formatProblems, isUnusable, ruleProblems } from './rule-validation';
import { scopeCovers, scopeOf } from './scope';
import { compileSchedule, type WeeklySchedule } from './schedule';
import type { CompiledRule, RuleEvaluator } from './types';

export const NO_ZONE_REASON = "geoids: none of the rule's geozones exists";

export type RuleCompilation = { ok: true; compiled: CompiledRule } | { ok: false; reason: string };

/** Parses one rule's settings with its type's evaluator; the rule's zones are checked where they are known. */
export function compileRule(rule: StoredRule): RuleCompilation {
  const evaluator = RULE_EVALUATORS[rule.type] as RuleEvaluator | undefined;
  if (evaluator === undefined) return { ok: false, reason: `rule type ${rule.type} is not supported` };
  // zones are checked where they are loaded; here every referenced zone is taken to exist
  const problems = ruleProblems(rule);
  if (isUnusable(problems)) return { ok: false, reason: formatProblems(problems) };
  const parsed = evaluator.settingsSchema.safeParse(rule.settings);
  if (!parsed.success) return { ok: false, reason: `settings: ${parsed.error.issues.map((issue) => issue.message).join('; ')}` };
  const week = (parsed.data as { schedule?: WeeklySchedule }).schedule;
  if (week === undefined) return { ok: true, compiled: { rule, settings: parsed.data } };
  try {
    return { ok: true, compiled: { rule, settings: parsed.data, schedule: compileSchedule(week, rule.timezone) } };
  } catch (error) {
    return { ok: false, reason: `timezone: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** The geozones a rule looks at: a geozone rule's `geoids`, a speeding rule's `zoneLimits`, any rule's zone condition. */
export function zoneIdsOf(rule: StoredRule, settings?: unknown): number[] {
  const ids = new Set<number>(rule.type === 0 ? rule.geoids : []);
  const limits = (settings as { zoneLimits?: { zoneId: number }[] } | undefined)?.zoneLimits;
  if (rule.type === 2 && Array.isArray(limits)) for (const entry of limits) ids.add(entry.zoneId);
  for (const id of conditionZoneIds(rule.settings)) ids.add(id);
  return [...ids];
}

/**
 * Whether a rule applies to a vehicle at `now`: in force (lifecycle.isEffective), its scope taking the vehicle in, and
 * belonging to the vehicle's current owner or a client above it (`owners`: owner first, then its ancestors).
 * A vehicle without an owner is unknown, and no rule applies to it.
 */
export function ruleAppliesTo(rule: StoredRule, vehicleId: number, owners: readonly string[], now: number): boolean {
  return scopeCovers(rule, scopeOf(rule), new Set(rule.vehicleIds), vehicleId, owners) && ruleOwnedAndInForce(rule, owners, now);
}

/** The part of ruleAppliesTo that does not depend on the vehicle list (for callers that keep it as a set). */
export function ruleOwnedAndInForce(rule: StoredRule, owners: readonly string[], now: number): boolean {
  return owners.includes(rule.parentId) && isEffective(rule, now);
}
