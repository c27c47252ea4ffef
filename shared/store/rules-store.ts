import { GetCommand, UpdateCommand, paginateScan, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { storedRuleSchema, type NotificationBody, type StoredRule } from '../schemas/notification';
import { initialValidity } from '../rules/lifecycle';
import { parseRecord } from './record-schema';
import { conditionZoneIds } from '../rules/rule-validation';
import { createCounted, transactCounted, type CountChange, type TransactItem } from './client-counts';
import { cancellation, conditionFailed } from './dynamo';

/**
 * Notification rules in the rules table. Item `id = 0` is the meta item `{ lastRuleId }`, the global id sequence
 * that clients' counters draw blocks of ids from (shared/store/client-counts.ts). Writes are
 * optimistic on the rule's `version`: a stale expected version cancels the whole transaction. Evaluators
 * learn of a change through the table's stream: the projector names the rule's new version on the items of
 * the vehicles it lists (shared/pipeline/projection.ts). There is no global version.
 * An active rule carries `expiryShard`, which puts it in the sparse `byExpiry` index the sweep reads.
 */
export const RULES_META_ID = 0;
export const EXPIRY_INDEX = 'byExpiry';
export const EXPIRY_SHARDS = 4;

/** The item stored for a rule: the record, plus its place in the expiry index while it is active. */
export function ruleItem(rule: StoredRule): Record<string, unknown> {
  return rule.active ? { ...rule, expiryShard: `expiry#${rule.id % EXPIRY_SHARDS}` } : { ...rule };
}

/** Active rules whose expiry is at or before `now`, from every shard of the expiry index. */
export async function rulesDueForExpiry(now: number): Promise<StoredRule[]> {
  const rules: StoredRule[] = [];
  for (let shard = 0; shard < EXPIRY_SHARDS; shard++) {
    for await (const page of paginateQuery(
      { client: documentClient() },
      {
        TableName: table(),
        IndexName: EXPIRY_INDEX,
        KeyConditionExpression: 'expiryShard = :shard AND expiresAt <= :now',
        ExpressionAttributeValues: { ':shard': `expiry#${shard}`, ':now': new Date(now).toISOString() },
      },
    )) {
      rules.push(...parseRules(page.Items));
    }
  }
  return rules;
}

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

/**
 * Runs the rule writes (one per id in `ruleIds`, in that order), then `checks`, then the changes of the
 * owners' rule counts: one request, or a transaction when there is more than one item. A failed rule
 * condition is a StaleRuleError, a failed check a RuleReferenceGoneError, a count at its limit a
 * ClientLimitError.
 */
async function transact(writes: TransactItem[], ruleIds: number[], checks: TransactItem[] = [], counts: CountChange[] = []): Promise<void> {
  const items = [...writes, ...checks];
  try {
    await transactCounted(items, counts);
  } catch (error) {
    if (conditionFailed(error)) throw new StaleRuleError(ruleIds[0] ?? 0);
    const cancelled = cancellation(error);
    if (cancelled) {
      if (cancelled.failedIndex >= writes.length) throw new RuleReferenceGoneError();
      throw new StaleRuleError(ruleIds[cancelled.failedIndex] ?? ruleIds[0] ?? 0);
    }
    throw error;
  }
}

/** The input each computed field of a rule comes from, to name it when the stored record is refused. */
const RULE_SOURCES = { validFrom: 'activationTime', expiresAt: 'activationTime' };

/**
 * Stores a new rule under a fresh id from its owner's rule counter, counting it in the owner's rules (at most
 * `limit` of them, when given). `extraChecks` join the transaction (e.g. geozones exist).
 */
export async function createRule(rule: Omit<StoredRule, 'id'>, extraChecks: TransactItem[] = [], limit?: number): Promise<StoredRule> {
  // checked before an id is taken, so a refused rule uses none
  const record = parseRecord(storedRuleSchema.omit({ id: true }), rule, 'rule', RULE_SOURCES);
  let id = 0;
  const items = (taken: number): TransactItem[] => {
    id = taken;
    return [{ Put: { TableName: table(), Item: ruleItem({ ...record, id }), ConditionExpression: 'attribute_not_exists(id)' } }, ...extraChecks];
  };
  try {
    id = await createCounted('rules', record.parentId, limit, items);
  } catch (error) {
    const cancelled = cancellation(error);
    if (cancelled) {
      if (cancelled.failedIndex >= 1) throw new RuleReferenceGoneError();
      throw new StaleRuleError(id);
    }
    throw error;
  }
  return { ...record, id };
}

export async function getRule(id: number): Promise<StoredRule | null> {
  if (id === RULES_META_ID) return null;
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: { id }, ConsistentRead: true }));
  if (!Item) return null;
  const parsed = storedRuleSchema.safeParse(Item);
  return parsed.success ? parsed.data : null;
}

/**
 * Replaces a rule whose stored version is `expectedVersion`; the new record must carry version + 1. A rule
 * that moves to another client (`previousParentId` differs) moves from one count to the other, within `limit`.
 */
export async function replaceRule(
  rule: StoredRule,
  expectedVersion: number,
  extraChecks: TransactItem[] = [],
  move: { previousParentId: string; limit?: number } = { previousParentId: rule.parentId },
): Promise<StoredRule> {
  const stored = parseRecord(storedRuleSchema, rule, 'rule', RULE_SOURCES);
  await transact(
    [
      {
        Put: {
          TableName: table(),
          Item: ruleItem(stored),
          ConditionExpression: 'version = :expected',
          ExpressionAttributeValues: { ':expected': expectedVersion },
        },
      },
    ],
    [stored.id],
    extraChecks,
    move.previousParentId === stored.parentId
      ? []
      : [
          { kind: 'rules', clientId: move.previousParentId, delta: -1 },
          { kind: 'rules', clientId: stored.parentId, delta: 1, limit: move.limit },
        ],
  );
  return stored;
}

/** Deletes the rule stored at `expectedVersion` (so still owned by `parentId`), and counts it out of its owner's rules. */
export async function deleteRule(id: number, expectedVersion: number, parentId: string): Promise<void> {
  await transact(
    [
      {
        Delete: {
          TableName: table(),
          Key: { id },
          ConditionExpression: 'version = :expected',
          ExpressionAttributeValues: { ':expected': expectedVersion },
        },
      },
    ],
    [id],
    [],
    [{ kind: 'rules', clientId: parentId, delta: -1 }],
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
  const writes = changes.map((change): TransactItem => ({
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
  }));
  await transact(
    writes,
    changes.map((change) => change.id),
  );
}

function parseRules(items: Record<string, unknown>[] | undefined): StoredRule[] {
  return (items ?? []).flatMap((item) => {
    const parsed = storedRuleSchema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}

export async function listRulesOfClient(parentId: string): Promise<StoredRule[]> {
  const rules: StoredRule[] = [];
  for await (const page of paginateQuery(
    { client: documentClient() },
    {
      TableName: table(),
      IndexName: 'byParent',
      KeyConditionExpression: 'parentId = :parent',
      ExpressionAttributeValues: { ':parent': parentId },
    },
  )) {
    rules.push(...parseRules(page.Items));
  }
  return rules;
}

/**
 * Rules whose `geoids` or zone condition (`settings.zones`) name the geozone. A scan: geozone deletions are rare
 * and rule counts small.
 */
export async function rulesReferencingGeozone(geozoneId: number): Promise<StoredRule[]> {
  const rules: StoredRule[] = [];
  for await (const page of paginateScan(
    { client: documentClient() },
    {
      TableName: table(),
      FilterExpression: 'contains(geoids, :zone) OR attribute_exists(settings.#zones)',
      ExpressionAttributeNames: { '#zones': 'zones' },
      ExpressionAttributeValues: { ':zone': geozoneId },
      ConsistentRead: true,
    },
  )) {
    rules.push(...parseRules(page.Items).filter((rule) => rule.geoids.includes(geozoneId) || conditionZoneIds(rule.settings).includes(geozoneId)));
  }
  return rules;
}

/** Writes the sweep's deactivation or prolongation of `rule` as `next`, on condition that its version did not move: false when it did. */
export async function writeSweptRule(rule: StoredRule, next: StoredRule): Promise<boolean> {
  const { updatedAt } = next;
  const shard = ruleItem(next).expiryShard;
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: resourcesConfig().RULES_TABLE,
        Key: { id: rule.id },
        UpdateExpression:
          'SET active = :active, expiresAt = :expiresAt, validFrom = :validFrom, version = :next, updatedAt = :updatedAt' +
          (shard === undefined ? ' REMOVE expiryShard' : ', expiryShard = :shard'),
        ConditionExpression: 'version = :expected',
        ExpressionAttributeValues: {
          ':active': next.active,
          ':expiresAt': next.expiresAt,
          ':validFrom': next.validFrom,
          ':next': next.version,
          ':updatedAt': updatedAt,
          ':expected': rule.version,
          ...(shard === undefined ? {} : { ':shard': shard }),
        },
      }),
    );
    return true;
  } catch (error) {
    if (!conditionFailed(error)) throw error;
    return false;
  }
}
