import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { measureCreateCosts, type CreateCosts } from '../bench/create-cost';
import { countCapacity, type CapacityCounter } from '../support/count-capacity';
import { startTestEmulators } from '../support/emulators';

/**
 * The acceptance for holding each client's limit in the create's own transaction: a rule, a small geozone and a
 * webhook endpoint cost at most 2 write units more than they did before, as DynamoDB bills them (from
 * ReturnConsumedCapacity, see count-capacity), and a create adds at most one read unit (its counter).
 */
describe('write units of a create with its limit in the transaction', () => {
  let emulators: Emulators;
  let capacity: CapacityCounter;
  let costs: CreateCosts;

  beforeAll(async () => {
    emulators = await startTestEmulators('create-cost');
    capacity = countCapacity();
    costs = await measureCreateCosts(capacity);
  });
  afterAll(async () => {
    capacity.detach();
    await emulators.stop();
  });

  it.each(['rule', 'geozone', 'webhook'])('a %s costs at most 2 billed write units more than before', (kind) => {
    expect(costs[`${kind}CreateBilledWriteUnits`]).toBeGreaterThan(costs[`${kind}CreateBeforeBilledWriteUnits`]!);
    expect(costs[`${kind}CreateBilledWriteUnitsDelta`]).toBeLessThanOrEqual(2);
  });

  it('reads the counter once per rule or geozone, and draws ids for many creates at once', () => {
    expect(costs.ruleCreateReadUnits).toBeLessThanOrEqual(1);
    expect(costs.geozoneCreateReadUnits).toBeLessThanOrEqual(1);
    expect(costs.idBlockDrawWriteUnitsPerCreate).toBeLessThan(0.1);
  });
});
