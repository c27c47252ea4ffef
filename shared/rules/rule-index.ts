import type { Geozone } from '../schemas/geozone';
import type { RuleType, StoredRule } from '../schemas/notification';
import { ZoneIndex } from '../geo/zone-index';
import { RULE_EVALUATORS } from './registry';
import { formatProblems, isUnusable, ruleProblems } from './rule-validation';
import type { CompiledRule, RuleEvaluator, ZoneLookup } from './types';

export interface InvalidRule {
  ruleId: number;
  reason: string;
}

/**
 * All rules and geozones compiled for evaluation: settings parsed once, rules grouped by vehicle,
 * geozones in a spatial index. Built when the rules version changes, then read for every message.
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

export function compileRuleIndex(rules: readonly StoredRule[], geozones: readonly Geozone[]): RuleIndex {
  const zones = new ZoneIndex(geozones);
  const invalidRules: InvalidRule[] = [];
  const byVehicle = new Map<number, IndexedRule[]>();
  const byType = new Map<RuleType, CompiledRule[]>();
  const boundaries = new Set<number>();

  for (const rule of [...rules].sort((a, b) => a.id - b.id)) {
    const evaluator = RULE_EVALUATORS[rule.type] as RuleEvaluator | undefined;
    if (evaluator === undefined) {
      invalidRules.push({ ruleId: rule.id, reason: `rule type ${rule.type} is not supported` });
      continue;
    }
    const problems = ruleProblems(rule, (id) => zones.has(id));
    if (isUnusable(problems)) {
      invalidRules.push({ ruleId: rule.id, reason: formatProblems(problems) });
      continue;
    }
    const compiled: CompiledRule = { rule, settings: evaluator.settingsSchema.parse(rule.settings) };
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
