import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, UpdateCommand, paginateScan, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { storedRuleSchema, type NotificationBody, type StoredRule } from '../schemas/notification';
import { initialValidity } from '../rules/lifecycle';

/**
 * Notification rules in the rules table. Item `id = 0` is the meta item `{ lastRuleId, rulesVersion }`:
 * every write here bumps `rulesVersion` in the same transaction as the change, so evaluators reload.
 * Writes are optimistic on the rule's `version`: a stale expected version cancels the whole transaction.
 */
export const RULES_META_ID = 0;

type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

const table = () => resourcesConfig().RULES_TABLE;

/** The rule changed (or vanished) since it was read. */
export class StaleRuleError extends Error {
  constructor(readonly ruleId: number) {
    super(`notification ${ruleId} was changed by someone else; read it again`);
  }
}

/** A record it refers to (a geozone) vanished between the caller's check and the write. */
export class RuleReferenceGoneError extends Error {
  constructor() {
    super('a geozone the rule refers to was deleted meanwhile; check geoids and try again');
  }
}

/** The stored form of a new rule, before it has an id: version 1, validity started by the lifecycle rules. */
export function newRuleRecord(body: NotificationBody, parentName: string, now: number): Omit<StoredRule, 'id'> {
  const at = new Date(now).toISOString();
  return { ...body, parentName, version: 1, createdAt: at, updatedAt: at, ...initialValidity(body, now) };
}

/** Transaction item bumping the rules version, optionally only if it still is `expected`. */
export function rulesVersionBump(expected?: number): TransactItem {
  return {
    Update: {
      TableName: table(),
      Key: { id: RULES_META_ID },
      UpdateExpression: 'ADD rulesVersion :one',
      ExpressionAttributeValues: { ':one': 1, ...(expected === undefined ? {} : { ':expected': expected }) },
      ...(expected === undefined
        ? {}
        : { ConditionExpression: expected === 0 ? 'attribute_not_exists(rulesVersion) OR rulesVersion = :expected' : 'rulesVersion = :expected' }),
    },
  };
}

export async function currentRulesVersion(): Promise<number> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: { id: RULES_META_ID }, ConsistentRead: true }));
  return Number(Item?.rulesVersion ?? 0);
}

async function nextRuleId(): Promise<number> {
  const { Attributes } = await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: { id: RULES_META_ID },
      UpdateExpression: 'ADD lastRuleId :one',
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(Attributes?.lastRuleId);
}

/**
 * Runs the rule writes (one per id in `ruleIds`, in that order), the rules version bump, then `checks`.
 * A failed rule condition is a StaleRuleError, a failed check a RuleReferenceGoneError.
 */
async function transact(writes: TransactItem[], ruleIds: number[], checks: TransactItem[] = []): Promise<void> {
  try {
    await documentClient().send(new TransactWriteCommand({ TransactItems: [...writes, rulesVersionBump(), ...checks] }));
  } catch (error) {
    if (error instanceof TransactionCanceledException) {
      const index = (error.CancellationReasons ?? []).findIndex((reason) => reason.Code === 'ConditionalCheckFailed');
      if (index > writes.length) throw new RuleReferenceGoneError();
      throw new StaleRuleError(ruleIds[index] ?? ruleIds[0] ?? 0);
    }
    throw error;
  }
}

/** Stores a new rule under a fresh id from the meta counter. `extraChecks` join the transaction (e.g. geozones exist). */
export async function createRule(rule: Omit<StoredRule, 'id'>, extraChecks: TransactItem[] = []): Promise<StoredRule> {
  const stored = storedRuleSchema.parse({ ...rule, id: await nextRuleId() });
  await transact([{ Put: { TableName: table(), Item: stored, ConditionExpression: 'attribute_not_exists(id)' } }], [stored.id], extraChecks);
  return stored;
}

export async function getRule(id: number): Promise<StoredRule | null> {
  if (id === RULES_META_ID) return null;
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: { id }, ConsistentRead: true }));
  if (!Item) return null;
  const parsed = storedRuleSchema.safeParse(Item);
  return parsed.success ? parsed.data : null;
}

/** Replaces a rule whose stored version is `expectedVersion`; the new record must carry version + 1. */
export async function replaceRule(rule: StoredRule, expectedVersion: number, extraChecks: TransactItem[] = []): Promise<StoredRule> {
  const stored = storedRuleSchema.parse(rule);
  await transact(
    [{ Put: { TableName: table(), Item: stored, ConditionExpression: 'version = :expected', ExpressionAttributeValues: { ':expected': expectedVersion } } }],
    [stored.id],
    extraChecks,
  );
  return stored;
}

export async function deleteRule(id: number, expectedVersion: number): Promise<void> {
  await transact(
    [{ Delete: { TableName: table(), Key: { id }, ConditionExpression: 'version = :expected', ExpressionAttributeValues: { ':expected': expectedVersion } } }],
    [id],
  );
}

export interface ExpiryChange {
  id: number;
  expectedVersion: number;
  expiresAt: string;
  updatedAt: string;
}

/** Sets new expiry times on several rules at once (all or none), at most 99 per call. */
export async function setRuleExpiries(changes: readonly ExpiryChange[]): Promise<void> {
  if (changes.length === 0) return;
  if (changes.length > 99) throw new RangeError('at most 99 rules per expiry change');
  const writes = changes.map(
    (change): TransactItem => ({
      Update: {
        TableName: table(),
        Key: { id: change.id },
        UpdateExpression: 'SET expiresAt = :expiresAt, updatedAt = :updatedAt, version = :next',
        ConditionExpression: 'version = :expected',
        ExpressionAttributeValues: {
          ':expiresAt': change.expiresAt,
          ':updatedAt': change.updatedAt,
          ':expected': change.expectedVersion,
          ':next': change.expectedVersion + 1,
        },
      },
    }),
  );
  await transact(writes, changes.map((change) => change.id));
}

function parseRules(items: Record<string, unknown>[] | undefined): StoredRule[] {
  return (items ?? []).flatMap((item) => {
    const parsed = storedRuleSchema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}

export async function listRulesOfClient(parentId: string): Promise<StoredRule[]> {
  const rules: StoredRule[] = [];
  for await (const page of paginateQuery({ client: documentClient() }, {
    TableName: table(),
    IndexName: 'byParent',
    KeyConditionExpression: 'parentId = :parent',
    ExpressionAttributeValues: { ':parent': parentId },
  })) {
    rules.push(...parseRules(page.Items));
  }
  return rules;
}

/** Rules whose `geoids` name the geozone. A scan: geozone deletions are rare and rule counts small. */
export async function rulesReferencingGeozone(geozoneId: number): Promise<StoredRule[]> {
  const rules: StoredRule[] = [];
  for await (const page of paginateScan({ client: documentClient() }, {
    TableName: table(),
    FilterExpression: 'contains(geoids, :zone)',
    ExpressionAttributeValues: { ':zone': geozoneId },
    ConsistentRead: true,
  })) {
    rules.push(...parseRules(page.Items));
  }
  return rules;
}
