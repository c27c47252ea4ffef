import * as z from 'zod';
import type { Construct } from 'constructs';
import {
  ConfigError,
  configProblems,
  DEFAULT_FEED_OUTAGE_MIN_VEHICLES,
  DEFAULT_FEED_OUTAGE_SHARE,
  DEFAULT_MAX_EVENT_AGE_SECONDS,
  vehicleClockSchema,
} from '../shared/config';
import { DEFAULT_SES_MAX_SEND_RATE } from './constructs/delivery-pacing';
import { TABLES, type TableDefinition } from '../shared/store/tables';

/**
 * Evaluate takes up to 10 messages per invocation in a few tens of milliseconds; 100 at once keeps up with
 * about ten thousand messages a second, far above a 100,000-vehicle fleet reporting every 10 s, and leaves the
 * rest of a default 1,000 account limit to the other functions.
 */
export const DEFAULT_EVALUATE_MAX_CONCURRENCY = 100;
/**
 * None by default: Lambda refuses any reservation that leaves an account fewer than 100 unreserved, and a new
 * account's limit is 10, so a default that reserves would not deploy there. `npm run preflight` checks a value
 * given with `-c apiReservedConcurrency` against the account's limit.
 */
export const DEFAULT_API_RESERVED_CONCURRENCY = 0;
/**
 * Provisioned vehicle-state capacity, per table and index, read and write alike: 5 units idle (a few hundred
 * vehicles reporting every 30 s), up to 4,000: a catch-up writes that many vehicle items a second at most, and what
 * evaluate could write beyond it waits on the input queue (docs/deploy.md).
 */
export const DEFAULT_VEHICLE_STATE_MIN_CAPACITY = 5;
export const DEFAULT_VEHICLE_STATE_MAX_CAPACITY = 4000;

/**
 * The CDK context keys of a deployment (`cdk deploy -c key=value`, or `context` in cdk.json), as one zod schema.
 * On the command line every value is a string; in cdk.json it may be a JSON boolean or number, so each is read
 * as its text. docs/configuration.md lists them (`npm run docs:config`).
 */
const asText = (value: unknown) => (typeof value === 'boolean' || typeof value === 'number' ? String(value) : value === '' ? undefined : value);

/** The indexes whose projection this version changed; an installation created before moves them one at a time. */
export const CHANGED_INDEXES = (Object.values(TABLES) as TableDefinition[]).flatMap((table) =>
  table.indexes.filter((index) => index.before !== undefined).map((index) => index.indexName),
);

/** A comma-separated list of changed indexes, empty by default. */
const changedIndexList = () =>
  z.preprocess(
    (value) =>
      typeof value === 'string'
        ? value
            .split(',')
            .map((name) => name.trim())
            .filter(Boolean)
        : (value ?? []),
    z.array(z.enum(CHANGED_INDEXES as [string, ...string[]])),
  );

const onOff = (fallback: 'true' | 'false') =>
  z.preprocess(asText, z.enum(['true', 'false']).default(fallback)).transform((value) => value === 'true');

export const contextSchema = z.object({
  stackName: z
    .preprocess(asText, z.string().min(1).default('Fleetwatch'))
    .describe('Name of the CloudFormation stack (infra/app.ts); several installations in one account take different names.'),
  geocoding: onOff('true').describe(
    '`false` turns off the geocoding of address rules written without coordinates (no Amazon Location permission; the API then asks for coordinates).',
  ),
  vehicleClock: z
    .preprocess(asText, vehicleClockSchema.default('exact'))
    .describe(
      "How evaluate stores each vehicle's clock: `exact`, or `coalesced` (about half the DynamoDB writes of `exact`, with a window in which a late message counts as current). Sets VEHICLE_CLOCK on evaluate, the sweep and the api function (whose rule preview replays vehicles the same way).",
    ),
  maxEventAgeSeconds: z
    .preprocess(asText, z.coerce.number().int().min(0).default(DEFAULT_MAX_EVENT_AGE_SECONDS))
    .describe(
      'Seconds a terminal message may be old (its deviceTime against when evaluate takes it) for its events to become alerts, for rules without their own `settings.maxEventAge`; older ones are logged as `tooOld`. `0`: any age. Sets MAX_EVENT_AGE_SECONDS on evaluate and the api function (whose rule preview judges the same way).',
    ),
  sesMaxSendRate: z
    .preprocess(asText, z.coerce.number().min(1).default(DEFAULT_SES_MAX_SEND_RATE))
    .describe(
      "The account's SES maximum send rate (e-mails per second; SES's first production quota is 14), shared out between the deliver function's instances: it sets their maximum concurrency and SES_SEND_RATE_PER_FUNCTION.",
    ),
  evaluateMaxConcurrency: z
    .preprocess(asText, z.coerce.number().int().min(2).max(1000).default(DEFAULT_EVALUATE_MAX_CONCURRENCY))
    .describe(
      "At most this many evaluate functions at once (the input event source's maximum concurrency, 2 to 1,000), so a backlog of terminal messages cannot take the concurrency the API, deliver and the sweep need; a backlog then waits on the queue, and its age shows in the `InputBacklogAlarm`.",
    ),
  deliverMaxConcurrency: z
    .preprocess(asText, z.coerce.number().int().min(2).max(1000).optional())
    .describe(
      'At most this many deliver functions at once (2 to 1,000); unset, it follows from `sesMaxSendRate`, and a value above that is lowered to it, so e-mail stays under the SES send rate.',
    ),
  apiReservedConcurrency: z
    .preprocess(asText, z.coerce.number().int().min(0).max(1000).default(DEFAULT_API_RESERVED_CONCURRENCY))
    .describe(
      "Concurrency reserved for the api function (and its ceiling), so that no backlog elsewhere can starve the HTTP API; `0` (the default) reserves none, which deploys on any account. Lambda keeps 100 of the account's concurrency unreserved, so a reservation needs an account limit of at least 100 plus it (new accounts have 10): `npm run preflight -- -c apiReservedConcurrency=<n>` checks it. 20 suits a busy console and integrators at one request a second per session.",
    ),
  vehicleStateCapacity: z
    .preprocess(asText, z.enum(['onDemand', 'provisioned']).default('onDemand'))
    .describe(
      'How the vehicle-state table and its indexes are billed: `onDemand` (per request), or `provisioned`, with autoscaling between `vehicleStateMinCapacity` and `vehicleStateMaxCapacity` units at 70% target utilisation; throttled writes then wait on the input queue and are redelivered (docs/deploy.md).',
    ),
  vehicleStateMinCapacity: z
    .preprocess(asText, z.coerce.number().int().min(1).default(DEFAULT_VEHICLE_STATE_MIN_CAPACITY))
    .describe(
      'With `vehicleStateCapacity=provisioned`: the fewest read and write units autoscaling leaves the vehicle-state table and each of its indexes.',
    ),
  vehicleStateMaxCapacity: z
    .preprocess(asText, z.coerce.number().int().min(1).max(40_000).default(DEFAULT_VEHICLE_STATE_MAX_CAPACITY))
    .describe(
      'With `vehicleStateCapacity=provisioned`: the most read and write units autoscaling gives the vehicle-state table and each of its indexes (at least `vehicleStateMinCapacity`).',
    ),
  indexesAsBefore: changedIndexList().describe(
    `Upgrade only (docs/deploy.md): indexes still built with their earlier projection, comma-separated (${CHANGED_INDEXES.map((name) => `\`${name}\``).join(', ')}).`,
  ),
  indexesLeftOut: changedIndexList().describe(
    'Upgrade only (docs/deploy.md): indexes left out for one deploy, so that the next creates them anew; their readers fail meanwhile.',
  ),
  feedOutageShare: z
    .preprocess(asText, z.coerce.number().min(0).max(1).default(DEFAULT_FEED_OUTAGE_SHARE))
    .describe(
      "Share (0 to 1) of a client's vehicles falling silent within the same minute, or fall of the input queue's message rate, that the sweep takes for an interrupted feed: one `FeedInterruptedAlarm` instead of a connection-loss alert per vehicle. `0` turns the hold off. Sets FEED_OUTAGE_SHARE on the sweep.",
    ),
  feedOutageMinVehicles: z
    .preprocess(asText, z.coerce.number().int().min(1).default(DEFAULT_FEED_OUTAGE_MIN_VEHICLES))
    .describe('Fewer vehicles than this falling silent at once are never taken for an interrupted feed. Sets FEED_OUTAGE_MIN_VEHICLES on the sweep.'),
  smsCountries: z
    .preprocess(
      asText,
      z
        .string()
        .regex(/^([A-Za-z]{2}(\s*,\s*[A-Za-z]{2})*)?$/, 'ISO 3166-1 alpha-2 codes, comma-separated')
        .default(''),
    )
    .describe(
      'Countries SMS may go to, comma-separated ISO 3166-1 alpha-2 codes (`AZ,GE`). Empty (the default): SMS is off, and a phoneNumber is refused. Sets SMS_COUNTRIES on deliver and the api function.',
    ),
  smsOriginationIdentity: z
    .preprocess(
      asText,
      z
        .string()
        .regex(/^(arn:aws[a-z-]*:sms-voice:[a-z0-9-]+:\d{12}:(phone-number|pool|sender-id)\/.+)?$/, 'the ARN of a phone number, pool or sender id')
        .default(''),
    )
    .describe(
      'The ARN of the End User Messaging SMS origination identity (phone number, pool or sender id) SMS are sent from; the deliver role may send from it only. Needed with smsCountries (docs/deploy.md, "SMS").',
    ),
  smsMonthlyCapUsd: z
    .preprocess(asText, z.coerce.number().min(0).default(50))
    .describe(
      "Estimated SMS spend per client and calendar month, in US dollars; past it the client's SMS stop until the next month. Sets SMS_MONTHLY_CAP_USD.",
    ),
  smsPrices: z
    .preprocess(asText, z.string().default('{}'))
    .describe('Prices per SMS segment by country over the built-in table, as JSON (`{"AZ":0.25}`). Sets SMS_PRICES.'),
  publicApiUrl: z
    .preprocess(
      asText,
      z
        .string()
        .regex(/^(https:\/\/[A-Za-z0-9.-]+(:\d+)?\/api\/v3\/?)?$/, 'an https URL ending in /api/v3')
        .default(''),
    )
    .describe(
      'Base of the public links in notifications when the API has a custom domain (`https://fw.example.az/api/v3`): a short host lets an alert SMS in Russian or Azerbaijani keep its short link (docs/deploy.md, "SMS"). Empty (the default): the ApiUrl output. Sets PUBLIC_API_URL on deliver.',
    ),
  throwaway: onOff('false').describe(
    '`true` for test stacks only: `cdk destroy` then removes everything, the tables included (no deletion protection, no retention), log groups, the secret and keys.',
  ),
});

export type StackContext = z.infer<typeof contextSchema>;

/** How each changed index is built during an upgrade: with its earlier projection (`asBefore`), or not at all (`absent`). */
export type IndexPhase = 'asBefore' | 'absent';

export function indexUpgrade(context: StackContext): Map<string, IndexPhase> {
  const both = context.indexesAsBefore.filter((name) => context.indexesLeftOut.includes(name));
  if (both.length > 0) throw new ConfigError(`invalid CDK context: ${both.join(', ')} both in -c indexesAsBefore and -c indexesLeftOut`);
  return new Map([
    ...context.indexesAsBefore.map((name) => [name, 'asBefore'] as const),
    ...context.indexesLeftOut.map((name) => [name, 'absent'] as const),
  ]);
}

/** The capacity choice of the vehicle-state table, as the data tables take it. */
export type VehicleStateCapacity = { mode: 'onDemand' } | { mode: 'provisioned'; minCapacity: number; maxCapacity: number };

export function vehicleStateCapacity(context: StackContext): VehicleStateCapacity {
  if (context.vehicleStateCapacity === 'onDemand') return { mode: 'onDemand' };
  if (context.vehicleStateMaxCapacity < context.vehicleStateMinCapacity) {
    throw new ConfigError(
      `invalid CDK context: -c vehicleStateMaxCapacity=${context.vehicleStateMaxCapacity} is below -c vehicleStateMinCapacity=${context.vehicleStateMinCapacity}`,
    );
  }
  return { mode: 'provisioned', minCapacity: context.vehicleStateMinCapacity, maxCapacity: context.vehicleStateMaxCapacity };
}

/** Reads and checks every context key; a malformed one fails the synthesis, naming the key and what it takes. */
export function stackContext(scope: Construct): StackContext {
  const input = Object.fromEntries(Object.keys(contextSchema.shape).map((key) => [key, scope.node.tryGetContext(key) as unknown]));
  const parsed = contextSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const display = (key: string) => `-c ${key}=${JSON.stringify(input[key])}`;
  throw new ConfigError(`invalid CDK context: ${configProblems(contextSchema, parsed.error, display).join('; ')}`);
}
