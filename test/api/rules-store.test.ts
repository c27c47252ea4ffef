import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notificationBodySchema } from '../../shared/schemas/notification';
import { geozonesExist } from '../../shared/store/geozones-store';
import { paginateScan } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/dynamodb';
import { resourcesConfig } from '../../shared/config';
import { RuleReferenceGoneError, StaleRuleError, createRule, getRule, newRuleRecord, setRuleExpiries } from '../../shared/store/rules-store';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';

const parentId = '5d0c7f3e-1f0a-4c3b-9a43-2b1d1f8e9a10';
const now = Date.parse('2026-04-01T00:00:00.000Z');
const body = notificationBodySchema.parse({ type: 2, parentId, name: 'store rule' });

/** Every rule item, as stored (the meta item left out). */
async function storedRules(): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of paginateScan({ client: documentClient() }, { TableName: resourcesConfig().RULES_TABLE, ConsistentRead: true })) {
    items.push(...(page.Items ?? []).filter((item) => item.id !== 0));
  }
  return items;
}

describe('rules store', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startTestEmulators('api-rules-store');
  });
  afterAll(async () => emulators.stop());

  it('refuses to create a rule whose geozone vanished, and writes nothing', async () => {
    const before = await storedRules();
    await expect(createRule(newRuleRecord({ ...body, geoids: [77] }, 'Client', now), geozonesExist([77]))).rejects.toThrow(RuleReferenceGoneError);
    expect(await storedRules()).toEqual(before);
  });

  it('changes expiries all or none, against the versions read', async () => {
    const a = await createRule(newRuleRecord(body, 'Client', now));
    const b = await createRule(newRuleRecord(body, 'Client', now));
    const before = await storedRules();
    const attempt = setRuleExpiries([
      { id: a.id, expectedVersion: 1, expiresAt: '2026-06-01T00:00:00.000Z', updatedAt: '2026-04-01T00:00:00.000Z' },
      { id: b.id, expectedVersion: 5, expiresAt: '2026-06-01T00:00:00.000Z', updatedAt: '2026-04-01T00:00:00.000Z' },
    ]);
    await expect(attempt).rejects.toThrow(StaleRuleError);
    await expect(attempt).rejects.toMatchObject({ ruleId: b.id });
    expect((await getRule(a.id))?.expiresAt).toBe(a.expiresAt);
    expect(await storedRules()).toEqual(before);
  });

  it('puts active rules, and only those, in the expiry index the sweep reads', async () => {
    const active = await createRule(newRuleRecord({ ...body, active: true }, 'Client', now));
    const inactive = await createRule(newRuleRecord({ ...body, active: false }, 'Client', now));
    const items = await storedRules();
    expect(items.find((item) => item.id === active.id)?.expiryShard).toMatch(/^expiry#[0-3]$/);
    expect(items.find((item) => item.id === inactive.id)).not.toHaveProperty('expiryShard');
  });
});
