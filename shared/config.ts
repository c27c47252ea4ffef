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
