import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../aws/dynamodb';
import { resourcesConfig } from '../../config';
import { alertSchema, type Alert, type AlertState, type Severity } from '../../schemas/alert';
import { severityOf } from '../../rules/severity';
import { batchGetItems } from '../batch-get';

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
  /** Only alerts of these severities (one stored before severities has its type's default). */
  severities?: ReadonlySet<Severity>;
}

/** An alert as the history answers it: with its severity, an older alert's read as its type's default. */
export type HistoryAlert = Alert & { severity: Severity };

export interface HistoryPage {
  items: HistoryAlert[];
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

/**
 * Rounds of index pages one request reads for the severity filter before it answers a page short: the filter is
 * judged on the alerts themselves, after they are read by key (see queryHistory).
 */
export const MAX_SEVERITY_ROUNDS = 4;

/**
 * A page of the history. The severity filter is applied to the alerts read by key, not in the index: the history
 * indexes hold only what never changes while an alert is delivered (tables.ts), a new attribute there would mean
 * building both indexes anew on every installation (docs/deploy.md), and an alert stored before severities has
 * none to filter on (its severity follows from its type and event, which the index does not hold). So with the
 * filter, index pages are read round after round, from where the last one ended, until `limit` alerts match or
 * MAX_SEVERITY_ROUNDS rounds were read; the page may then hold fewer, with a cursor, as any page may.
 */
export async function queryHistory(query: HistoryQuery): Promise<HistoryPage> {
  const matched: { alert: HistoryAlert; timeKey: string }[] = [];
  const answer = (cursor: string | null): HistoryPage => ({ items: matched.map(({ alert }) => alert), cursor });
  let before = query.before;
  for (let round = 1; ; round++) {
    const page = await indexPage({ ...query, before });
    const read = await readAlerts(page.found.map((entry) => entry.alertId));
    for (const { alertId, timeKey } of page.found) {
      const alert = read.get(alertId);
      if (!alert || (query.severities && !query.severities.has(alert.severity))) continue;
      // a full page ends at its last alert: the matches read beyond it start the next
      if (matched.length === query.limit) return answer(matched.at(-1)!.timeKey);
      matched.push({ alert, timeKey });
    }
    if (page.cursor === null || matched.length === query.limit || !query.severities || round === MAX_SEVERITY_ROUNDS) return answer(page.cursor);
    before = page.cursor;
  }
}

interface IndexPage {
  /** Up to `limit` entries, newest first. */
  found: Found[];
  cursor: string | null;
}

/** One page of the index entries, merged over the partitions, without reading the alerts. */
async function indexPage(query: HistoryQuery): Promise<IndexPage> {
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
  return { found: page, cursor };
}

/** The alerts themselves, by id, each with its severity; one that expired since the index was read is left out. */
async function readAlerts(alertIds: readonly string[]): Promise<Map<string, HistoryAlert>> {
  const items = await batchGetItems(
    resourcesConfig().ALERTS_TABLE,
    alertIds.map((alertId) => ({ alertId })),
  );
  const alerts = new Map<string, HistoryAlert>();
  for (const item of items) {
    const parsed = alertSchema.safeParse(item);
    if (parsed.success) alerts.set(parsed.data.alertId, { ...parsed.data, severity: severityOf(parsed.data) });
  }
  return alerts;
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
