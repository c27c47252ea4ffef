import type { Geozone } from '../schemas/geozone';
import type { RuleType, StoredRule } from '../schemas/notification';
import { ZoneIndex } from '../geo/zone-index';
import { isEffective } from './lifecycle';
import { RULE_EVALUATORS } from './registry';
import { formatProblems, isUnusable, ruleProblems } from './rule-validation';
import { compileSchedule, type WeeklySchedule } from './schedule';
import type { CompiledRule, RuleEvaluator, ZoneLookup } from './types';

export interface InvalidRule {
  ruleId: number;
  reason: string;
}

/**
 * Rules and geozones compiled for evaluation: settings parsed once, rules grouped by vehicle, geozones in a
 * spatial index. The deployed functions compile rules one by one (`compileRule`) as a vehicle's item names
 * them; a whole index is what the benchmarks and the evaluator tests build over a known set of rules.
 */
export interface RuleIndex {
  /**
   * Effective rules (see lifecycle.isEffective) that watch this vehicle, ordered by rule id.
   * The array is shared between calls: read it, never mutate it.
   */
  rulesFor(vehicleId: number, now: number): CompiledRule[];
  /** Every compiled rule of a type, effective or not (the sweep checks effectiveness itself). Do not mutate. */
  rulesOfType(type: RuleType): CompiledRule[];
  /** The evaluator of a compiled rule's type. */
  evaluatorOf(rule: CompiledRule): RuleEvaluator;
  readonly zones: ZoneLookup;
  /** Rules left out because their settings or references are invalid, with the reason. */
  readonly invalidRules: readonly InvalidRule[];
  /** Number of compiled rules. */
  readonly size: number;
}

interface IndexedRule {
  compiled: CompiledRule;
  active: boolean;
  /** Epoch ms from which the rule is in force (activation time), and until which (expiry, exclusive). */
  from: number;
  until: number;
}

const NO_RULES: CompiledRule[] = [];

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

/** The geozones a rule looks at: a geozone rule's `geoids`, a speeding rule's `zoneLimits`. */
export function zoneIdsOf(rule: StoredRule, settings?: unknown): number[] {
  const ids = new Set<number>(rule.type === 0 ? rule.geoids : []);
  const limits = (settings as { zoneLimits?: { zoneId: number }[] } | undefined)?.zoneLimits;
  if (rule.type === 2 && Array.isArray(limits)) for (const entry of limits) ids.add(entry.zoneId);
  return [...ids];
}

/**
 * Whether a rule applies to a vehicle at `now`: in force (lifecycle.isEffective), listing the vehicle, and
 * belonging to the vehicle's current owner or a client above it (`owners`: owner first, then its ancestors).
 * A vehicle without an owner is unknown, and no rule applies to it.
 */
export function ruleAppliesTo(rule: StoredRule, vehicleId: number, owners: readonly string[], now: number): boolean {
  return rule.vehicleIds.includes(vehicleId) && ruleOwnedAndInForce(rule, owners, now);
}

/** The part of ruleAppliesTo that does not depend on the vehicle list (for callers that keep it as a set). */
export function ruleOwnedAndInForce(rule: StoredRule, owners: readonly string[], now: number): boolean {
  return owners.includes(rule.parentId) && isEffective(rule, now);
}

export function compileRuleIndex(rules: readonly StoredRule[], geozones: readonly Geozone[]): RuleIndex {
  const zones = new ZoneIndex(geozones);
  const invalidRules: InvalidRule[] = [];
  const byVehicle = new Map<number, IndexedRule[]>();
  const byType = new Map<RuleType, CompiledRule[]>();
  const boundaries = new Set<number>();

  for (const rule of [...rules].sort((a, b) => a.id - b.id)) {
    const compilation = compileRule(rule);
    if (!compilation.ok) {
      invalidRules.push({ ruleId: rule.id, reason: compilation.reason });
      continue;
    }
    if (rule.type === 0 && !rule.geoids.some((id) => zones.has(id))) {
      invalidRules.push({ ruleId: rule.id, reason: NO_ZONE_REASON });
      continue;
    }
    const { compiled } = compilation;
    const indexed: IndexedRule = {
      compiled,
      active: rule.active,
      from: rule.activationMode === 1 && rule.activationTime !== null ? Date.parse(rule.activationTime) : -Infinity,
      until: Date.parse(rule.expiresAt),
    };
    boundaries.add(indexed.from).add(indexed.until);
    const ofType = byType.get(rule.type) ?? [];
    ofType.push(compiled);
    byType.set(rule.type, ofType);
    for (const vehicleId of new Set(rule.vehicleIds)) {
      const list = byVehicle.get(vehicleId) ?? [];
      list.push(indexed);
      byVehicle.set(vehicleId, list);
    }
  }

  // Which rules are effective changes only at activation and expiry times; between two such boundaries
  // the per-vehicle answer is cached.
  const sortedBoundaries = [...boundaries].filter(Number.isFinite).sort((a, b) => a - b);
  let windowStart = Infinity;
  let windowEnd = -Infinity;
  const cache = new Map<number, CompiledRule[]>();

  function moveWindow(now: number): void {
    let low = 0;
    let high = sortedBoundaries.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (sortedBoundaries[middle]! <= now) low = middle + 1;
      else high = middle;
    }
    windowStart = low === 0 ? -Infinity : sortedBoundaries[low - 1]!;
    windowEnd = low === sortedBoundaries.length ? Infinity : sortedBoundaries[low]!;
    cache.clear();
  }

  let size = 0;
  for (const list of byType.values()) size += list.length;

  return {
    zones,
    invalidRules,
    size,
    rulesFor(vehicleId, now) {
      if (now < windowStart || now >= windowEnd) moveWindow(now);
      let result = cache.get(vehicleId);
      if (result === undefined) {
        const candidates = byVehicle.get(vehicleId);
        result = candidates === undefined ? NO_RULES : candidates.filter((entry) => entry.active && entry.from <= now && now < entry.until).map((entry) => entry.compiled);
        if (result.length === 0) result = NO_RULES;
        cache.set(vehicleId, result);
      }
      return result;
    },
    rulesOfType(type) {
      return byType.get(type) ?? NO_RULES;
    },
    evaluatorOf(rule) {
      return RULE_EVALUATORS[rule.rule.type]!;
    },
  };
}
