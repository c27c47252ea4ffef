import { DEFAULT_RULE_CACHE_BYTES, type VehicleClock } from '../config';
import type { StoredRule } from '../schemas/notification';
import type { TerminalMessage } from '../schemas/terminal-message';
import type { AlertItem } from '../store/alerts/alerts-store';
import { ruleItem } from '../store/rules-store';
import type { LoadedState } from '../store/vehicle-state-store';
import { logger } from '../observability/logger';
import type { EvaluatorLookup, VehicleOutcome } from './evaluate-vehicle';
import type { SuppressionReason } from '../schemas/suppression';
import { messagesStep } from './process-batch';
import type { RuleRecords } from '../store/rule-records';
import { RuleCache, type VehicleRules } from './rule-cache';
import type { VehicleStep } from './run-vehicle-steps';
import { connectionLossStep } from './connection-loss-step';
import { toVehicleChange } from './vehicle-change';

/**
 * What a rule would have raised for a set of messages, through the production path held in memory: the rule
 * resolved and compiled by a RuleCache (its geozones read from `zonesById`), each vehicle's messages fed as
 * evaluate is fed them (one batch per arrival time, in device-time order within it, through evaluate's own
 * step), the sweep's connection-loss step run wherever the vehicle's silence deadline falls before the next
 * arrival and up to `until`, and each outcome committed the way the table would take it (toVehicleChange: the
 * state only when worth a write, one alert per alert id). Messages are aged as evaluate ages them, at their
 * arrival, unless `evaluatedAt` is given. Nothing is read but geozones, nothing is written, and no visit is journaled.
 */
export interface PreviewInput {
  /** The rule, taken to be in force throughout. */
  rule: StoredRule;
  /** Each vehicle of the messages, with its owner chain (owner first). */
  owners: ReadonlyMap<number, readonly string[]>;
  messages: readonly TerminalMessage[];
  /** Epoch ms: the clock for time-driven events, at or after every message's arrival. */
  until: number;
  zonesById: RuleRecords['zonesById'];
  /** The maintenance silences of a client of the owner chains, judged at each event's time as evaluation does. */
  silencesOfClient?: RuleRecords['silencesOfClient'];
  evaluatorFor: EvaluatorLookup;
  vehicleClock: VehicleClock;
  /** Seconds a message may be old, where the rule sets no `maxEventAge` (config: MAX_EVENT_AGE_SECONDS). */
  maxEventAgeSeconds: number;
  /** Epoch ms every message is aged at instead of its arrival. */
  evaluatedAt?: number;
}

export interface PreviewSuppression {
  vehicleId: number;
  time: string;
  reason: SuppressionReason;
  /** `tooOld` only: the message's age when evaluated, whole seconds. */
  age?: number;
  /** The maintenance silence of a `silenced` suppression. */
  silenceId?: string;
}

export interface PreviewOutcome {
  /** Alerts in time order (then by vehicle). */
  alerts: AlertItem[];
  suppressed: PreviewSuppression[];
}

/** When evaluate would have received a message: its server time, else its device time. */
export const arrivalOf = (message: TerminalMessage): number => Date.parse(message.serverTime ?? message.deviceTime);

export async function previewRule(input: PreviewInput): Promise<PreviewOutcome> {
  const { rule, until } = input;
  const cache = new RuleCache(DEFAULT_RULE_CACHE_BYTES, {
    rulesById: (ids) => Promise.resolve(ids.includes(rule.id) ? [ruleItem(rule)] : []),
    zonesById: input.zonesById,
    zonesOfClient: () => Promise.resolve([]),
    ...(input.silencesOfClient ? { silencesOfClient: input.silencesOfClient } : {}),
  });
  const items = new Map<number, LoadedState>(
    [...input.owners].map(([vehicleId, owners]) => [
      vehicleId,
      {
        state: undefined,
        version: 0,
        projection: { owners: [...owners], ruleRefs: { [String(rule.id)]: rule.version }, zoneRefs: {} },
        silentAt: null,
      },
    ]),
  );
  const resolved = await cache.resolve(items, until);
  const alerts = new Map<string, AlertItem>();
  const suppressed: PreviewSuppression[] = [];
  for (const [vehicleId, batches] of batchesByVehicle(input.messages)) {
    const vehicle = new SimulatedVehicle(vehicleId, items.get(vehicleId)!, resolved.get(vehicleId)!, input.vehicleClock);
    const take = (outcome: { alerts: AlertItem[]; suppressed: PreviewSuppression[] }) => {
      for (const alert of outcome.alerts) if (!alerts.has(alert.alertId)) alerts.set(alert.alertId, alert);
      suppressed.push(...outcome.suppressed);
    };
    for (const { arrival, messages } of batches) {
      take(vehicle.sweepUntil(arrival, input.evaluatorFor));
      take(
        vehicle.run(
          messagesStep(() => messages, {
            now: arrival,
            evaluatorFor: input.evaluatorFor,
            vehicleClock: input.vehicleClock,
            maxEventAgeSeconds: input.maxEventAgeSeconds,
            ...(input.evaluatedAt === undefined ? {} : { agedAt: input.evaluatedAt }),
          }),
          arrival,
        ),
      );
    }
    take(vehicle.sweepUntil(until, input.evaluatorFor));
  }
  const byTime =
    <T extends { vehicleId: number }>(timeOf: (item: T) => string) =>
    (a: T, b: T) =>
      timeOf(a).localeCompare(timeOf(b)) || a.vehicleId - b.vehicleId;
  return {
    alerts: [...alerts.values()].sort(byTime((alert) => alert.event.time)),
    suppressed: suppressed.sort(byTime((entry) => entry.time)),
  };
}

/** Each vehicle's messages in batches of one arrival time, in arrival order; a batch in device-time order, as evaluate sorts it. */
function batchesByVehicle(messages: readonly TerminalMessage[]): Map<number, { arrival: number; messages: TerminalMessage[] }[]> {
  const byVehicle = new Map<number, Map<number, TerminalMessage[]>>();
  for (const message of messages) {
    const arrivals = byVehicle.get(message.vehicleId) ?? new Map<number, TerminalMessage[]>();
    byVehicle.set(message.vehicleId, arrivals);
    const arrival = arrivalOf(message);
    arrivals.set(arrival, [...(arrivals.get(arrival) ?? []), message]);
  }
  return new Map(
    [...byVehicle].map(([vehicleId, arrivals]) => [
      vehicleId,
      [...arrivals]
        .sort(([a], [b]) => a - b)
        .map(([arrival, batch]) => ({ arrival, messages: batch.sort((a, b) => Date.parse(a.deviceTime) - Date.parse(b.deviceTime)) })),
    ]),
  );
}

/** One vehicle's item held in memory, moved by steps exactly as a commit would move the stored one. */
class SimulatedVehicle {
  constructor(
    private readonly vehicleId: number,
    private item: LoadedState,
    private readonly rules: VehicleRules,
    private readonly clock: VehicleClock,
  ) {}

  run(step: VehicleStep, now: number): { alerts: AlertItem[]; suppressed: PreviewSuppression[] } {
    const outcome: VehicleOutcome = step(this.vehicleId, this.item, this.rules);
    for (const { ruleId, error } of outcome.failures)
      logger.warn('rule evaluation failed in a preview', { vehicleId: this.vehicleId, ruleId, error });
    const suppressed = outcome.suppressed.map(({ time, reason, age, silenceId }) => ({
      vehicleId: this.vehicleId,
      time,
      reason,
      ...(age === undefined ? {} : { age }),
      ...(silenceId === undefined ? {} : { silenceId }),
    }));
    const change = toVehicleChange(this.vehicleId, this.item, { ...outcome, failures: [] }, now, this.rules.rules, this.clock);
    if (change?.state) this.item = { ...this.item, state: change.state, version: this.item.version + 1, silentAt: change.silentAt ?? null };
    // a silenced event kept in the history is not an alert anyone gets
    return { alerts: (change?.alerts ?? []).filter((alert) => alert.outbox !== undefined), suppressed };
  }

  /** The sweep's passes that would find this vehicle silent up to `time`: one at each deadline that falls by then. */
  sweepUntil(time: number, evaluatorFor: EvaluatorLookup): { alerts: AlertItem[]; suppressed: PreviewSuppression[] } {
    const found = { alerts: [] as AlertItem[], suppressed: [] as PreviewSuppression[] };
    let deadline = this.item.silentAt;
    while (deadline !== null && deadline <= time) {
      const swept = this.run(connectionLossStep(evaluatorFor, deadline, this.clock), deadline);
      found.alerts.push(...swept.alerts);
      found.suppressed.push(...swept.suppressed);
      const next = this.item.silentAt;
      // a deadline the step did not move would be found again by every later sweep, to the same effect
      if (next === null || next <= deadline) break;
      deadline = next;
    }
    return found;
  }
}
