import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { alertSchema, type Alert, type AlertState } from '../schemas/alert';
import { batchGetItems } from './batch-get';

/**
 * Read side of the alerts table for the history endpoint: stored alerts, newest first, through the
 * `byParentTime` (one partition per client) or `byVehicleTime` index, sort key `timeKey = <event time>#<alertId>`.
 * Several partitions are merged by timeKey; the page cursor is the last timeKey returned (exclusive). A partition
 * read to its page budget first ends the page early: it may hold fewer than `limit` alerts, even none, with a cursor.
 * The indexes hold only the keys and what the filter needs (tables.ts), so that deliveries do not rewrite them; the
 * page's alerts are then read by key, in one BatchGetItem per 100.
 */
export type HistorySource = { kind: 'clients'; parentIds: readonly string[] } | { kind: 'vehicle'; vehicleId: number };

export interface HistoryQuery {
  source: HistorySource;
  /** ISO times, inclusive, compared with the event time. */
  from: string;
  to: string;
  limit: number;
  /** Only alerts with a smaller timeKey (the previous page's cursor). */
  before?: string;
  ruleId?: number;
  /** Only alerts in this state (one stored before states existed is open). */
  state?: AlertState;
  /** When given, alerts of other clients are left out (used with the vehicle index). */
  parentIds?: ReadonlySet<string>;
}

export interface HistoryPage {
  items: Alert[];
  /** Where the next page starts (exclusive) when more may follow: the last item's timeKey, or how far the reads got. */
  cursor: string | null;
}

/**
 * DynamoDB pages one request reads per partition. Limit counts the items read before the filter, so a partition
 * dense with alerts that do not match (unstored, another rule, another client's) would otherwise be read to its end.
 */
export const MAX_PAGES_PER_PARTITION = 4;

interface Found {
  timeKey: string;
  alertId: string;
}

interface PartitionRead {
  found: Found[];
  /** Set when the page budget ran out first: the last timeKey read; nothing below it was looked at. */
  stoppedAt?: string;
}

export async function queryHistory(query: HistoryQuery): Promise<HistoryPage> {
  const partitions =
    query.source.kind === 'vehicle'
      ? [{ index: 'byVehicleTime', name: 'vehicleId', value: query.source.vehicleId as string | number }]
      : query.source.parentIds.map((parentId) => ({ index: 'byParentTime', name: 'parentId', value: parentId as string | number }));
  const reads = await Promise.all(partitions.map((partition) => queryPartition(partition, query)));
  // every partition is known down to the highest point where one stopped early; only alerts above it are certain
  const horizon = reads.reduce<string | undefined>(
    (high, read) => (read.stoppedAt !== undefined && (high === undefined || read.stoppedAt > high) ? read.stoppedAt : high),
    undefined,
  );
  const found = reads.flatMap((read) => read.found).filter((entry) => horizon === undefined || entry.timeKey >= horizon);
  found.sort((a, b) => (a.timeKey < b.timeKey ? 1 : a.timeKey > b.timeKey ? -1 : 0));
  const page = found.slice(0, query.limit);
  const cursor = found.length > query.limit ? page.at(-1)!.timeKey : (horizon ?? null);
  return { items: await readAlerts(page.map((entry) => entry.alertId)), cursor };
}

/** The alerts themselves, in the order of their ids; one that expired since the index was read is left out. */
async function readAlerts(alertIds: readonly string[]): Promise<Alert[]> {
  const items = await batchGetItems(
    resourcesConfig().ALERTS_TABLE,
    alertIds.map((alertId) => ({ alertId })),
  );
  const byId = new Map(items.map((item) => [String(item.alertId), item]));
  return alertIds.flatMap((alertId) => {
    const parsed = alertSchema.safeParse(byId.get(alertId));
    return parsed.success ? [parsed.data] : [];
  });
}

function filterOf(query: HistoryQuery): string {
  const terms = ['#stored = :stored'];
  if (query.ruleId !== undefined) terms.push('ruleId = :rule');
  if (query.state === 'open') terms.push('(#state = :state OR attribute_not_exists(#state))');
  else if (query.state !== undefined) terms.push('#state = :state');
  return terms.join(' AND ');
}

/** Up to limit + 1 matching alerts of one partition, newest first (one more tells whether a next page exists). */
async function queryPartition(partition: { index: string; name: string; value: string | number }, query: HistoryQuery): Promise<PartitionRead> {
  const upper = query.before ?? `${query.to}#\uffff`;
  const found: Found[] = [];
  let startKey: Record<string, unknown> | undefined;
  let pages = 0;
  do {
    const page = await documentClient().send(
      new QueryCommand({
        TableName: resourcesConfig().ALERTS_TABLE,
        IndexName: partition.index,
        KeyConditionExpression: '#partition = :value AND timeKey BETWEEN :from AND :upper',
        FilterExpression: filterOf(query),
        ExpressionAttributeNames: { '#partition': partition.name, '#stored': 'stored', ...(query.state === undefined ? {} : { '#state': 'state' }) },
        ExpressionAttributeValues: {
          ':value': partition.value,
          ':from': query.from,
          ':upper': upper,
          ':stored': true,
          ...(query.ruleId === undefined ? {} : { ':rule': query.ruleId }),
          ...(query.state === undefined ? {} : { ':state': query.state }),
        },
        ScanIndexForward: false,
        Limit: query.limit + 1,
        ExclusiveStartKey: startKey,
      }),
    );
    pages++;
    for (const item of page.Items ?? []) {
      const timeKey = String(item.timeKey);
      if (query.before !== undefined && timeKey >= query.before) continue;
      if (query.parentIds && !query.parentIds.has(String(item.parentId))) continue;
      found.push({ timeKey, alertId: String(item.alertId) });
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey && found.length <= query.limit && pages < MAX_PAGES_PER_PARTITION);
  const stopped = startKey !== undefined && found.length <= query.limit;
  return { found: found.slice(0, query.limit + 1), ...(stopped ? { stoppedAt: String(startKey!.timeKey) } : {}) };
}
