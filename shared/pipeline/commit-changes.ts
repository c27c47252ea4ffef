import pLimit from 'p-limit';
import { alertPut, type AlertItem } from '../store/alerts/alerts-store';
import { visitPut, type VisitItem } from '../store/visits-store';
import { writeSuppressedRuns, type LogWrite } from '../store/suppressed-log';
import type { VehicleState } from '../schemas/vehicle-state';
import { commitVehiclePuts, vehicleItem, vehicleStateTable, type VehicleProjection } from '../store/vehicle-state-store';
import { logger } from '../observability/logger';
import { cancellation } from '../store/dynamo';

/**
 * Commits what evaluation decided, with exactly-once effect: a vehicle's new state and the alerts it raised
 * are written in one transaction, the state conditional on the version it was computed from and each alert
 * conditional on not existing yet. Several vehicles with alerts share a transaction (up to 100 items) to keep
 * the request count per batch low; when such a transaction fails, each of its vehicles is retried alone.
 * A state written without alerts (a rule's state moved, a heartbeat) needs no transaction: one conditional
 * PutItem, billed half as much, with the same version guard.
 */
export const TRANSACTION_ITEM_LIMIT = 100;
/** DynamoDB refuses transactions over 4 MB; packs stay well below, measured roughly as JSON. */
export const TRANSACTION_BYTES_BUDGET = 3_000_000;
/** Cancellation reasons of a transaction refused for capacity, not for a condition or a conflict. */
const THROTTLED = new Set(['ProvisionedThroughputExceeded', 'ThrottlingError']);
/** Vehicles committed on their own at the same time. */
const ALONE_CONCURRENCY = 16;

export interface VehicleChange {
  vehicleId: number;
  /** Version the state was computed from; 0 when the vehicle had no item. */
  expectedVersion: number;
  /** State to store (its version is set here), or undefined when only alerts are written. */
  state: VehicleState | undefined;
  /** Owners and refs as read with the state; written back unchanged (the version guards them). */
  projection?: VehicleProjection;
  /** The silence deadline to index with the state (epoch ms), or null for none. */
  silentAt?: number | null;
  alerts: AlertItem[];
  /**
   * Visits opened or closed (idempotent full puts), written after the alerts in the same transaction as the
   * state, never without it.
   */
  visits?: VisitItem[];
  /** Runs of suppressions the state closed, written to the rules' suppressed logs once the state is committed. */
  suppressedLog?: LogWrite[];
}

/** Recomputes a vehicle's change against its current stored state, after its version moved under us. */
export type Reevaluate = (vehicleId: number) => Promise<VehicleChange | undefined>;

export interface CommitResult {
  /** Alerts written by this commit (not those found to exist already). */
  created: AlertItem[];
  /** Vehicles whose change could not be committed; their messages must be retried. */
  failedVehicles: Map<number, unknown>;
}

type TransactionItem = ReturnType<typeof alertPut> | ReturnType<typeof statePut> | ReturnType<typeof visitPut>;

function statePut(change: VehicleChange & { state: VehicleState }) {
  const isNew = change.expectedVersion === 0;
  return {
    Put: {
      TableName: vehicleStateTable(),
      Item: vehicleItem(
        { ...change.state, version: change.expectedVersion + 1 },
        change.projection ?? { owners: [], ruleRefs: {}, zoneRefs: {} },
        change.silentAt ?? null,
      ),
      ConditionExpression: isNew ? 'attribute_not_exists(vehicleId)' : 'version = :expected',
      ...(isNew ? {} : { ExpressionAttributeValues: { ':expected': change.expectedVersion } }),
    },
  };
}

function itemsOf(change: VehicleChange): TransactionItem[] {
  const items: TransactionItem[] = [];
  if (change.state) items.push(statePut(change as VehicleChange & { state: VehicleState }));
  for (const alert of change.alerts) items.push(alertPut(alert));
  if (change.state) for (const visit of change.visits ?? []) items.push(visitPut(visit));
  return items;
}

export async function commitChanges(changes: readonly VehicleChange[], reevaluate: Reevaluate): Promise<CommitResult> {
  const result: CommitResult = { created: [], failedVehicles: new Map() };
  const packs: VehicleChange[][] = [];
  const alone: VehicleChange[] = [];
  let pack: VehicleChange[] = [];
  let packSize = 0;
  let packBytes = 0;
  for (const change of changes) {
    const items = itemsOf(change);
    const size = items.length;
    const bytes = Buffer.byteLength(JSON.stringify(items));
    if (size === 0) continue;
    if (change.alerts.length === 0 || size > TRANSACTION_ITEM_LIMIT || bytes > TRANSACTION_BYTES_BUDGET) {
      alone.push(change);
      continue;
    }
    if (packSize + size > TRANSACTION_ITEM_LIMIT || packBytes + bytes > TRANSACTION_BYTES_BUDGET) {
      packs.push(pack);
      pack = [];
      packSize = 0;
      packBytes = 0;
    }
    pack.push(change);
    packSize += size;
    packBytes += bytes;
  }
  if (pack.length > 0) packs.push(pack);
  const logWrites: LogWrite[] = [];
  const logged = (change: VehicleChange | undefined) => {
    if (change?.state) logWrites.push(...(change.suppressedLog ?? []));
  };

  const commitAlone = async (change: VehicleChange) => {
    try {
      result.created.push(...(await commitVehicle(change, reevaluate, logged)));
    } catch (error) {
      logger.error('vehicle change not committed', { vehicleId: change.vehicleId, error });
      result.failedVehicles.set(change.vehicleId, error);
    }
  };

  await Promise.all(
    packs.map(async (members) => {
      try {
        await commitVehiclePuts(members.flatMap(itemsOf));
        for (const member of members) {
          result.created.push(...member.alerts);
          logged(member);
        }
      } catch (error) {
        // cancelled by one member's condition, or refused for one member's item: each is retried alone, so
        // that one vehicle never holds back the others
        logger.info('shared transaction not committed, committing its vehicles one by one', {
          vehicles: members.length,
          cancelled: cancellation(error) !== null,
          error: cancellation(error) ? undefined : error,
        });
        for (const member of members) await commitAlone(member);
      }
    }),
  );
  // a batch from the queue holds at most ten vehicles; larger ones (tests, replays) keep a bounded fan-out
  const limit = pLimit(ALONE_CONCURRENCY);
  await Promise.all(alone.map((change) => limit(() => commitAlone(change))));
  // the log is a diagnosis: a write lost here loses one entry, never an alert or the state
  if (logWrites.length > 0) {
    try {
      await writeSuppressedRuns(logWrites, Date.now());
    } catch (error) {
      logger.warn('suppressed log not written', { entries: logWrites.length, error });
    }
  }
  return result;
}

/**
 * One vehicle's change, retried until it commits: alerts that already exist are duplicates and are dropped;
 * a state whose version moved (another invocation got there first) is recomputed from the stored state.
 */
async function commitVehicle(initial: VehicleChange, reevaluate: Reevaluate, committed: (change: VehicleChange) => void): Promise<AlertItem[]> {
  const duplicates = new Set<string>();
  const created: AlertItem[] = [];
  let change: VehicleChange | undefined = initial;
  const maxAttempts = initial.alerts.length + 5;
  for (let attempt = 0; change && attempt < maxAttempts; attempt++) {
    const alerts: AlertItem[] = change.alerts.filter((alert) => !duplicates.has(alert.alertId));
    const visits = change.state ? (change.visits ?? []) : [];
    const first = { ...change, alerts: alerts.slice(0, Math.max(0, TRANSACTION_ITEM_LIMIT - (change.state ? 1 : 0) - visits.length)) };
    const items = itemsOf(first);
    if (items.length === 0) return created;
    try {
      await commitVehiclePuts(items);
      created.push(...first.alerts);
      committed(first);
      const rest = alerts.slice(first.alerts.length);
      change = rest.length > 0 ? { ...change, state: undefined, alerts: rest, visits: [] } : undefined;
      continue;
    } catch (error) {
      const reasons = cancellation(error)?.reasons;
      // a throttled item is no conflict: recomputing would only add reads to a table short of capacity, and the
      // messages, handed back to the queue, try again once it has scaled
      if (!reasons || reasons.some((reason) => reason.Code && THROTTLED.has(reason.Code))) throw error;
      const offset = first.state ? 1 : 0;
      const stateMoved = first.state !== undefined && reasons[0]?.Code === 'ConditionalCheckFailed';
      const conflict = reasons.length === 0 || reasons.some((reason) => reason.Code && !['None', 'ConditionalCheckFailed'].includes(reason.Code));
      for (const [index, alert] of first.alerts.entries()) {
        if (reasons[index + offset]?.Code === 'ConditionalCheckFailed') {
          duplicates.add(alert.alertId);
          logger.info('alert already exists, dropped as duplicate', { vehicleId: first.vehicleId, alertId: alert.alertId, ruleId: alert.ruleId });
        }
      }
      if (stateMoved || conflict) {
        logger.info('vehicle state changed concurrently, re-evaluating', { vehicleId: first.vehicleId, stateMoved });
        if (first.state) change = await reevaluate(first.vehicleId);
      }
    }
  }
  if (change) throw new Error(`vehicle ${initial.vehicleId}: change not committed after ${maxAttempts} attempts`);
  return created;
}
