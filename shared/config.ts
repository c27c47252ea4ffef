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
  DELIVERIES_QUEUE_URL: z.string().default(''),
  INPUT_DLQ_URL: z.string().default(''),
  DELIVERIES_DLQ_URL: z.string().default(''),
  /** The input queue's name, for its ApproximateAgeOfOldestMessage metric (read by the sweep); empty: not monitored. */
  INPUT_QUEUE_NAME: z.string().default(''),
});

export type ResourcesConfig = z.infer<typeof resourcesSchema>;

export function resourcesConfig(env: NodeJS.ProcessEnv = process.env): ResourcesConfig {
  return resourcesSchema.parse(env);
}
