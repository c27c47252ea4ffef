import { paginateQuery } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../aws/dynamodb';
import type { VehicleClock } from '../../config';
import type { AlertItem } from '../../store/alerts-store';
import { SILENCE_INDEX, SILENCE_SHARDS, vehicleStateTable } from '../../store/vehicle-state-store';
import { heartbeatIntervalMs, storedClock, tickVehicle, type EvaluatorLookup } from '../evaluate-vehicle';
import type { RuleCache } from '../rule-cache';
import { runVehicleSteps, type VehicleStep } from '../run-vehicle-steps';

/**
 * Connection loss is the absence of messages, so no message can raise it. Every vehicle waiting for a silence
 * carries its deadline in the sparse `bySilence` index (written with its state); each minute the sweep asks
 * each shard of that index for the deadlines already passed, and shows only those vehicles the passing time,
 * through the same path as evaluate. Reads follow the vehicles going silent, not the size of the fleet.
 */
export interface ConnectionLossResult {
  vehicles: number;
  alertsCreated: AlertItem[];
  failedVehicles: number[];
}

/** Vehicles whose silence deadline is at or before `now`, from every shard of the index. */
export async function vehiclesFallingSilent(now: number): Promise<number[]> {
  const shards = Array.from({ length: SILENCE_SHARDS }, (_, shard) => `silence#${shard}`);
  const found = await Promise.all(
    shards.map(async (shard) => {
      const ids: number[] = [];
      for await (const page of paginateQuery(
        { client: documentClient() },
        {
          TableName: vehicleStateTable(),
          IndexName: SILENCE_INDEX,
          KeyConditionExpression: 'silenceShard = :shard AND silentAt <= :now',
          ExpressionAttributeValues: { ':shard': shard, ':now': now },
          ProjectionExpression: 'vehicleId',
        },
      )) {
        for (const item of page.Items ?? []) ids.push(Number(item.vehicleId));
      }
      return ids;
    }),
  );
  return found.flat();
}

/** `certainAsOf`: silences are judged as of this moment at the latest (see backlog-hold.ts). */
export async function runConnectionLossPass(
  rules: RuleCache,
  evaluatorFor: EvaluatorLookup,
  now: number,
  vehicleClock: VehicleClock,
  certainAsOf: number = now,
): Promise<ConnectionLossResult> {
  const vehicleIds = await vehiclesFallingSilent(now);
  if (vehicleIds.length === 0) return { vehicles: 0, alertsCreated: [], failedVehicles: [] };
  const result = await runVehicleSteps(vehicleIds, connectionLossStep(evaluatorFor, now, vehicleClock, certainAsOf), rules, now, { vehicleClock });
  return { vehicles: vehicleIds.length, alertsCreated: result.created, failedVehicles: [...result.failedVehicles.keys()] };
}

/** The sweep's step for one silent vehicle: time passing, judged as of `now` (or `certainAsOf`, if earlier). */
export function connectionLossStep(evaluatorFor: EvaluatorLookup, now: number, vehicleClock: VehicleClock, certainAsOf: number = now): VehicleStep {
  return (vehicleId, loaded, vehicleRules) =>
    // With the coalesced clock (or stamped messages) a stored last-seen may trail the truth by up to one heartbeat
    // interval, so the vehicle is judged as of that long ago: a loss is raised only once the silence is certain.
    tickVehicle({
      vehicleId,
      state: loaded.state,
      rules: vehicleRules.rules,
      context: {
        now: Math.min(now - heartbeatIntervalMs(vehicleRules.rules, storedClock(loaded.state, vehicleClock)), certainAsOf),
        zones: vehicleRules.zones,
      },
      evaluatorFor,
    });
}
