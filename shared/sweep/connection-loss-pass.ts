import type { FeedOutageConfig, VehicleClock } from '../config';
import { countIfAny, MetricName } from '../observability/metrics';
import type { AlertItem } from '../store/alerts/alerts-store';
import { vehiclesFallingSilent } from '../store/vehicle-state-store';
import { connectionLossStep, runVehicleSteps, type EvaluatorLookup, type RuleCache } from '../pipeline/public/vehicle-steps';
import { judgeFeedOutages } from './feed-outage-hold';
import type { FeedReading } from './feed-rate';

/**
 * Connection loss is the absence of messages, so no message can raise it. Every vehicle waiting for a silence
 * carries its deadline in the sparse `bySilence` index (written with its state); each minute the sweep asks
 * each shard of that index for the deadlines already passed, and shows only those vehicles the passing time,
 * through the same path as evaluate. Reads follow the vehicles going silent, not the size of the fleet. When a
 * feed is interrupted, the losses of the vehicles it silenced are held (feed-outage.ts).
 */
export interface ConnectionLossResult {
  vehicles: number;
  alertsCreated: AlertItem[];
  failedVehicles: number[];
  /** Vehicles whose loss waits for their interrupted feed (feed-outage.ts). */
  held: number;
  outages: { begun: string[]; holding: string[]; ended: string[] };
}

/** The sweep runs every minute: deadlines within the next one are counted with the passed ones (feed-outage.ts). */
const COHORT_LOOKAHEAD_MS = 60_000;

export interface ConnectionLossOptions {
  now: number;
  vehicleClock: VehicleClock;
  /** Silences are judged as of this moment at the latest (see backlog-hold.ts). Default: `now`. */
  certainAsOf?: number;
  /** The input queue's message rate, for a platform-wide outage. */
  feed: FeedReading;
  feedOutage: FeedOutageConfig;
}

export async function runConnectionLossPass(
  rules: RuleCache,
  evaluatorFor: EvaluatorLookup,
  options: ConnectionLossOptions,
): Promise<ConnectionLossResult> {
  const { now, vehicleClock, certainAsOf = now } = options;
  const cohort = await vehiclesFallingSilent(now + COHORT_LOOKAHEAD_MS);
  // with no vehicle falling silent there is nothing to hold, and an outage over can be ended by a later sweep
  if (cohort.length === 0) return { vehicles: 0, alertsCreated: [], failedVehicles: [], held: 0, outages: { begun: [], holding: [], ended: [] } };
  const outages = await judgeFeedOutages(cohort, now, options.feed, options.feedOutage);
  const due = cohort.filter((vehicle) => vehicle.silentAt <= now);
  const vehicleIds = due.filter((vehicle) => !outages.held(vehicle)).map((vehicle) => vehicle.vehicleId);
  const held = due.length - vehicleIds.length;
  countIfAny(MetricName.ConnectionLossesHeld, held);
  const report = { held, outages: { begun: outages.begun, holding: outages.holding, ended: outages.ended } };
  if (vehicleIds.length === 0) return { vehicles: 0, alertsCreated: [], failedVehicles: [], ...report };
  const result = await runVehicleSteps(vehicleIds, connectionLossStep(evaluatorFor, now, vehicleClock, certainAsOf), rules, now, { vehicleClock });
  return { vehicles: vehicleIds.length, alertsCreated: result.created, failedVehicles: [...result.failedVehicles.keys()], ...report };
}
