import type { StoredRule } from '../schemas/notification';

/**
 * Which vehicles a rule watches (`settings.scope`):
 * - `listed`: the vehicles in `vehicleIds`;
 * - `client`: every vehicle registered to the rule's client;
 * - `subtree`: every vehicle of the rule's client and of the clients below it.
 * Scoped rules (client, subtree) follow the directory: a vehicle registered later is covered, one moved away is not.
 */
export const RULE_SCOPES = ['listed', 'client', 'subtree'] as const;
export type RuleScope = (typeof RULE_SCOPES)[number];

/** The scope a stored rule names; an unreadable value reads as `listed`, which the rule's own validation reports. */
export function scopeOf(rule: Pick<StoredRule, 'settings'>): RuleScope {
  const text = rule.settings.scope?.trim().toLowerCase() ?? 'listed';
  return (RULE_SCOPES as readonly string[]).includes(text) ? (text as RuleScope) : 'listed';
}

/**
 * Whether a rule's scope takes in a vehicle owned by `owners` (owner first, then the clients above it). Ownership
 * of the rule's client is checked apart (ruleOwnedAndInForce), for every scope.
 */
export function scopeCovers(
  rule: Pick<StoredRule, 'parentId'>,
  scope: RuleScope,
  listed: ReadonlySet<number>,
  vehicleId: number,
  owners: readonly string[],
): boolean {
  if (scope === 'listed') return listed.has(vehicleId);
  if (scope === 'client') return owners[0] === rule.parentId;
  return owners.includes(rule.parentId);
}
