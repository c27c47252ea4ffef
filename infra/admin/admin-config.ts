import * as z from 'zod';
import { readConfig, resourcesSchema, telegramSchema } from '../../shared/config';

/**
 * Every environment variable the admin CLI reads, as one zod schema: the tables and queues (shared/config.ts,
 * or the stack's outputs with `--stack`), the input queue for `redrive`, the Telegram secret, and the AWS SDK's
 * variables it looks at to tell a local endpoint from AWS. A malformed value stops the CLI before any command
 * runs, naming the variable and what it takes. docs/configuration.md lists them (`npm run docs:config`).
 */

const unsetIfBlank = (value: unknown) => (value === '' ? undefined : value);
const text = () => z.preprocess(unsetIfBlank, z.string().optional());
const url = () => z.preprocess(unsetIfBlank, z.url().optional());

export const adminAwsSchema = z.object({
  AWS_REGION: text().describe(
    'Region of the tables and queues (`--region` sets it). Against a local endpoint: AWS_DEFAULT_REGION, else `us-east-1`.',
  ),
  AWS_DEFAULT_REGION: text().describe('Region used against a local endpoint when AWS_REGION is unset.'),
  AWS_ENDPOINT_URL_DYNAMODB: url().describe(
    'Endpoint of DynamoDB, e.g. `http://127.0.0.1:8000` for the tables of `npm start`. On this machine the region and credentials default to local dummies.',
  ),
  AWS_ENDPOINT_URL: url().describe('Endpoint of every AWS service; counts as local like AWS_ENDPOINT_URL_DYNAMODB when that is unset.'),
  AWS_ACCESS_KEY_ID: text().describe('Access key of the credentials. Unset against a local endpoint (and no AWS_PROFILE): a local dummy.'),
  AWS_PROFILE: text().describe('Profile of the shared AWS configuration; against a local endpoint it keeps the dummies away.'),
});

/** The queues of `redrive`; unset, each is the `npm start` queue of that name, found by name. */
export const adminQueuesSchema = z.object({
  INPUT_QUEUE_URL: text().describe('URL of the input queue, where `redrive input` moves dead letters back to. Unset: the local one.'),
  INPUT_DLQ_URL: text().describe("URL of the input queue's dead-letter queue, which `redrive input` empties. Unset: the local one."),
  DELIVERIES_QUEUE_URL: text().describe('URL of the deliveries queue, where `redrive deliveries` moves dead letters back to. Unset: the local one.'),
  DELIVERIES_DLQ_URL: text().describe("URL of the deliveries queue's dead-letter queue, which `redrive deliveries` empties. Unset: the local one."),
});

export const adminConfigSchema = resourcesSchema()
  .omit({ INPUT_QUEUE_NAME: true, DELIVERIES_QUEUE_URL: true, INPUT_DLQ_URL: true, DELIVERIES_DLQ_URL: true })
  .extend(adminQueuesSchema.shape)
  .extend({
    TELEGRAM_SECRET_ID: telegramSchema()
      .shape.TELEGRAM_SECRET_ID.clone()
      .describe('Secrets Manager id of the Telegram secret `{botToken, webhookSecret}`, which `register-telegram-webhook` reads.'),
  })
  .extend(adminAwsSchema.shape);

export type AdminConfig = z.infer<typeof adminConfigSchema>;

type Env = Record<string, string | undefined>;

/** Reads and checks every variable of the admin CLI; throws a ConfigError naming each malformed one. */
export function adminConfig(env?: Env): AdminConfig {
  return readConfig(adminConfigSchema, env);
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1', '0.0.0.0']);

export function isLocalEndpoint(config: Pick<AdminConfig, 'AWS_ENDPOINT_URL_DYNAMODB' | 'AWS_ENDPOINT_URL'>): boolean {
  const endpoint = config.AWS_ENDPOINT_URL_DYNAMODB ?? config.AWS_ENDPOINT_URL;
  return endpoint !== undefined && LOCAL_HOSTS.has(new URL(endpoint).hostname);
}

/**
 * Against a local DynamoDB (an endpoint on this machine), the AWS SDK still wants a region and credentials; any
 * will do, so the CLI fills in local dummies instead of failing with "Region is missing". Against AWS nothing is
 * filled in: the usual region and credential chain apply.
 */
export function localDefaults(config: AdminConfig): Record<string, string> {
  if (!isLocalEndpoint(config)) return {};
  return {
    ...(config.AWS_REGION ? {} : { AWS_REGION: config.AWS_DEFAULT_REGION ?? 'us-east-1' }),
    ...(config.AWS_ACCESS_KEY_ID || config.AWS_PROFILE ? {} : { AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' }),
  };
}

/** Hands values to the commands and the AWS SDK, which read them from the environment. */
export function setAdminEnvironment(values: Record<string, string>): void {
  Object.assign(process.env, values);
}

/**
 * Checks the environment and prepares it for the commands: `--region`, then the local dummies. Throws a
 * ConfigError naming each malformed variable.
 */
export function prepareAdminEnvironment(region: string | undefined): AdminConfig {
  if (region) setAdminEnvironment({ AWS_REGION: region });
  setAdminEnvironment(localDefaults(adminConfig()));
  return adminConfig();
}
