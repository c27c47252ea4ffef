import { resolveRules } from '../support/resolve-rules';
import { storedRule, T0 } from './support';

/**
 * Vehicle 1 as evaluate resolves it (RuleCache): speeding at once over 90 km/h, and connection loss after
 * 5 minutes (a heartbeat every minute under the coalesced clock). No rule starts or ends within the tests' minutes.
 */
export const speedingAndSilenceVehicle = await resolveRules(
  [
    storedRule({ id: 1, vehicleIds: [1], settings: { limit: '90', minDuration: '0' } }),
    storedRule({ id: 2, type: 7, name: 'silence', vehicleIds: [1], settings: { minutes: '5' } }),
  ],
  1,
  T0,
);
