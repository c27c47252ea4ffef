import { GetCommand, paginateScan } from '@aws-sdk/lib-dynamodb';
import type { z } from 'zod';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { geozoneSchema, type Geozone } from '../schemas/geozone';
import { storedRuleSchema, type StoredRule } from '../schemas/notification';
import { logger } from '../observability/logger';

/**
 * Read side of rules and geozones for the evaluator. Rules change rarely and messages stream constantly, so
 * the evaluator keeps a compiled index in memory and reloads it only when the rules table's meta item
 * (id 0) shows a new `rulesVersion`; even that one GetItem is made at most once per check interval.
 */
export const META_ITEM_ID = 0;
export const DEFAULT_VERSION_CHECK_INTERVAL_MS = 5_000;

export interface RuleSnapshot {
  rulesVersion: number;
  rules: StoredRule[];
  geozones: Geozone[];
}

export async function readRulesVersion(): Promise<number> {
  const { Item } = await documentClient().send(
    new GetCommand({
      TableName: resourcesConfig().RULES_TABLE,
      Key: { id: META_ITEM_ID },
      ProjectionExpression: 'rulesVersion',
      ConsistentRead: true,
    }),
  );
  return typeof Item?.rulesVersion === 'number' ? Item.rulesVersion : 0;
}

async function scanAll<T>(tableName: string, schema: z.ZodType<T>, what: string): Promise<T[]> {
  const items: T[] = [];
  for await (const output of paginateScan({ client: documentClient() }, { TableName: tableName, ConsistentRead: true })) {
    for (const raw of output.Items ?? []) {
      if (raw.id === META_ITEM_ID) continue;
      const parsed = schema.safeParse(raw);
      if (parsed.success) items.push(parsed.data);
      else logger.error(`unreadable ${what} skipped`, { id: raw.id, issues: parsed.error.issues.slice(0, 5) });
    }
  }
  return items;
}

export async function loadRules(): Promise<StoredRule[]> {
  return scanAll(resourcesConfig().RULES_TABLE, storedRuleSchema, 'rule');
}

/** Reads the version first, then the items: a change made during the scan bumps the version past it. */
export async function loadRuleSnapshot(): Promise<RuleSnapshot> {
  const rulesVersion = await readRulesVersion();
  const [rules, geozones] = await Promise.all([loadRules(), scanAll(resourcesConfig().GEOZONES_TABLE, geozoneSchema, 'geozone')]);
  return { rulesVersion, rules, geozones };
}

export function versionCheckIntervalMs(env: NodeJS.ProcessEnv = process.env): number {
  const configured = Number(env.RULES_VERSION_CHECK_INTERVAL_MS);
  return Number.isFinite(configured) && configured >= 0 && env.RULES_VERSION_CHECK_INTERVAL_MS !== ''
    ? configured
    : DEFAULT_VERSION_CHECK_INTERVAL_MS;
}

/** A compiled index of the current rules, kept across invocations of a warm function. */
export class RuleIndexCache<Index> {
  private index: Index | undefined;
  private rulesVersion = -1;
  private checkedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly compile: (rules: StoredRule[], geozones: Geozone[]) => Index,
    private readonly checkIntervalMs: number = versionCheckIntervalMs(),
  ) {}

  async get(now: number): Promise<Index> {
    if (this.index !== undefined && now - this.checkedAt < this.checkIntervalMs) return this.index;
    const current = this.index === undefined ? -1 : await readRulesVersion();
    this.checkedAt = now;
    if (this.index !== undefined && current === this.rulesVersion) return this.index;
    const snapshot = await loadRuleSnapshot();
    this.index = this.compile(snapshot.rules, snapshot.geozones);
    this.rulesVersion = snapshot.rulesVersion;
    logger.info('rule index loaded', { rulesVersion: snapshot.rulesVersion, rules: snapshot.rules.length, geozones: snapshot.geozones.length });
    return this.index;
  }

  /** Forgets the index, so that the next `get` loads it again. */
  clear(): void {
    this.index = undefined;
    this.rulesVersion = -1;
    this.checkedAt = Number.NEGATIVE_INFINITY;
  }
}
