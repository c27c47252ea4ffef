import type { z } from 'zod';
import type { NotificationBody } from '../schemas/notification';
import { addressSettingsSchema, hasCoordinates } from './address';
import { RULE_EVALUATORS } from './registry';
import { scopeOf } from './scope';
import type { RuleEvaluator } from './types';

/**
 * Whether a rule can work, decided in one place: the API refuses a rule with problems on write, the rule index
 * leaves one out (and says why), and GET/find show the problems of a stored rule that broke later (a geozone
 * deleted since). Pure: what exists is passed in.
 */

/** One reason a rule cannot work, named by the field (`settings.limit`, `geoids`) the way the API's 400 names it. */
export interface RuleProblem {
  path: string;
  message: string;
  /** The rule still works without what this names (one lost zone among several, a lost zone limit). */
  partial?: true;
  /** An address rule without coordinates: a geocoder can solve it at write time by finding them from the address. */
  geocodable?: true;
}

/** The message of an address rule left without coordinates, where no geocoder finds them. */
export const MISSING_COORDINATES = 'latitude and longitude of the address are required (no geocoder found them from the address)';

export type RuleShape = Pick<NotificationBody, 'type' | 'settings' | 'geoids'> & Partial<Pick<NotificationBody, 'vehicleIds'>>;

/** The zones a rule's geozone references must exist; by default every id is taken to exist (write-time checks). */
export type ZoneExists = (zoneId: number) => boolean;

const everyZoneExists: ZoneExists = () => true;

/** Problems of the rule's `settings` under its evaluator's own schema: malformed, out of range, unknown keys, cross-field. */
export function settingsProblems(type: number, settings: Record<string, string>): RuleProblem[] {
  const evaluator = RULE_EVALUATORS[type as NotificationBody['type']] as RuleEvaluator | undefined;
  if (evaluator === undefined) return [{ path: 'type', message: `rule type ${type} is not supported` }];
  const parsed = evaluator.settingsSchema.safeParse(settings);
  return parsed.success ? [] : parsed.error.issues.flatMap(settingsIssue);
}

function settingsIssue(issue: z.core.$ZodIssue): RuleProblem[] {
  const path = ['settings', ...issue.path.map(String)];
  // an unknown key is named where it is: a setting (`settings.speed`), or a field of an escalation level (`settings.escalation.0.phone`)
  if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ path: [...path, key].join('.'), message: issue.message }));
  return [{ path: path.join('.'), message: issue.message }];
}

/** Zone ids named by a speeding rule's `zoneLimits` ("12:50,14:30"), read leniently: settings problems are reported apart. */
function zoneLimitIds(settings: Record<string, string>): number[] {
  const text = settings.zoneLimits ?? '';
  return [...text.matchAll(/(?:^|,)\s*(\d+)\s*:/g)].map((match) => Number(match[1]));
}

/** The geozones of a rule's zone condition (`settings.zones`), read leniently: settings problems are reported apart. */
export function conditionZoneIds(settings: Record<string, string>): number[] {
  return [...new Set((settings.zones ?? '').split(',').flatMap((part) => (/^\s*\d+\s*$/.test(part) ? [Number(part)] : [])))];
}

/** Everything that keeps the rule from working: its settings, its scope, and the geozones it needs. */
export function ruleProblems(rule: RuleShape, zoneExists: ZoneExists = everyZoneExists): RuleProblem[] {
  const problems = settingsProblems(rule.type, rule.settings);
  const scope = scopeOf(rule);
  if (scope !== 'listed' && (rule.vehicleIds?.length ?? 0) > 0)
    problems.push({ path: 'vehicleIds', message: `must be empty with settings.scope=${scope}: the rule watches every vehicle of its scope` });
  const conditionZones = conditionZoneIds(rule.settings);
  if (conditionZones.length > 0 && !conditionZones.some(zoneExists)) {
    problems.push({ path: 'settings.zones', message: "none of the zone condition's geozones exists any more" });
  } else {
    for (const id of conditionZones) {
      if (!zoneExists(id)) problems.push({ path: 'settings.zones', message: `geozone ${id} does not exist any more`, partial: true });
    }
  }
  if (rule.type === 0) {
    if (rule.geoids.length === 0) problems.push({ path: 'geoids', message: 'a geozone rule (type 0) needs at least one geozone' });
    else if (!rule.geoids.some(zoneExists)) problems.push({ path: 'geoids', message: "none of the rule's geozones exists any more" });
    else {
      rule.geoids.forEach((id, index) => {
        if (!zoneExists(id)) problems.push({ path: `geoids.${index}`, message: `geozone ${id} does not exist any more`, partial: true });
      });
    }
  }
  if (rule.type === 10 && problems.length === 0) {
    const settings = addressSettingsSchema.parse(rule.settings);
    if (!hasCoordinates(settings)) problems.push({ path: 'settings.latitude', message: MISSING_COORDINATES, geocodable: true });
  }
  if (rule.type === 2) {
    for (const zoneId of zoneLimitIds(rule.settings)) {
      if (!rule.geoids.includes(zoneId)) {
        // refused on write; a rule stored before still works (its zone limits too), so it is not left out
        problems.push({ path: 'settings.zoneLimits', message: `zone ${zoneId} must also be listed in geoids`, partial: true });
      } else if (!zoneExists(zoneId)) {
        problems.push({ path: 'settings.zoneLimits', message: `geozone ${zoneId} does not exist any more`, partial: true });
      }
    }
  }
  return problems;
}

/** Problems that make the rule unusable as a whole (it is left out of evaluation), as opposed to a lost zone among several. */
export function isUnusable(problems: readonly RuleProblem[]): boolean {
  return problems.some((problem) => problem.partial !== true);
}

export const formatProblems = (problems: readonly RuleProblem[]): string =>
  problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ');
