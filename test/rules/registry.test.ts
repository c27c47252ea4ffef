import { describe, expect, it } from 'vitest';
import { RULE_TYPES, ruleTypeSchema } from '../../shared/schemas/notification';
import { EVENT_KINDS } from '../../shared/rules/event-kinds';
import { RULE_EVALUATORS, UnsupportedRuleTypeError, evaluatorFor } from '../../shared/rules/registry';
import type { RuleType } from '../../shared/schemas/notification';

describe('registry', () => {
  it('has an evaluator for every supported rule type, under its own type', () => {
    for (const type of Object.values(RULE_TYPES)) expect(evaluatorFor(type).type).toBe(type);
    expect(
      Object.keys(RULE_EVALUATORS)
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual(Object.values(RULE_TYPES).sort((a, b) => a - b));
  });

  it('refuses a type the platform does not define', () => {
    expect(() => evaluatorFor(3 as RuleType)).toThrow(UnsupportedRuleTypeError);
  });

  it("takes the platform's codes and fleetwatch's own, 13 to 16; 1, 3 and unknown codes are refused", () => {
    for (const type of [0, 12, 13, 14, 15, 16]) expect(ruleTypeSchema.safeParse(type).success, `type ${type}`).toBe(true);
    expect(ruleTypeSchema.parse(15)).toBe(RULE_TYPES.continuousDriving);
    expect(ruleTypeSchema.parse(16)).toBe(RULE_TYPES.deviceAlarm);
    for (const type of [1, 3, 17, 99, -1, 13.5]) expect(ruleTypeSchema.safeParse(type).success, `type ${type}`).toBe(false);
  });

  it('accepts an empty settings map for every type that has defaults', () => {
    // analog needs a bound, address needs a point (an address or coordinates)
    const needBounds = new Set<number>([RULE_TYPES.analogSensor, RULE_TYPES.address]);
    for (const evaluator of Object.values(RULE_EVALUATORS)) {
      expect(evaluator.settingsSchema.safeParse({}).success).toBe(!needBounds.has(evaluator.type));
    }
  });

  it('lists unique event kinds', () => {
    expect(new Set(EVENT_KINDS).size).toBe(EVENT_KINDS.length);
  });
});
