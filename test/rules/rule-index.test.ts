import { describe, expect, it } from 'vitest';
import { compileRuleIndex } from '../../shared/rules/rule-index';
import { isEffective } from '../../shared/rules/lifecycle';
import { CENTER, T0, squareZone, storedRule } from './fixtures';

const at = (ms: number) => new Date(ms).toISOString();
const HOUR = 3_600_000;

describe('compileRuleIndex', () => {
  const rules = [
    storedRule({ id: 3, type: 2, vehicleIds: [1, 2], settings: { limit: '80' } }),
    storedRule({ id: 1, type: 2, vehicleIds: [1], settings: {} }),
    storedRule({ id: 4, type: 2, vehicleIds: [1], active: false }),
    storedRule({ id: 5, type: 2, vehicleIds: [1], activationMode: 1, activationTime: at(T0 + HOUR) }),
    storedRule({ id: 6, type: 2, vehicleIds: [1], expiresAt: at(T0 + 2 * HOUR) }),
    storedRule({ id: 7, type: 2, vehicleIds: [1], settings: { limit: 'fast' } }),
  ];
  const index = compileRuleIndex(rules, [squareZone(12, 100)]);

  it('returns the effective rules of a vehicle in id order, settings parsed', () => {
    const found = index.rulesFor(1, T0);
    expect(found.map((r) => r.rule.id)).toEqual([1, 3, 6]);
    expect(found[1]!.settings).toMatchObject({ limit: 80 });
    expect(index.rulesFor(2, T0).map((r) => r.rule.id)).toEqual([3]);
    expect(index.rulesFor(99, T0)).toEqual([]);
  });

  it('follows activation and expiry as time passes, and back', () => {
    expect(index.rulesFor(1, T0 + HOUR).map((r) => r.rule.id)).toEqual([1, 3, 5, 6]);
    expect(index.rulesFor(1, T0 + 2 * HOUR).map((r) => r.rule.id)).toEqual([1, 3, 5]);
    expect(index.rulesFor(1, T0).map((r) => r.rule.id)).toEqual([1, 3, 6]);
  });

  it('agrees with isEffective at every boundary', () => {
    for (const now of [T0 - 1, T0, T0 + HOUR - 1, T0 + HOUR, T0 + 2 * HOUR - 1, T0 + 2 * HOUR, T0 + 100 * 24 * HOUR]) {
      const expected = rules.filter((r) => r.id !== 7 && r.vehicleIds.includes(1) && isEffective(r, now)).map((r) => r.id).sort((a, b) => a - b);
      expect(index.rulesFor(1, now).map((r) => r.rule.id)).toEqual(expected);
    }
  });

  it('skips rules whose settings do not parse, with the reason', () => {
    expect(index.invalidRules).toEqual([{ ruleId: 7, reason: expect.stringContaining('limit') }]);
    expect(index.size).toBe(5);
  });

  it('lists rules by type regardless of effectiveness', () => {
    expect(index.rulesOfType(2).map((r) => r.rule.id)).toEqual([1, 3, 4, 5, 6]);
    expect(index.rulesOfType(7)).toEqual([]);
  });

  it('gives the evaluator of a compiled rule and the zone lookup', () => {
    const [first] = index.rulesFor(1, T0);
    expect(index.evaluatorOf(first!).type).toBe(2);
    expect(index.zones.zonesContaining(CENTER.lat, CENTER.lon)).toEqual([12]);
  });

  it('rejects geozone rules none of whose zones exist', () => {
    const zoneIndex = compileRuleIndex([storedRule({ id: 9, type: 0, geoids: [404] }), storedRule({ id: 10, type: 0, geoids: [12, 404] })], [squareZone(12, 100)]);
    expect(zoneIndex.invalidRules).toEqual([{ ruleId: 9, reason: expect.stringContaining('geozone') }]);
    expect(zoneIndex.rulesFor(1, T0).map((r) => r.rule.id)).toEqual([10]);
  });
});
