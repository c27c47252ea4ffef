import { GetCommand, TransactWriteCommand, UpdateCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { documentClient } from '../../aws/dynamodb';
import { alertSchema, statesLeadingTo, type Alert, type AlertState, type LifecycleEntry } from '../../schemas/alert';
import { alertPut, alertsTable, buildEscalationItem, OUTBOX_SHARDS, type EscalationFiring } from './alerts-store';
import { dueClauses, retryUnchanged, updateExpression } from '../alert-due';
import { cancellation, conditionFailed } from '../dynamo';

/**
 * The lifecycle of a stored alert (`open` → `acknowledged` → `cleared` | `closed`, see ALERT_TRANSITIONS): one
 * conditional UpdateItem per change, conditioned on the state it leaves, so that a change made twice (a button
 * pressed twice, a request sent again) is written once and the second answer says who made it. Each change is
 * appended to the alert's `lifecycle`, which the state machine keeps to two entries.
 *
 * What is due at a time sits in the sparse keys-only `byDue` index (`dueShard`, `dueAt`): the escalation and the
 * auto-close, set when the alert is raised, and a delivery retry, set by the deliver function (alert-due.ts);
 * `dueAt` the earliest of them. Clearing or closing leaves only the retry; acknowledging or escalating leaves the
 * auto-close and the retry.
 */
export type LifecycleChange = Omit<LifecycleEntry, 'state' | 'at'> & { to: Exclude<AlertState, 'open'>; now: number };

/**
 * - changed: the alert moved now;
 * - already: it was in that state before (`alert` says since when and by whom);
 * - refused: its state does not lead there (a cleared or closed alert is not acknowledged);
 * - missing: no such stored alert, or one the caller may not see.
 */
export type TransitionResult =
  { outcome: 'changed'; alert: Alert } | { outcome: 'already'; alert: Alert } | { outcome: 'refused'; alert: Alert } | { outcome: 'missing' };

/** Any alert by id, kept in the history or not; null when there is none. */
export async function getAlert(alertId: string): Promise<Alert | null> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: alertsTable(), Key: { alertId } }));
  const parsed = alertSchema.safeParse(Item);
  return parsed.success ? parsed.data : null;
}

/** The alert, when it exists, is stored and parses (an unstored alert has no lifecycle). */
export async function getStoredAlert(alertId: string): Promise<Alert | null> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: alertsTable(), Key: { alertId } }));
  const parsed = alertSchema.safeParse(Item);
  return parsed.success && parsed.data.stored ? parsed.data : null;
}

function judged(alert: Alert, to: AlertState): TransitionResult | null {
  if (alert.state === to) return { outcome: 'already', alert };
  if (!statesLeadingTo(to).includes(alert.state)) return { outcome: 'refused', alert };
  return null;
}

/**
 * Moves a stored alert to `change.to`, when `mayChange` allows it for this alert (the caller's scope): read once,
 * then written with a condition on the state read, so two concurrent changes cannot both succeed.
 */
export async function transitionAlert(
  alertId: string,
  change: LifecycleChange,
  mayChange: (alert: Alert) => Promise<boolean> = async () => true,
): Promise<TransitionResult> {
  let alert = await getStoredAlert(alertId);
  if (!alert || !(await mayChange(alert))) return { outcome: 'missing' };
  // a delivery retry set between the read and the write is kept: the write is made again from the item it met
  for (let tries = 0; tries < TRANSITION_TRIES; tries++) {
    const early = judged(alert, change.to);
    if (early) return early;
    const written = await writeTransition(alert, change);
    if ('outcome' in written) return written;
    if (!written.current) return { outcome: 'missing' };
    alert = written.current;
  }
  throw new Error(`alert ${alertId} kept changing while it was moved to ${change.to}`);
}

/** Tries of one transition whose write met a newer `retryAt` each time. */
const TRANSITION_TRIES = 5;

/** One conditional write of a transition; on a condition that failed, the item as it was then (null when gone). */
async function writeTransition(alert: Alert, change: LifecycleChange): Promise<TransitionResult | { current: Alert | null }> {
  const { to, now, ...who } = change;
  const entry: LifecycleEntry = { state: to, at: new Date(now).toISOString(), ...who };
  const from = statesLeadingTo(to);
  const sets = ['#state = :to', '#lifecycle = list_append(if_not_exists(#lifecycle, :none), :entry)'];
  if (to === 'acknowledged') sets.push('#acknowledgement = :ack');
  // an acknowledged alert is not escalated: its auto-close and a delivery retry stay due
  const due = dueClauses({ ...alert, state: to });
  const retry = retryUnchanged(alert);
  try {
    const { Attributes } = await documentClient().send(
      new UpdateCommand({
        TableName: alertsTable(),
        Key: { alertId: alert.alertId },
        UpdateExpression: updateExpression({ set: [...sets, ...due.set], remove: due.remove }),
        // an alert stored before states existed has none, and is open
        ConditionExpression: `#stored = :true AND (#state IN (${from.map((_, index) => `:from${index}`).join(', ')})${from.includes('open') ? ' OR attribute_not_exists(#state)' : ''}) AND ${retry.condition}`,
        ExpressionAttributeNames: {
          '#state': 'state',
          '#stored': 'stored',
          '#lifecycle': 'lifecycle',
          ...(to === 'acknowledged' ? { '#acknowledgement': 'acknowledgement' } : {}),
        },
        ExpressionAttributeValues: {
          ':to': to,
          ':true': true,
          ':none': [],
          ':entry': [entry],
          ...(to === 'acknowledged' ? { ':ack': entry } : {}),
          ...due.values,
          ...retry.values,
          ...Object.fromEntries(from.map((state, index) => [`:from${index}`, state])),
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { outcome: 'changed', alert: alertSchema.parse(Attributes) };
  } catch (error) {
    if (!conditionFailed(error)) throw error;
    // another change came first: answer from the item as it was then, or write again over a newer retry
    const current = alertSchema.safeParse(error.Item ? unmarshall(error.Item) : undefined);
    if (!current.success || !current.data.stored) return { current: null };
    return judged(current.data, to) ?? { current: current.data };
  }
}

/** An alert whose episode ended (e.g. the vehicle reported again after a connection loss): `cleared`, once. */
export function clearAlert(alertId: string, now: number): Promise<TransitionResult> {
  return transitionAlert(alertId, { to: 'cleared', by: 'fleetwatch', via: 'system', now });
}

interface DueEntry {
  alertId: string;
  dueAt: string;
}

/** Entries of the due index read per query page of one shard. */
const DUE_PAGE = 100;

/**
 * Alerts whose due time has come, oldest first across the shards, at most `limit` (reads the keys-only index:
 * each shard's oldest page first, then merged).
 */
export async function* dueAlertIds(now: number, limit = Infinity): AsyncGenerator<DueEntry> {
  const before = new Date(now).toISOString();
  const shards = Array.from({ length: OUTBOX_SHARDS }, (_, shard) => dueInShard(`due#${shard}`, before, Math.min(limit, DUE_PAGE)));
  const heads = await Promise.all(shards.map((shard) => shard.next()));
  try {
    for (let taken = 0; taken < limit; taken++) {
      let oldest = -1;
      heads.forEach((head, index) => {
        if (!head.done && (oldest === -1 || head.value.dueAt < (heads[oldest]!.value as DueEntry).dueAt)) oldest = index;
      });
      if (oldest === -1) return;
      yield heads[oldest]!.value as DueEntry;
      heads[oldest] = await shards[oldest]!.next();
    }
  } finally {
    await Promise.all(shards.map((shard) => shard.return(undefined)));
  }
}

async function* dueInShard(shard: string, before: string, pageSize: number): AsyncGenerator<DueEntry> {
  for await (const page of paginateQuery(
    { client: documentClient(), pageSize },
    {
      TableName: alertsTable(),
      IndexName: 'byDue',
      KeyConditionExpression: 'dueShard = :shard AND dueAt <= :now',
      ExpressionAttributeValues: { ':shard': shard, ':now': before },
    },
  )) {
    for (const item of page.Items ?? []) yield { alertId: String(item.alertId), dueAt: String(item.dueAt) };
  }
}

/**
 * Closes an alert whose auto-close time has come (`closed` by fleetwatch). Written only while it is still due
 * and open or acknowledged, so two overlapping sweeps close it once; a delivery retry stays due. Returns whether
 * this call closed it.
 */
export async function closeDueAlert(alert: Alert, now: number): Promise<boolean> {
  const entry: LifecycleEntry = { state: 'closed', at: new Date(now).toISOString(), by: 'fleetwatch', via: 'system' };
  const due = dueClauses({ ...alert, state: 'closed' });
  const retry = retryUnchanged(alert);
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: alertsTable(),
        Key: { alertId: alert.alertId },
        UpdateExpression: updateExpression({
          set: ['#state = :closed', '#lifecycle = list_append(if_not_exists(#lifecycle, :none), :entry)', ...due.set],
          remove: due.remove,
        }),
        ConditionExpression: `autoCloseAt <= :now AND (#state IN (:open, :acknowledged) OR attribute_not_exists(#state)) AND ${retry.condition}`,
        ExpressionAttributeNames: { '#state': 'state', '#lifecycle': 'lifecycle' },
        ExpressionAttributeValues: {
          ':closed': 'closed',
          ':none': [],
          ':entry': [entry],
          ':now': entry.at,
          ':open': 'open',
          ':acknowledged': 'acknowledged',
          ...due.values,
          ...retry.values,
        },
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}

/**
 * Fires the step of an alert's escalation chain due at its `escalateAt`, the alert still open: in one transaction
 * the alert records the firing (`escalatedAt`, and in `escalations` the level, round and who of each rota was on
 * call) and moves `escalateAt` to the chain's next step (`next`; at the last one it stays, fired), and the
 * escalation item of that step is created pending, in the outbox. Conditioned on the `escalateAt` read being due
 * and not fired, the alert open, and the escalation not existing: two overlapping sweeps fire a step once, and an
 * acknowledgement, clearing or closing that came first cancels it and every later step. Returns the escalation's id
 * when this call made it.
 */
export async function escalateDueAlert(
  alert: Alert,
  now: number,
  firing: EscalationFiring = { step: { level: 0, round: 0 }, onCall: [] },
  next: { at: string; level: number; round: number } | null = null,
): Promise<string | null> {
  const at = new Date(now).toISOString();
  const escalation = buildEscalationItem(alert, now, firing);
  const moved = { ...alert, escalatedAt: at, ...(next ? { escalateAt: next.at } : {}) };
  const due = dueClauses(moved);
  const retry = retryUnchanged(alert);
  const record = { ...firing.step, at, escalationId: escalation.alertId, onCall: firing.onCall };
  const sets = ['escalatedAt = :at', 'escalations = list_append(if_not_exists(escalations, :none), :fired)', ...due.set];
  if (next) sets.push('escalateAt = :next', 'escalationStep = :nextStep');
  try {
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: alertsTable(),
              Key: { alertId: alert.alertId },
              UpdateExpression: updateExpression({ set: sets, remove: due.remove }),
              ConditionExpression:
                '#stored = :true AND escalateAt = :seen AND escalateAt <= :at AND (attribute_not_exists(escalatedAt) OR escalatedAt < escalateAt)' +
                ` AND (#state = :open OR attribute_not_exists(#state)) AND ${retry.condition}`,
              ExpressionAttributeNames: { '#state': 'state', '#stored': 'stored' },
              ExpressionAttributeValues: {
                ':at': at,
                ':true': true,
                ':open': 'open',
                ':seen': alert.escalateAt,
                ':none': [],
                ':fired': [record],
                ...(next ? { ':next': next.at, ':nextStep': { level: next.level, round: next.round } } : {}),
                ...due.values,
                ...retry.values,
              },
            },
          },
          alertPut(escalation),
        ],
      }),
    );
    return escalation.alertId;
  } catch (error) {
    if (cancellation(error)) return null;
    throw error;
  }
}

/**
 * Moves an alert on the due index when what was due no longer applies (it was acknowledged while the sweep read
 * it, or its delivery settled): to its next reason, or off the index. Conditioned on the entry and the retry
 * read, so a newer one stays.
 */
export async function retireDueEntry(alert: Alert, dueAt: string): Promise<void> {
  const due = dueClauses(alert);
  const retry = retryUnchanged(alert);
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: alertsTable(),
        Key: { alertId: alert.alertId },
        UpdateExpression: updateExpression(due),
        ConditionExpression: `dueAt = :seen AND ${retry.condition}`,
        ExpressionAttributeValues: { ':seen': dueAt, ...due.values, ...retry.values },
      }),
    );
  } catch (error) {
    if (!conditionFailed(error)) throw error;
  }
}
