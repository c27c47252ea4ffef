import type { SQSRecord } from 'aws-lambda';
import { parseTerminalMessage, type TerminalMessage } from '../schemas/terminal-message';
import type { VehicleClock } from '../config';
import type { AlertItem } from '../store/alerts/alerts-store';
import { logger } from '../observability/logger';
import { sendToDeadLetter, type Rejection } from './dead-letter';
import { evaluateVehicle, type EvaluatorLookup } from './evaluate-vehicle';
import type { RuleCache } from './rule-cache';
import { runVehicleSteps, type VehicleStep } from './run-vehicle-steps';

/**
 * One batch of terminal messages, end to end: parse (rejects to the DLQ), group by vehicle in device-time
 * order, then the shared vehicle path (runVehicleSteps): one BatchGetItem round for the vehicles' items,
 * their rules from the rule cache, evaluation, one transactional commit, delivery requests.
 */
export interface BatchContext {
  now: number;
  rules: RuleCache;
  evaluatorFor: EvaluatorLookup;
  /** How the vehicles' clocks are stored (config: VEHICLE_CLOCK). */
  vehicleClock: VehicleClock;
  /** Seconds a message may be old for its events to become alerts, where a rule sets no `maxEventAge` (config: MAX_EVENT_AGE_SECONDS). */
  maxEventAgeSeconds: number;
}

export interface BatchOutcome {
  /** Records to report as batch item failures (SQS delivers them again). */
  failedMessageIds: string[];
  processed: number;
  rejected: number;
  alertsCreated: AlertItem[];
  enqueuedAlertIds: Set<string>;
  /** Vehicles no client owns; their messages are consumed and raise nothing. */
  unknownVehicles: number[];
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
  const stamped = [...byVehicle.values()].some((list) => list.some(({ message }) => message.previousDeviceTime !== undefined));
  const failed = new Set(await sendToDeadLetter(rejections));
  const rejected = rejections.length - failed.size;

  const steps =
    byVehicle.size === 0
      ? undefined
      : await runVehicleSteps(
          [...byVehicle.keys()],
          messagesStep((vehicleId) => (byVehicle.get(vehicleId) ?? []).map(({ message }) => message), context),
          context.rules,
          now,
          // every message the exact clock evaluates as current is committed under the item's version; a vehicle of
          // stamped messages is written with heartbeats only, so a batch with any of them reads consistently
          { vehicleClock: context.vehicleClock, journal: true, eventuallyConsistent: context.vehicleClock === 'exact' && !stamped },
        );
  for (const vehicleId of steps?.failedVehicles.keys() ?? []) {
    for (const { record } of byVehicle.get(vehicleId) ?? []) failed.add(record.messageId);
  }
  const failedMessageIds = records.filter((record) => failed.has(record.messageId)).map((record) => record.messageId);
  return {
    failedMessageIds,
    processed: records.length - failedMessageIds.length - rejected,
    rejected,
    alertsCreated: steps?.created ?? [],
    enqueuedAlertIds: steps?.enqueued ?? new Set(),
    unknownVehicles: steps?.unknownVehicles ?? [],
  };
}

/**
 * Evaluate's step for one vehicle: its messages of the batch (in device-time order) through the rules that apply
 * to it, at the batch's time, journaling visits where the rules resolved the journal's zones. Messages are aged
 * at the batch's time, or at `agedAt` (the preview's `evaluatedAt`).
 */
export function messagesStep(
  messagesOf: (vehicleId: number) => readonly TerminalMessage[],
  context: Pick<BatchContext, 'now' | 'evaluatorFor' | 'vehicleClock' | 'maxEventAgeSeconds'> & { agedAt?: number },
): VehicleStep {
  return (vehicleId, loaded, vehicleRules) => {
    const result = evaluateVehicle({
      vehicleId,
      state: loaded.state,
      messages: messagesOf(vehicleId),
      rules: vehicleRules.rules,
      context: { now: context.now, zones: vehicleRules.zones },
      evaluatorFor: context.evaluatorFor,
      vehicleClock: context.vehicleClock,
      maxEventAgeSeconds: context.maxEventAgeSeconds,
      ...(context.agedAt === undefined ? {} : { agedAt: context.agedAt }),
      ...(vehicleRules.journal ? { journal: vehicleRules.journal } : {}),
      ...(vehicleRules.silences ? { silences: vehicleRules.silences } : {}),
    });
    if (result.staleMessages > 0) logger.debug('stale messages ignored for state', { vehicleId, stale: result.staleMessages });
    return result;
  };
}
