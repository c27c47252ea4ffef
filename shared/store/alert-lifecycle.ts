import { GetCommand, TransactWriteCommand, UpdateCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { alertSchema, statesLeadingTo, type Alert, type AlertState, type LifecycleEntry } from '../schemas/alert';
import { alertPut, alertsTable, buildEscalationItem, OUTBOX_SHARDS } from './alerts-store';

/**
 * The lifecycle of a stored alert (`open` → `acknowledged` → `cleared` | `closed`, see ALERT_TRANSITIONS): one
 * conditional UpdateItem per change, conditioned on the state it leaves, so that a change made twice (a button
 * pressed twice, a request sent again) is written once and the second answer says who made it. Each change is
 * appended to the alert's `lifecycle`, which the state machine keeps to two entries.
 *
 * What is due at a time sits in the sparse keys-only `byDue` index (`dueShard`, `dueAt`): the escalation and the
 * auto-close, set when the alert is raised, `dueAt` the earliest of them. Clearing or closing takes the alert off
 * it; acknowledging or escalating leaves only the auto-close.
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
  const alert = await getStoredAlert(alertId);
  if (!alert || !(await mayChange(alert))) return { outcome: 'missing' };
  const early = judged(alert, change.to);
  if (early) return early;
  const { to, now, ...who } = change;
  const entry: LifecycleEntry = { state: to, at: new Date(now).toISOString(), ...who };
  const from = statesLeadingTo(to);
  const sets = ['#state = :to', '#lifecycle = list_append(if_not_exists(#lifecycle, :none), :entry)'];
  if (to === 'acknowledged') sets.push('#acknowledgement = :ack');
  // an acknowledged alert is not escalated: only its auto-close stays due
  const keepsDue = to === 'acknowledged' && alert.autoCloseAt !== undefined;
  if (keepsDue) sets.push('dueAt = :closeAt');
  try {
    const { Attributes } = await documentClient().send(
      new UpdateCommand({
        TableName: alertsTable(),
        Key: { alertId },
        UpdateExpression: `SET ${sets.join(', ')}${keepsDue ? '' : ' REMOVE dueShard, dueAt'}`,
        // an alert stored before states existed has none, and is open
        ConditionExpression: `#stored = :true AND (#state IN (${from.map((_, index) => `:from${index}`).join(', ')})${from.includes('open') ? ' OR attribute_not_exists(#state)' : ''})`,
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
          ...(keepsDue ? { ':closeAt': alert.autoCloseAt } : {}),
          ...Object.fromEntries(from.map((state, index) => [`:from${index}`, state])),
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { outcome: 'changed', alert: alertSchema.parse(Attributes) };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    // another change came first: answer from the item as it was then
    const current = alertSchema.safeParse(error.Item ? unmarshall(error.Item) : undefined);
    return (current.success && judged(current.data, to)) || { outcome: 'missing' };
  }
}

/** An alert whose episode ended (e.g. the vehicle reported again after a connection loss): `cleared`, once. */
export function clearAlert(alertId: string, now: number): Promise<TransitionResult> {
  return transitionAlert(alertId, { to: 'cleared', by: 'fleetwatch', via: 'system', now });
}

/** Alerts whose due time has come, shard by shard, oldest first in each (reads the keys-only index). */
export async function* dueAlertIds(now: number): AsyncGenerator<{ alertId: string; dueAt: string }> {
  const before = new Date(now).toISOString();
  for (let shard = 0; shard < OUTBOX_SHARDS; shard++) {
    for await (const page of paginateQuery(
      { client: documentClient() },
      {
        TableName: alertsTable(),
        IndexName: 'byDue',
        KeyConditionExpression: 'dueShard = :shard AND dueAt <= :now',
        ExpressionAttributeValues: { ':shard': `due#${shard}`, ':now': before },
      },
    )) {
      for (const item of page.Items ?? []) yield { alertId: String(item.alertId), dueAt: String(item.dueAt) };
    }
  }
}

/**
 * Closes an alert whose auto-close time has come (`closed` by fleetwatch). Written only while it is still due
 * and open or acknowledged, so two overlapping sweeps close it once. Returns whether this call closed it.
 */
export async function closeDueAlert(alertId: string, now: number): Promise<boolean> {
  const entry: LifecycleEntry = { state: 'closed', at: new Date(now).toISOString(), by: 'fleetwatch', via: 'system' };
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: alertsTable(),
        Key: { alertId },
        UpdateExpression: 'SET #state = :closed, #lifecycle = list_append(if_not_exists(#lifecycle, :none), :entry) REMOVE dueShard, dueAt',
        ConditionExpression: 'dueAt <= :now AND (#state IN (:open, :acknowledged) OR attribute_not_exists(#state))',
        ExpressionAttributeNames: { '#state': 'state', '#lifecycle': 'lifecycle' },
        ExpressionAttributeValues: {
          ':closed': 'closed',
          ':none': [],
          ':entry': [entry],
          ':now': entry.at,
          ':open': 'open',
          ':acknowledged': 'acknowledged',
        },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/**
 * Escalates an alert still open at its `escalateAt`: in one transaction the alert is marked `escalatedAt` (only
 * its auto-close stays due) and its escalation item is created pending, in the outbox. Conditioned on the alert
 * being due, open and not escalated yet, and on the escalation not existing, so two overlapping sweeps escalate
 * it once and an acknowledgement that came first cancels it. Returns the escalation's id when this call made it.
 */
export async function escalateDueAlert(alert: Alert, now: number): Promise<string | null> {
  const at = new Date(now).toISOString();
  const escalation = buildEscalationItem(alert, now);
  const keepsDue = alert.autoCloseAt !== undefined;
  try {
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: alertsTable(),
              Key: { alertId: alert.alertId },
              UpdateExpression: `SET escalatedAt = :at${keepsDue ? ', dueAt = :closeAt' : ' REMOVE dueShard, dueAt'}`,
              ConditionExpression:
                '#stored = :true AND escalateAt <= :at AND attribute_not_exists(escalatedAt) AND (#state = :open OR attribute_not_exists(#state))',
              ExpressionAttributeNames: { '#state': 'state', '#stored': 'stored' },
              ExpressionAttributeValues: { ':at': at, ':true': true, ':open': 'open', ...(keepsDue ? { ':closeAt': alert.autoCloseAt } : {}) },
            },
          },
          alertPut(escalation),
        ],
      }),
    );
    return escalation.alertId;
  } catch (error) {
    if (error instanceof TransactionCanceledException) return null;
    throw error;
  }
}

/**
 * Takes an alert off the due index when what was due no longer applies (it was acknowledged while the sweep
 * read it): its auto-close stays due, if it has one. Conditioned on the entry read, so a newer one stays.
 */
export async function retireDueEntry(alert: Alert, dueAt: string): Promise<void> {
  const keepsDue = alert.autoCloseAt !== undefined && alert.state !== 'cleared' && alert.state !== 'closed';
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: alertsTable(),
        Key: { alertId: alert.alertId },
        UpdateExpression: keepsDue ? 'SET dueAt = :closeAt' : 'REMOVE dueShard, dueAt',
        ConditionExpression: 'dueAt = :seen',
        ExpressionAttributeValues: { ':seen': dueAt, ...(keepsDue ? { ':closeAt': alert.autoCloseAt } : {}) },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}
