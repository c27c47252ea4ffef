import { resourcesConfig } from '../config';
import { batchGetItems } from './batch-get';
import { geozoneItemsOfClient } from './geozones-store';
import { silenceItemsOfClient } from './silences-store';

/**
 * Where the rule cache (shared/pipeline/rule-cache.ts) reads the records it lacks, as stored items (the cache
 * parses and compiles them). The deployed
 * functions read DynamoDB (`dynamoRuleRecords`); the benchmarks and the evaluator tests hand the same cache records
 * held in memory, so they resolve rules exactly as the functions do.
 */
export interface RuleRecords {
  /** Rules by id, read consistently; an id with no item is simply absent from the answer. */
  rulesById(ids: readonly number[]): Promise<Record<string, unknown>[]>;
  /** Geozones by id, read consistently; an id with no item is simply absent from the answer. */
  zonesById(ids: readonly number[]): Promise<Record<string, unknown>[]>;
  /** Every geozone of one client (the geozones' `byParent` index). */
  zonesOfClient(clientId: string): Promise<Record<string, unknown>[]>;
  /** The live maintenance silences of one client (silences-store.ts); absent: no client has any. */
  silencesOfClient?(clientId: string, now: number): Promise<Record<string, unknown>[]>;
}

export const dynamoRuleRecords: RuleRecords = {
  rulesById: (ids) =>
    batchGetItems(
      resourcesConfig().RULES_TABLE,
      ids.map((id) => ({ id })),
      { consistentRead: true },
    ),
  zonesById: (ids) =>
    batchGetItems(
      resourcesConfig().GEOZONES_TABLE,
      ids.map((id) => ({ id })),
      { consistentRead: true },
    ),
  zonesOfClient: (clientId) => geozoneItemsOfClient(clientId),
  silencesOfClient: (clientId, now) => silenceItemsOfClient(clientId, now),
};
