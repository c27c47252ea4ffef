import type { SQSRecord } from 'aws-lambda';
import { parseTerminalMessage, type TerminalMessage } from '../schemas/terminal-message';
import type { CompiledRule, ZoneLookup } from '../rules/types';
import type { AlertItem } from '../store/alerts-store';
import { loadVehicleState, loadVehicleStates, type LoadedState } from '../store/vehicle-state-store';
import { logger } from '../observability/logger';
import { commitChanges, type VehicleChange } from './commit-changes';
import { sendToDeadLetter, type Rejection } from './dead-letter';
import { enqueueDeliveries } from './enqueue-deliveries';
import { evaluateVehicle, type EvaluatorLookup } from './evaluate-vehicle';
import { toVehicleChange } from './vehicle-change';

/**
 * One batch of terminal messages, end to end: parse (rejects to the DLQ), group by vehicle in device-time
 * order, read every state in one BatchGetItem round, evaluate, commit state and alerts transactionally,
 * then ask for delivery of the alerts that this batch created.
 */
export interface RuleIndexView {
  rulesFor(vehicleId: number, now: number): CompiledRule[];
  zones: ZoneLookup;
}

export interface BatchContext {
  now: number;
  rules: RuleIndexView;
  evaluatorFor: EvaluatorLookup;
}

export interface BatchOutcome {
  /** Records to report as batch item failures (SQS delivers them again). */
  failedMessageIds: string[];
  processed: number;
  rejected: number;
  alertsCreated: AlertItem[];
  enqueuedAlertIds: Set<string>;
}

interface Received {
  record: SQSRecord;
  message: TerminalMessage;
}

export async function processBatch(records: readonly SQSRecord[], context: BatchContext): Promise<BatchOutcome> {
  const { now } = context;
  const rejections: Rejection[] = [];
  const byVehicle = new Map<number, Received[]>();
  for (const record of records) {
    const parsed = parseTerminalMessage(record.body, now);
    if (!parsed.ok) {
      logger.warn('message rejected', { messageId: record.messageId, reason: parsed.reason });
      rejections.push({ record, reason: parsed.reason });
      continue;
    }
    const list = byVehicle.get(parsed.message.vehicleId) ?? [];
    list.push({ record, message: parsed.message });
    byVehicle.set(parsed.message.vehicleId, list);
  }
  for (const list of byVehicle.values()) {
    list.sort((a, b) => Date.parse(a.message.deviceTime) - Date.parse(b.message.deviceTime));
  }
  const failed = new Set(await sendToDeadLetter(rejections));
  const outcome: BatchOutcome = {
    failedMessageIds: [],
    processed: 0,
    rejected: rejections.length - failed.size,
    alertsCreated: [],
    enqueuedAlertIds: new Set(),
  };

  const failVehicles = (vehicleIds: Iterable<number>) => {
    for (const vehicleId of vehicleIds) for (const { record } of byVehicle.get(vehicleId) ?? []) failed.add(record.messageId);
  };

  let states: Map<number, LoadedState>;
  try {
    states = await loadVehicleStates([...byVehicle.keys()]);
  } catch (error) {
    logger.error('vehicle states not loaded; the batch will be retried', { error });
    failVehicles(byVehicle.keys());
    return finish(outcome, records, failed);
  }

  const changeFor = (vehicleId: number, loaded: LoadedState): VehicleChange | undefined => {
    const received = byVehicle.get(vehicleId) ?? [];
    const result = evaluateVehicle({
      vehicleId,
      state: loaded.state,
      messages: received.map(({ message }) => message),
      rules: context.rules.rulesFor(vehicleId, now),
      context: { now, zones: context.rules.zones },
      evaluatorFor: context.evaluatorFor,
    });
    if (result.staleMessages > 0) logger.debug('stale messages ignored for state', { vehicleId, stale: result.staleMessages });
    return toVehicleChange(vehicleId, loaded, result, now);
  };

  const changes: VehicleChange[] = [];
  for (const [vehicleId, loaded] of states) {
    try {
      const change = changeFor(vehicleId, loaded);
      if (change) changes.push(change);
    } catch (error) {
      logger.error('vehicle not evaluated', { vehicleId, error });
      failVehicles([vehicleId]);
    }
  }

  const committed = await commitChanges(changes, async (vehicleId) => changeFor(vehicleId, await loadVehicleState(vehicleId)));
  failVehicles(committed.failedVehicles.keys());
  outcome.alertsCreated = committed.created;
  for (const alert of committed.created) {
    logger.info('alert raised', { alertId: alert.alertId, ruleId: alert.ruleId, vehicleId: alert.vehicleId, kind: alert.event.kind });
  }
  outcome.enqueuedAlertIds = await enqueueDeliveries(committed.created.map((alert) => alert.alertId));
  return finish(outcome, records, failed);
}

function finish(outcome: BatchOutcome, records: readonly SQSRecord[], failed: Set<string>): BatchOutcome {
  outcome.failedMessageIds = records.filter((record) => failed.has(record.messageId)).map((record) => record.messageId);
  outcome.processed = records.length - outcome.failedMessageIds.length - outcome.rejected;
  return outcome;
}
