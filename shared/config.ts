import * as z from 'zod';

/**
 * Names of the DynamoDB tables and SQS queues, read from the environment.
 * The CDK stack sets these on every Lambda; the local runtime and the tests set them for their emulators.
 * Endpoints are never configured here: the AWS SDK reads AWS_ENDPOINT_URL_<SERVICE> itself.
 */
const resourcesSchema = z.object({
  RULES_TABLE: z.string().min(1).default('fleetwatch-rules'),
  VEHICLE_STATE_TABLE: z.string().min(1).default('fleetwatch-vehicle-state'),
  ALERTS_TABLE: z.string().min(1).default('fleetwatch-alerts'),
  DIRECTORY_TABLE: z.string().min(1).default('fleetwatch-directory'),
  GEOZONES_TABLE: z.string().min(1).default('fleetwatch-geozones'),
  /** Default: the vehicle-state table's name with `vehicle-state` replaced by `visits` (same prefix). */
  VISITS_TABLE: z.string().min(1).optional(),
  DELIVERIES_QUEUE_URL: z.string().default(''),
  INPUT_DLQ_URL: z.string().default(''),
  DELIVERIES_DLQ_URL: z.string().default(''),
  /** The input queue's name, for its ApproximateAgeOfOldestMessage metric (read by the sweep); empty: not monitored. */
  INPUT_QUEUE_NAME: z.string().default(''),
});

export type ResourcesConfig = Omit<z.infer<typeof resourcesSchema>, 'VISITS_TABLE'> & { VISITS_TABLE: string };

export function resourcesConfig(env: NodeJS.ProcessEnv = process.env): ResourcesConfig {
  const parsed = resourcesSchema.parse(env);
  const state = parsed.VEHICLE_STATE_TABLE;
  const derived = state.endsWith('vehicle-state') ? `${state.slice(0, -'vehicle-state'.length)}visits` : `${state}-visits`;
  return { ...parsed, VISITS_TABLE: parsed.VISITS_TABLE ?? derived };
}

/**
 * How evaluate stores a vehicle's clock (the device time of the newest message evaluated, and last seen):
 * - `exact` (default): with every message that moves it, for a vehicle under rules, so that a late message is
 *   always judged against the newest one evaluated, and the sweep knows the last-seen exactly;
 * - `coalesced`: with rule-state changes and a heartbeat at most every 1 to 10 minutes. About half the DynamoDB
 *   writes, but a late message newer than the stored clock, within one heartbeat interval, is evaluated as current.
 */
export const vehicleClockSchema = z.enum(['exact', 'coalesced']);
export type VehicleClock = z.infer<typeof vehicleClockSchema>;

const vehicleClockEnvSchema = z.object({ VEHICLE_CLOCK: vehicleClockSchema.default('exact') });

export function vehicleClockConfig(env: NodeJS.ProcessEnv = process.env): VehicleClock {
  return vehicleClockEnvSchema.parse(env).VEHICLE_CLOCK;
}
