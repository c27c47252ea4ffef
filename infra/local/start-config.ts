import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as z from 'zod';
import { functionConfigSchemas, readConfig } from '../../shared/config';

/**
 * Every environment variable `npm start` reads, as one zod schema: its own (ports, switches, the data folder, a
 * real Telegram bot), those of the AWS SDK that the local runtime reads itself, and those of the functions it
 * runs in this process (shared/config.ts), so that a malformed value stops the start before anything runs.
 * docs/configuration.md lists them (`npm run docs:config`). The command line (`npm start -- --help`) wins
 * over the environment.
 */

const unsetIfBlank = (value: unknown) => (value === '' ? undefined : value);

const ON = ['1', 'true', 'yes', 'on'] as const;
const OFF = ['0', 'false', 'no', 'off'] as const;

/** A switch: 1/true/yes/on or 0/false/no/off, in any case; empty counts as unset. */
const onOff = (fallback: 'on' | 'off') =>
  z
    .preprocess((value) => (typeof value === 'string' && value !== '' ? value.toLowerCase() : undefined), z.enum([...ON, ...OFF]).default(fallback))
    .transform((value) => (ON as readonly string[]).includes(value));

const port = (fallback: number, min = 1) => z.preprocess(unsetIfBlank, z.coerce.number().int().min(min).max(65_535).default(fallback));
const text = () => z.preprocess(unsetIfBlank, z.string().optional());

export const startEnvSchema = z.object({
  FLEETWATCH_RESET: onOff('off').describe('Wipes the local data first (`--reset`).'),
  FLEETWATCH_SIMULATOR: onOff('on').describe('Drives the demo fleet (`--no-simulator` turns it off).'),
  FLEETWATCH_VEHICLES: z
    .preprocess(unsetIfBlank, z.coerce.number().int().min(1).max(100).default(3))
    .describe('Vehicles in the demo fleet (`--vehicles`); the demo rules get the fleet when first seeded, `--reset` re-seeds.'),
  FLEETWATCH_VERBOSE: onOff('off').describe("Also shows the functions' Powertools logs and metrics (`--verbose`)."),
  FLEETWATCH_DATA_DIR: text().describe(
    'Folder of the local data (DynamoDB Local, fauxqs). Default: `.local/` in the checkout. One instance at a time may use it.',
  ),
  FLEETWATCH_TELEGRAM_BOT_TOKEN: text().describe(
    'Bot token from @BotFather: alerts go to real Telegram chats. Unset: a local Telegram fake stands in for the Bot API.',
  ),
  FLEETWATCH_TELEGRAM_WEBHOOK_SECRET: text().describe(
    "Secret token of the bot's webhook, needed to register one. Unset: generated for each run (and never shown).",
  ),
  FLEETWATCH_API_PORT: port(3000).describe('Port of the HTTP API and the Telegram webhook, on 127.0.0.1.'),
  FLEETWATCH_SES_PORT: port(8005).describe('Port of SES (aws-ses-v2-local) and its web inbox, on 127.0.0.1.'),
  FLEETWATCH_TELEGRAM_FAKE_PORT: port(8081).describe('Port of the Telegram fake and its page, on 127.0.0.1.'),
  FLEETWATCH_WEBHOOK_PORT: port(0, 0).describe('Port of the demo webhook receiver, on 127.0.0.1; 0: any free port.'),
  FLEETWATCH_DYNAMODB_PORT: port(8000).describe('Port of DynamoDB Local, on all interfaces (it has no setting for loopback only).'),
  FLEETWATCH_SQS_PORT: port(9324).describe('Port of SQS (fauxqs), on all interfaces (it has no setting for loopback only).'),
});

/** The AWS SDK's variables that the local runtime reads itself, to build the events Lambda would send. */
export const localAwsSchema = z.object({
  AWS_REGION: z.preprocess(unsetIfBlank, z.string().default('us-east-1')).describe('Region named in local events and ARNs.'),
  AWS_ENDPOINT_URL_DYNAMODB: text().describe('Endpoint of DynamoDB; `npm start` sets it to DynamoDB Local.'),
  AWS_ENDPOINT_URL_DYNAMODB_STREAMS: text().describe('Endpoint of DynamoDB Streams. Default: AWS_ENDPOINT_URL_DYNAMODB.'),
  AWS_LAMBDA_MAX_CONCURRENCY: text().describe(
    "Set by the Lambda runtime for concurrent invocations, which scopes Powertools' state per invocation; the local runtime sets it to 10 when unset.",
  ),
});

/** Everything the `npm start` process reads, the functions it runs included. */
export const startConfigSchema = Object.values(functionConfigSchemas)
  .reduce((schema: z.ZodObject, next) => schema.extend(next.shape), z.object({}))
  .extend(localAwsSchema.shape)
  .extend(startEnvSchema.shape);

type Env = Record<string, string | undefined>;

/** The AWS settings the local runtime reads, from the environment. */
export function localAwsConfig(env?: Env): z.infer<typeof localAwsSchema> {
  return readConfig(localAwsSchema, env);
}

/**
 * Hands settings to the functions this process runs, as Lambda's environment would (the handlers and the AWS
 * SDK read them from there); `undefined` removes one.
 */
export function exportToFunctions(values: Record<string, string | undefined>, options: { keep?: boolean } = {}): void {
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[name];
    else if (!options.keep || process.env[name] === undefined) process.env[name] = value;
  }
}

export interface StartSettings {
  reset: boolean;
  simulator: boolean;
  vehicles: number;
  verbose: boolean;
  help: boolean;
  dataDir: string;
  /** The loopback Telegram fake instead of a real bot: with --telegram-fake, and whenever no bot token is set. */
  telegramFake: boolean;
  /** A real bot for local runs; the webhook secret is generated (and never shown) when not given. */
  telegram: { botToken: string; webhookSecret: string; webhookSecretGiven: boolean } | null;
  ports: { api: number; ses: number; dynamo: number; sqs: number; telegramFake: number; webhook: number };
}

export const PORTS = [
  { key: 'api', env: 'FLEETWATCH_API_PORT', what: 'the HTTP API' },
  { key: 'ses', env: 'FLEETWATCH_SES_PORT', what: 'SES' },
  { key: 'dynamo', env: 'FLEETWATCH_DYNAMODB_PORT', what: 'DynamoDB' },
  { key: 'sqs', env: 'FLEETWATCH_SQS_PORT', what: 'SQS' },
  { key: 'telegramFake', env: 'FLEETWATCH_TELEGRAM_FAKE_PORT', what: 'the Telegram fake' },
  { key: 'webhook', env: 'FLEETWATCH_WEBHOOK_PORT', what: 'the demo webhook receiver' },
] as const satisfies ReadonlyArray<{ key: keyof StartSettings['ports']; env: keyof z.infer<typeof startEnvSchema>; what: string }>;

/** A malformed command line; `npm start` prints it with the usage text. */
export class UsageError extends Error {}

const DEFAULT_DATA_DIR = fileURLToPath(new URL('../../.local', import.meta.url));

function commandLine(args: string[]) {
  try {
    return parseArgs({
      args,
      options: {
        reset: { type: 'boolean' },
        simulator: { type: 'boolean' },
        'no-simulator': { type: 'boolean' },
        vehicles: { type: 'string' },
        verbose: { type: 'boolean' },
        'telegram-fake': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function vehiclesOption(value: string): number {
  const parsed = startEnvSchema.shape.FLEETWATCH_VEHICLES.safeParse(value);
  if (!parsed.success) throw new UsageError(`--vehicles must be a whole number from 1 to 100, got "${value}"`);
  return parsed.data;
}

/**
 * Reads the command line and the environment (startConfigSchema); the command line wins. A malformed variable
 * throws a ConfigError naming it and what it takes, a malformed option a UsageError.
 */
export function readSettings(args: string[], env?: Env): StartSettings {
  const options = commandLine(args);
  const config = readConfig(startConfigSchema, env) as z.infer<typeof startEnvSchema>;
  const telegramFake = options['telegram-fake'] === true || config.FLEETWATCH_TELEGRAM_BOT_TOKEN === undefined;
  return {
    reset: options.reset ?? config.FLEETWATCH_RESET,
    simulator: options['no-simulator'] ? false : (options.simulator ?? config.FLEETWATCH_SIMULATOR),
    vehicles: options.vehicles === undefined ? config.FLEETWATCH_VEHICLES : vehiclesOption(options.vehicles),
    verbose: options.verbose ?? config.FLEETWATCH_VERBOSE,
    help: options.help ?? false,
    dataDir: config.FLEETWATCH_DATA_DIR ?? DEFAULT_DATA_DIR,
    telegramFake,
    telegram:
      !telegramFake && config.FLEETWATCH_TELEGRAM_BOT_TOKEN
        ? {
            botToken: config.FLEETWATCH_TELEGRAM_BOT_TOKEN,
            webhookSecret: config.FLEETWATCH_TELEGRAM_WEBHOOK_SECRET ?? randomBytes(24).toString('base64url'),
            webhookSecretGiven: config.FLEETWATCH_TELEGRAM_WEBHOOK_SECRET !== undefined,
          }
        : null,
    ports: Object.fromEntries(PORTS.map(({ key, env: name }) => [key, config[name]])) as StartSettings['ports'],
  };
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/**
 * Names every port that is already taken, with the variable that moves it. The Telegram fake's port counts only
 * when the fake runs, the webhook receiver's only when one is chosen (0 takes any free port).
 */
export async function checkPorts(ports: StartSettings['ports'], telegramFake = true): Promise<string[]> {
  const problems: string[] = [];
  for (const { key, env, what } of PORTS) {
    if ((key === 'telegramFake' && !telegramFake) || ports[key] === 0) continue;
    if (!(await portIsFree(ports[key]))) {
      problems.push(`port ${ports[key]} (${what}) is already in use: stop what uses it, or choose another port with ${env}=<port>`);
    }
  }
  return problems;
}
