import type { VehicleClock } from '../config';
import { tickVehicle, type EvaluatorLookup } from './evaluate-vehicle';
import type { VehicleStep } from './run-vehicle-steps';
import { heartbeatIntervalMs, storedClock } from './silence-deadline';

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
      ...(vehicleRules.silences ? { silences: vehicleRules.silences } : {}),
    });
}
