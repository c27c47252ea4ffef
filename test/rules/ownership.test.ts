import { describe, expect, it } from 'vitest';
import { ruleAppliesTo } from '../../shared/rules/rule-index';
import { storedRule, T0, DAY_MS } from '../pipeline/support';

/** Which rules apply to a vehicle: in force, listing it, and of its owner or a client above it. */
describe('ruleAppliesTo', () => {
  const holding = '11111111-1111-4111-8111-111111111111';
  const carrier = '22222222-2222-4222-8222-222222222222';
  const stranger = '33333333-3333-4333-8333-333333333333';
  const owners = [carrier, holding];

  it("applies the owner's rules and those of the clients above it, not a stranger's", () => {
    expect(ruleAppliesTo(storedRule({ parentId: carrier, vehicleIds: [7] }), 7, owners, T0)).toBe(true);
    expect(ruleAppliesTo(storedRule({ parentId: holding, vehicleIds: [7] }), 7, owners, T0)).toBe(true);
    expect(ruleAppliesTo(storedRule({ parentId: stranger, vehicleIds: [7] }), 7, owners, T0)).toBe(false);
  });

  it('applies nothing to a vehicle nobody owns, nor a rule that does not list the vehicle or is not in force', () => {
    expect(ruleAppliesTo(storedRule({ parentId: carrier, vehicleIds: [7] }), 7, [], T0)).toBe(false);
    expect(ruleAppliesTo(storedRule({ parentId: carrier, vehicleIds: [8] }), 7, owners, T0)).toBe(false);
    expect(ruleAppliesTo(storedRule({ parentId: carrier, vehicleIds: [7], active: false }), 7, owners, T0)).toBe(false);
    expect(ruleAppliesTo(storedRule({ parentId: carrier, vehicleIds: [7], expiresAt: new Date(T0 - DAY_MS).toISOString() }), 7, owners, T0)).toBe(
      false,
    );
  });
});
