import { notificationBodySchema, type StoredRule } from '../../shared/schemas/notification';

/**
 * Fixtures shared by the rules, pipeline, projection, delivery and bench tests: the starts of the test clocks, one
 * client and one stored rule. Without vitest or the emulators, so that benches may import it.
 */
export const PARENT_ID = '7d0b1c3e-2f4a-4b5c-8d6e-9f0a1b2c3d4e';
/** The test clock's start: 2026-03-01, midnight UTC. */
export const T0 = Date.parse('2026-03-01T00:00:00.000Z');
export const DAY_MS = 86_400_000;
/** The delivery tests' clock start: T0's day at 10:00 UTC, when the delivery fixtures' alerts are raised. */
export const DELIVERY_T0 = Date.parse('2026-03-01T10:00:00.000Z');

/** What differs between the stored rules of the suites: the rule's name and when it is in force. */
export interface StoredRuleDefaults {
  name: string;
  /** Its createdAt, updatedAt and validFrom (epoch ms). */
  createdAt: number;
  /** Days from T0 to its expiresAt. */
  validDays: number;
}

/** The rules tests' rule: created at T0, in force 90 days. */
export const RULE_DEFAULTS: StoredRuleDefaults = { name: 'rule', createdAt: T0, validDays: 90 };
/** The pipeline tests' rule: a speeding rule created the day before T0, in force 30 days after it. */
export const PIPELINE_RULE_DEFAULTS: StoredRuleDefaults = { name: 'Speeding over 90', createdAt: T0 - DAY_MS, validDays: 30 };

/** A speeding rule (type 2) of PARENT_ID's client on vehicle 1, as the rules table stores it. */
export function storedRule(overrides: Partial<StoredRule> = {}, defaults: StoredRuleDefaults = RULE_DEFAULTS): StoredRule {
  const created = new Date(defaults.createdAt).toISOString();
  return {
    ...notificationBodySchema.parse({ type: 2, parentId: PARENT_ID, name: defaults.name, active: true, vehicleIds: [1] }),
    id: 1,
    parentName: '',
    version: 1,
    createdAt: created,
    updatedAt: created,
    validFrom: created,
    expiresAt: new Date(T0 + defaults.validDays * DAY_MS).toISOString(),
    ...overrides,
  };
}
