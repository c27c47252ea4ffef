import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { measureHeldAlertCost, type HeldAlertCost } from './held-alert-cost-scenario';

/** What an alert costs while it waits for a long retry: a write when scheduled, a read when due, never a poll. */
describe('the cost of an alert waiting for a long retry', () => {
  let emulators: Emulators;
  let cost: HeldAlertCost;
  beforeAll(async () => {
    emulators = await startTestEmulators('pipeline-held-alert-cost');
    cost = await measureHeldAlertCost({ alerts: 16 });
  }, 180_000);
  afterAll(async () => emulators.stop());

  it('measures every wait the queue cannot hold, for every alert', () => {
    expect(cost.alerts).toBe(16);
    expect(cost.waits.map((wait) => wait.seconds)).toEqual([1_800, 7_200, 18_000, 36_000, 36_000]);
  });

  it('costs at most one unit per alert-hour of waiting, whatever the length of the wait', () => {
    expect(cost.unitsPerHour).toBeLessThanOrEqual(1);
    // each wait costs the same few units: its scheduling write and its due pass, none per minute waited
    for (const wait of cost.waits) {
      expect(wait.scheduleUnits).toBeGreaterThanOrEqual(2);
      expect(wait.scheduleUnits + wait.duePassUnits).toBeLessThanOrEqual(6);
    }
  });
});
