/**
 * The DynamoDB tables, described once. The CDK stack and the local/test table creation both read this,
 * so keys and indexes cannot drift between AWS and the emulators.
 */
export type AttributeType = 'S' | 'N';

export interface KeyAttribute {
  name: string;
  type: AttributeType;
}

export type Projection = 'ALL' | 'KEYS_ONLY' | { include: readonly string[] };

export interface IndexDefinition {
  indexName: string;
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
  /**
   * Attributes copied into the index; ALL unless told. An index is written only when a write changes its keys or
   * an attribute it holds, so KEYS_ONLY, or `include` (the keys and the attributes named), keeps other writes off it.
   */
  projection?: Projection;
  /**
   * The projection an installation from before this version built, when it differs: DynamoDB cannot change it in
   * place, so an upgrade keeps it, then leaves the index out, then creates it anew (docs/deploy.md). The names of
   * the indexes that declare it are unique across the tables: the upgrade's CDK context keys name them alone.
   */
  before?: Projection;
}

/**
 * What the history reads filter on in the index, before they fetch the page's alerts by key (history-store):
 * never changed by a delivery, so the many rewrites of an alert while it is delivered leave the history indexes
 * alone; `state` moves only when a person or the lifecycle acts on the alert.
 */
export const HISTORY_FILTER_ATTRIBUTES = ['stored', 'ruleId', 'state'] as const;
/** What the outbox pass reads of a pending alert besides its keys (alerts-store `pendingAlertsOlderThan`). */
export const OUTBOX_ATTRIBUTES = ['outboxEnqueuedAt', 'outboxAttempts'] as const;

export interface TableDefinition {
  /** Environment variable that carries the deployed table's name. */
  envName: 'RULES_TABLE' | 'VEHICLE_STATE_TABLE' | 'ALERTS_TABLE' | 'DIRECTORY_TABLE' | 'GEOZONES_TABLE' | 'VISITS_TABLE';
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
  indexes: IndexDefinition[];
  /** Item changes published on a DynamoDB stream (old and new images), for the projector. */
  stream?: 'NEW_AND_OLD_IMAGES';
  /** Attribute holding an epoch-seconds expiry, when items expire. */
  timeToLiveAttribute?: string;
}

export const TABLES = {
  /**
   * Notification rules (key `id`); item id 0 holds the id counter. Active rules carry `expiryShard`, which puts
   * them in the sparse `byExpiry` index the sweep queries for rules due to expire.
   */
  rules: {
    envName: 'RULES_TABLE',
    partitionKey: { name: 'id', type: 'N' },
    indexes: [
      { indexName: 'byParent', partitionKey: { name: 'parentId', type: 'S' }, sortKey: { name: 'id', type: 'N' } },
      { indexName: 'byExpiry', partitionKey: { name: 'expiryShard', type: 'S' }, sortKey: { name: 'expiresAt', type: 'S' } },
    ],
    stream: 'NEW_AND_OLD_IMAGES',
  },
  /**
   * One item per vehicle: per-rule state and clock (packed in `state`), owners, rule and zone refs, version. A
   * vehicle waiting for a silence carries `silenceShard` / `silentAt`, which puts it in the sparse `bySilence`
   * index, with its `owner` (the sweep tells one client's mass silence by it). `byOwner` (keys only, `owner` = the
   * owning client) finds a client's vehicles when its geozones change.
   */
  vehicleState: {
    envName: 'VEHICLE_STATE_TABLE',
    partitionKey: { name: 'vehicleId', type: 'N' },
    indexes: [
      {
        indexName: 'bySilence',
        partitionKey: { name: 'silenceShard', type: 'S' },
        sortKey: { name: 'silentAt', type: 'N' },
        projection: { include: ['owner'] },
        before: 'KEYS_ONLY',
      },
      { indexName: 'byOwner', partitionKey: { name: 'owner', type: 'S' }, sortKey: { name: 'vehicleId', type: 'N' }, projection: 'KEYS_ONLY' },
    ],
  },
  /**
   * Alerts; `outbox` (`pending#0..15`) is set only while an alert is pending, which keeps that index sparse.
   * `dueShard` (`due#0..15`) / `dueAt` are set only while something is due at a time (auto-close), which puts the
   * alert in the sparse, keys-only `byDue` index the sweep reads; writes that leave those two alone skip it.
   * No index holds the whole alert: each holds what its reader filters or reads on, so the deliver function's
   * rewrites of an alert (lease, each target's outcome) write the table alone until the alert leaves the outbox.
   */
  alerts: {
    envName: 'ALERTS_TABLE',
    partitionKey: { name: 'alertId', type: 'S' },
    indexes: [
      {
        indexName: 'byParentTime',
        partitionKey: { name: 'parentId', type: 'S' },
        sortKey: { name: 'timeKey', type: 'S' },
        projection: { include: HISTORY_FILTER_ATTRIBUTES },
        before: 'ALL',
      },
      {
        indexName: 'byVehicleTime',
        partitionKey: { name: 'vehicleId', type: 'N' },
        sortKey: { name: 'timeKey', type: 'S' },
        // a vehicle's partition may hold alerts of clients the caller does not see
        projection: { include: [...HISTORY_FILTER_ATTRIBUTES, 'parentId'] },
        before: 'ALL',
      },
      {
        indexName: 'outbox',
        partitionKey: { name: 'outbox', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: { include: OUTBOX_ATTRIBUTES },
        before: 'ALL',
      },
      { indexName: 'byDue', partitionKey: { name: 'dueShard', type: 'S' }, sortKey: { name: 'dueAt', type: 'S' }, projection: 'KEYS_ONLY' },
    ],
    timeToLiveAttribute: 'expiresAt',
  },
  /** Clients, users, sessions, Telegram link codes, rate-limit counters: single-table design on pk/sk. */
  directory: {
    envName: 'DIRECTORY_TABLE',
    partitionKey: { name: 'pk', type: 'S' },
    sortKey: { name: 'sk', type: 'S' },
    indexes: [{ indexName: 'gsi1', partitionKey: { name: 'gsi1pk', type: 'S' }, sortKey: { name: 'gsi1sk', type: 'S' } }],
    timeToLiveAttribute: 'ttl',
  },
  /** Geozones (key `id`); item id 0 holds the id counter. */
  geozones: {
    envName: 'GEOZONES_TABLE',
    partitionKey: { name: 'id', type: 'N' },
    indexes: [{ indexName: 'byParent', partitionKey: { name: 'parentId', type: 'S' }, sortKey: { name: 'id', type: 'N' } }],
    stream: 'NEW_AND_OLD_IMAGES',
  },
  /**
   * Geozone visits: one item per vehicle × zone × entry (`visitKey` = `<startDate ISO UTC>#<zoneId>`), put open at
   * the entry and complete at the exit; `byZone` (`zoneVisitKey` = `<startDate>#<vehicleId>`) reads a zone's visits.
   */
  visits: {
    envName: 'VISITS_TABLE',
    partitionKey: { name: 'vehicleId', type: 'N' },
    sortKey: { name: 'visitKey', type: 'S' },
    indexes: [{ indexName: 'byZone', partitionKey: { name: 'zoneId', type: 'N' }, sortKey: { name: 'zoneVisitKey', type: 'S' } }],
    timeToLiveAttribute: 'expiresAt',
  },
} as const satisfies Record<string, TableDefinition>;

export type TableKey = keyof typeof TABLES;
