import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { measureBatchCost, type BatchCost } from './batch-cost-scenario';

describe('DynamoDB cost of a batch of 1,000 messages over 1,000 vehicles', () => {
  let emulators: Emulators;
  let costs: BatchCost[];
  beforeAll(async () => {
    emulators = await startTestEmulators('pipeline-cost');
    costs = await measureBatchCost();
  }, 180_000);
  afterAll(async () => emulators.stop());

  it('loads the rules once, on the cold start', () => {
    const [warmUp] = costs;
    expect(warmUp!.failures).toBe(0);
    // one scan of the rules table and one of the geozones table
    expect(warmUp!.ruleTableScans).toBe(2);
    // 10 BatchGetItem of 100 keys, 10 transactions of 100 new states
    expect(warmUp!.byCommand.BatchGetItem).toBe(10);
    expect(warmUp!.byCommand.TransactWriteItems).toBe(10);
  });

  it('costs at most 25 requests and no rule read once warm', () => {
    const [, steady] = costs;
    expect(steady!.failures).toBe(0);
    expect(steady!.alertsRaised).toBe(100);
    expect(steady!.total).toBeLessThanOrEqual(25);
    expect(steady!.ruleReads).toEqual({});
  });

  it('stays within 25 requests when every state is written, re-checking only the rules version', () => {
    const [, , worst] = costs;
    expect(worst!.failures).toBe(0);
    expect(worst!.alertsRaised).toBe(100);
    expect(worst!.byCommand.TransactWriteItems, JSON.stringify(worst!.failedAttempts)).toBe(11);
    expect(worst!.total).toBeLessThanOrEqual(25);
    expect(worst!.ruleTableScans).toBe(0);
    expect(Object.values(worst!.ruleReads).reduce((sum, count) => sum + count, 0)).toBeLessThanOrEqual(1);
  });
});
