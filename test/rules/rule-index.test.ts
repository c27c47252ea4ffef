import { afterEach, describe, expect, it, vi } from 'vitest';
import { isEffective } from '../../shared/rules/lifecycle';
import { logger } from '../../shared/observability/logger';
import { ruleResolver } from '../support/resolve-rules';
import { CENTER, T0, squareZone, storedRule } from './fixtures';

const at = (ms: number) => new Date(ms).toISOString();
const HOUR = 3_600_000;
const LEFT_OUT = 'rule left out of evaluation: it cannot work';

/** Rules compiled (compileRule) and resolved for a vehicle as evaluate does it: through RuleCache. */
describe('resolving compiled rules', () => {
  afterEach(() => vi.restoreAllMocks());

  const rules = [
    storedRule({ id: 3, type: 2, vehicleIds: [1, 2], settings: { limit: '80' } }),
    storedRule({ id: 1, type: 2, vehicleIds: [1], settings: {} }),
    storedRule({ id: 4, type: 2, vehicleIds: [1], active: false }),
    storedRule({ id: 5, type: 2, vehicleIds: [1], activationMode: 1, activationTime: at(T0 + HOUR) }),
    storedRule({ id: 6, type: 2, vehicleIds: [1], expiresAt: at(T0 + 2 * HOUR) }),
    storedRule({ id: 7, type: 2, vehicleIds: [1], settings: { limit: 'fast' } }),
  ];
  const resolver = ruleResolver(rules, [squareZone(12, 100)]);
  const idsFor = async (vehicleId: number, now: number) => (await resolver.forVehicle(vehicleId, now)).rules.map((r) => r.rule.id);

  it('returns the effective rules of a vehicle in id order, settings parsed', async () => {
    const found = (await resolver.forVehicle(1, T0)).rules;
    expect(found.map((r) => r.rule.id)).toEqual([1, 3, 6]);
    expect(found[1]!.settings).toMatchObject({ limit: 80 });
    expect(await idsFor(2, T0)).toEqual([3]);
    expect(await idsFor(99, T0)).toEqual([]);
  });

  it('follows activation and expiry as time passes, and back', async () => {
    expect(await idsFor(1, T0 + HOUR)).toEqual([1, 3, 5, 6]);
    expect(await idsFor(1, T0 + 2 * HOUR)).toEqual([1, 3, 5]);
    expect(await idsFor(1, T0)).toEqual([1, 3, 6]);
  });

  it('agrees with isEffective at every boundary', async () => {
    for (const now of [T0 - 1, T0, T0 + HOUR - 1, T0 + HOUR, T0 + 2 * HOUR - 1, T0 + 2 * HOUR, T0 + 100 * 24 * HOUR]) {
      const expected = rules
        .filter((r) => r.id !== 7 && r.vehicleIds.includes(1) && isEffective(r, now))
        .map((r) => r.id)
        .sort((a, b) => a - b);
      expect(await idsFor(1, now)).toEqual(expected);
    }
  });

  it('skips rules whose settings do not parse, with the reason, once', async () => {
    const warn = vi.spyOn(logger, 'warn');
    const fresh = ruleResolver(rules);
    await fresh.forVehicle(1, T0);
    await fresh.forVehicle(1, T0 + HOUR);
    expect(warn.mock.calls).toEqual([[LEFT_OUT, { ruleId: 7, reason: expect.stringContaining('limit') }]]);
    // every rule was read once, the unusable one remembered as such
    expect(fresh.cache.stats().rules).toBe(6);
  });

  it("gives the zones the vehicle's rules use", async () => {
    const limited = ruleResolver(
      [storedRule({ id: 8, type: 2, vehicleIds: [1], settings: { limit: '90', zoneLimits: '12:40' } })],
      [squareZone(12, 100), squareZone(13, 100)],
    );
    const { zones } = await limited.forVehicle(1, T0);
    expect(zones.zonesContaining(CENTER.lat, CENTER.lon)).toEqual([12]);
    expect((await resolver.forVehicle(1, T0)).zones.zonesContaining(CENTER.lat, CENTER.lon)).toEqual([]);
  });

  it('rejects geozone rules none of whose zones exist', async () => {
    const warn = vi.spyOn(logger, 'warn');
    const zoned = ruleResolver(
      [storedRule({ id: 9, type: 0, geoids: [404] }), storedRule({ id: 10, type: 0, geoids: [12, 404] })],
      [squareZone(12, 100)],
    );
    expect((await zoned.forVehicle(1, T0)).rules.map((r) => r.rule.id)).toEqual([10]);
    expect(warn.mock.calls).toEqual([[LEFT_OUT, { ruleId: 9, reason: expect.stringContaining('geozone') }]]);
  });
});
