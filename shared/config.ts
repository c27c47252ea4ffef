import * as z from 'zod';

/**
 * Every environment variable a fleetwatch function reads, as one zod schema per function, composed of shared
 * pieces. A missing or malformed value fails the function's start with a message naming the variable and what it
 * takes (`readConfig`). docs/configuration.md is generated from these schemas (`npm run docs:config`).
 * Not here: the AWS SDK's own variables (AWS_REGION, AWS_ENDPOINT_URL_<SERVICE>, credentials) and Powertools'
 * POWERTOOLS_* variables, which those libraries read and check themselves, except the two whose default
 * fleetwatch sets (observabilitySchema).
 */

/**
 * A part of the configuration, built on its first use and then kept: every function imports this module, and most
 * read a few of its parts (building all of them was a good share of a cold start's zod work).
 */
function part<Schema extends z.ZodObject>(build: () => Schema): () => Schema {
  return once(build);
}

/** A value built on its first use and then kept. */
function once<Value>(build: () => Value): () => Value {
  let value: Value | undefined;
  return () => (value ??= build());
}

/** An empty value counts as unset: CloudFormation parameters left blank arrive as empty strings. */
const unsetIfBlank = (value: unknown) => (value === '' ? undefined : value);

/**
 * The inner schemas the variables share, each built once (zod schemas are immutable): built again for each variable,
 * they were about a third of the zod work of the api's cold start.
 */
const optionalText = once(() => z.string().optional());
const nonEmptyText = once(() => z.string().min(1));
const wholeFrom = new Map<number, z.ZodCoercedNumber>();
const wholeAtLeast = (min: number) => wholeFrom.get(min) ?? wholeFrom.set(min, z.coerce.number().int().min(min)).get(min)!;

const text = () => z.preprocess(unsetIfBlank, optionalText());
const name = (fallback: string) => z.preprocess(unsetIfBlank, nonEmptyText().default(fallback));
const whole = (min: number, fallback: number) => z.preprocess(unsetIfBlank, wholeAtLeast(min).default(fallback));
const flag = () => z.preprocess(unsetIfBlank, z.enum(['true', 'false']).default('false')).transform((value) => value === 'true');

/**
 * Names of the DynamoDB tables and SQS queues. The CDK stack sets these on every function; the local runtime and
 * the tests set them for their emulators. Endpoints are never configured here: the AWS SDK reads
 * AWS_ENDPOINT_URL_<SERVICE> itself.
 */
export const resourcesSchema = part(() =>
  z.object({
    RULES_TABLE: name('fleetwatch-rules').describe('DynamoDB table of the notification rules.'),
    VEHICLE_STATE_TABLE: name('fleetwatch-vehicle-state').describe("DynamoDB table of each vehicle's rule state and clock."),
    ALERTS_TABLE: name('fleetwatch-alerts').describe('DynamoDB table of the alerts and their deliveries.'),
    DIRECTORY_TABLE: name('fleetwatch-directory').describe('DynamoDB table of clients, users, sessions, channels and webhook endpoints.'),
    GEOZONES_TABLE: name('fleetwatch-geozones').describe('DynamoDB table of the geozones.'),
    VISITS_TABLE: z
      .preprocess(unsetIfBlank, z.string().min(1).optional())
      .describe('DynamoDB table of geozone visits. Default: VEHICLE_STATE_TABLE with `vehicle-state` replaced by `visits`.'),
    DELIVERIES_QUEUE_URL: z.string().default('').describe('URL of the deliveries queue (alerts to deliver). Empty: nothing is enqueued.'),
    INPUT_DLQ_URL: z
      .string()
      .default('')
      .describe("URL of the input queue's dead-letter queue, where malformed terminal messages go with their reason."),
    DELIVERIES_DLQ_URL: z
      .string()
      .default('')
      .describe("URL of the deliveries queue's dead-letter queue, where malformed delivery requests go with their reason."),
    INPUT_QUEUE_NAME: z
      .string()
      .default('')
      .describe(
        'Name of the input queue, for its ApproximateAgeOfOldestMessage and NumberOfMessagesSent metrics (read by the sweep). Empty: not monitored.',
      ),
  }),
);

/** Powertools reads these itself too; fleetwatch only gives them its own default. */
export const observabilitySchema = part(() =>
  z.object({
    POWERTOOLS_SERVICE_NAME: name('fleetwatch').describe('Service name on every log line and metric (Powertools).'),
    POWERTOOLS_METRICS_NAMESPACE: name('fleetwatch').describe('CloudWatch namespace of the metrics (Powertools).'),
  }),
);

/**
 * How evaluate stores a vehicle's clock (the device time of the newest message evaluated, and last seen):
 * - `exact` (default): with every message that moves it, for a vehicle under rules, so that a late message is
 *   always judged against the newest one evaluated, and the sweep knows the last-seen exactly;
 * - `coalesced`: with rule-state changes and a heartbeat at most every 1 to 10 minutes. About half the DynamoDB
 *   writes, but a late message newer than the stored clock, within one heartbeat interval, is evaluated as current.
 */
export const vehicleClockSchema = z.enum(['exact', 'coalesced']);
export type VehicleClock = z.infer<typeof vehicleClockSchema>;

export const vehicleClockEnvSchema = part(() =>
  z.object({
    VEHICLE_CLOCK: z
      .preprocess(unsetIfBlank, vehicleClockSchema.default('exact'))
      .describe(
        "How evaluate stores each vehicle's clock: `exact` with every message that moves it, or `coalesced` with rule-state changes and a heartbeat (about half the writes; a late message within one heartbeat counts as current).",
      ),
  }),
);

/** Seconds a message may be old when evaluated for its events to become alerts, where a rule sets no `maxEventAge`. */
export const DEFAULT_MAX_EVENT_AGE_SECONDS = 900;

export const maxEventAgeSchema = part(() =>
  z.object({
    MAX_EVENT_AGE_SECONDS: whole(0, DEFAULT_MAX_EVENT_AGE_SECONDS).describe(
      "Seconds a terminal message may be old (its deviceTime against the time it is evaluated) for its events to become alerts, for rules without their own `settings.maxEventAge`; an older message's events are logged as `tooOld` instead. 0: any age. Set on evaluate and on the api function, whose rule preview judges the same way.",
    ),
  }),
);

// room for every rule and zone of a platform at the designed scale (about 21,000 rules and 10,000 zones, by
// the cache's own estimate), so a container that meets vehicles of every client reads each rule once
export const DEFAULT_RULE_CACHE_BYTES = 128 * 1024 * 1024;

export const ruleCacheSchema = part(() =>
  z.object({
    RULE_CACHE_BYTES: whole(1, DEFAULT_RULE_CACHE_BYTES).describe(
      'Bytes of compiled rules and geozones a warm function keeps in memory (least recently used go first).',
    ),
  }),
);

export const DEFAULT_OUTBOX_AGE_MS = 120_000;
export const DEFAULT_OUTBOX_MAX_ATTEMPTS = 10;

export const outboxSchema = part(() =>
  z.object({
    OUTBOX_AGE_MS: whole(0, DEFAULT_OUTBOX_AGE_MS).describe(
      'Milliseconds an alert stays pending before the sweep enqueues its delivery again (and between two re-enqueues).',
    ),
    OUTBOX_MAX_ATTEMPTS: whole(1, DEFAULT_OUTBOX_MAX_ATTEMPTS).describe(
      'Re-enqueues of a pending alert before the sweep gives up on it (marks it failed, logs an error).',
    ),
  }),
);

/**
 * When the sweep takes a mass silence for an interrupted feed (shared/sweep/feed-outage.ts) and holds
 * the connection-loss alerts it would raise, until the feed is back.
 */
export const DEFAULT_FEED_OUTAGE_SHARE = 0.5;
export const DEFAULT_FEED_OUTAGE_MIN_VEHICLES = 50;
export const DEFAULT_FEED_OUTAGE_GRACE_MINUTES = 5;

export const feedOutageSchema = part(() =>
  z.object({
    FEED_OUTAGE_SHARE: z
      .preprocess(unsetIfBlank, z.coerce.number().min(0).max(1).default(DEFAULT_FEED_OUTAGE_SHARE))
      .describe(
        "Share (0 to 1) of a client's vehicles falling silent within the same minute, or fall of the input queue's message rate, that the sweep takes for an interrupted feed: it raises one operations alarm and holds their connection-loss alerts until the feed is back. 0 turns the hold off.",
      ),
    FEED_OUTAGE_MIN_VEHICLES: whole(1, DEFAULT_FEED_OUTAGE_MIN_VEHICLES).describe(
      'Fewer vehicles than this falling silent at once are never taken for an interrupted feed: their connection-loss alerts go out at once.',
    ),
    FEED_OUTAGE_GRACE_MINUTES: whole(1, DEFAULT_FEED_OUTAGE_GRACE_MINUTES).describe(
      'Minutes after an interrupted feed is back before its held vehicles are judged again: those still silent then are reported.',
    ),
  }),
);

export type FeedOutageConfig = z.infer<ReturnType<typeof feedOutageSchema>>;

export const webhookTargetsSchema = part(() =>
  z.object({
    WEBHOOK_ALLOW_PRIVATE_TARGETS: flag().describe(
      '`true` lets webhooks reach loopback and private addresses over plain HTTP: for the local stack and tests only; the deployed stack never sets it.',
    ),
  }),
);

export const publicLinksSchema = part(() =>
  z.object({
    PUBLIC_API_URL: text().describe(
      "Base of the public links in notifications (address confirmation, one-click unsubscribe, the alert's page, mute, the short link of alert SMS): the HTTP API's `/api/v3/` URL, set by the stack (its ApiUrl, or the context value publicApiUrl), and by `npm start` to its own API when unset. Default: the local API, `http://127.0.0.1:<FLEETWATCH_API_PORT>/api/v3/`.",
    ),
    FLEETWATCH_API_PORT: z
      .preprocess(unsetIfBlank, z.coerce.number().int().min(1).max(65_535).default(3000))
      .describe('Port of the local HTTP API, for the default PUBLIC_API_URL.'),
  }),
);

export const templatesSchema = part(() =>
  z.object({
    TEMPLATES_DIR: text().describe(
      'Folder of the message templates. Default: shared/templates next to the code (the stack bundles them at /var/task/templates).',
    ),
  }),
);

export const phonePlanSchema = part(() =>
  z.object({
    PHONE_PLAN_FILE: text().describe(
      "File of the mobile numbering plan that users' phone numbers are checked against and SMS tell their country by (libphonenumber-js's metadata.mobile.json), read with the first number. Default: the installed libphonenumber-js's (the stack copies it beside the bundles, at /var/task/phone-plan.json).",
    ),
  }),
);

/** scrypt's cost N for new password hashes, with r=8 and p=1: OWASP's recommendation (128 MiB per hash). */
export const DEFAULT_PASSWORD_SCRYPT_N = 2 ** 17;
const LEAST_PASSWORD_SCRYPT_N = 2 ** 10;
const MOST_PASSWORD_SCRYPT_N = 2 ** 18;

export const passwordSchema = part(() =>
  z.object({
    PASSWORD_SCRYPT_N: whole(LEAST_PASSWORD_SCRYPT_N, DEFAULT_PASSWORD_SCRYPT_N)
      .refine((n) => n <= MOST_PASSWORD_SCRYPT_N && (n & (n - 1)) === 0, {
        error: `must be a power of two from ${LEAST_PASSWORD_SCRYPT_N} to ${MOST_PASSWORD_SCRYPT_N}`,
      })
      // about half a second of CPU per hash: the test suite's few hundred logins would spend minutes on it, and
      // nothing but a test may save that at the cost of weaker hashes
      .refine((n) => n >= DEFAULT_PASSWORD_SCRYPT_N || process.env.NODE_ENV === 'test', {
        error: `may be below ${DEFAULT_PASSWORD_SCRYPT_N} only where NODE_ENV=test`,
      })
      .describe(
        `scrypt's cost N (r=8, p=1) of the password hashes the API makes, a power of two. Default ${DEFAULT_PASSWORD_SCRYPT_N} (2^17, OWASP's recommendation: 128 MiB and about half a second of CPU per hash); up to 2^18. Lower values are refused unless NODE_ENV=test: the test suite hashes at 1024. A stored hash of a lower cost than this is replaced at its user's next login.`,
      ),
  }),
);

export const DEFAULT_FROM_ADDRESS = 'alerts@fleetwatch.local';

export const emailSchema = part(() =>
  z.object({
    SES_FROM_ADDRESS: name(DEFAULT_FROM_ADDRESS).describe('Sender address of every e-mail (a verified SES identity).'),
    SES_CONFIGURATION_SET: text().describe(
      'SES configuration set named on every e-mail (its event destination reports bounces and complaints). Unset: none.',
    ),
    SES_SEND_RATE_PER_FUNCTION: z
      .preprocess(unsetIfBlank, z.coerce.number().positive().optional())
      .describe("E-mails per second one function instance may send (the stack sets its share of the account's SES quota). Unset: unpaced."),
  }),
);

export const DEFAULT_SES_QUOTA_CACHE_SECONDS = 60;
export const DEFAULT_EMAIL_DIGEST_AT_PERCENT = 90;
export const DEFAULT_EMAIL_DIGEST_INTERVAL_MINUTES = 30;

/** The account's SES daily sending quota, as the deliver function watches it (see docs/operations.md). */
export const emailQuotaSchema = part(() =>
  z.object({
    SES_QUOTA_CACHE_SECONDS: z
      .preprocess(unsetIfBlank, z.coerce.number().int().min(1).default(DEFAULT_SES_QUOTA_CACHE_SECONDS))
      .describe(
        "Seconds one deliver function instance trusts the account's SES quota (SESv2 GetAccount) before reading it again; between two reads it adds its own sends.",
      ),
    EMAIL_DIGEST_AT_PERCENT: z
      .preprocess(unsetIfBlank, z.coerce.number().min(1).max(100).default(DEFAULT_EMAIL_DIGEST_AT_PERCENT))
      .describe(
        "Share of the account's SES 24-hour quota (percent) used from which alert e-mails are held and merged into one digest per recipient instead of going out one by one.",
      ),
    EMAIL_DIGEST_INTERVAL_MINUTES: z
      .preprocess(unsetIfBlank, z.coerce.number().int().min(1).default(DEFAULT_EMAIL_DIGEST_INTERVAL_MINUTES))
      .describe("Minutes between a recipient's first held alert e-mail and its digest, and between two tries while the quota is spent."),
  }),
);

export const telegramSchema = part(() =>
  z.object({
    TELEGRAM_SECRET_ID: text().describe(
      'Secrets Manager id of the Telegram secret `{botToken, webhookSecret}`. Unset: Telegram deliveries fail as not configured.',
    ),
    TELEGRAM_API_ROOT: z
      .preprocess(unsetIfBlank, z.url().optional())
      .describe("Root URL of the Telegram Bot API. Unset: grammy's default, https://api.telegram.org."),
    TELEGRAM_BOT_USERNAME: text().describe(
      'Username of the bot, for t.me links that connect a chat. Unset: the API answers that Telegram is not configured.',
    ),
  }),
);

export const pushSchema = part(() =>
  z.object({
    PUSH_FCM_APPLICATION_ARN: text().describe(
      'ARN of the SNS platform application for Firebase (Android) devices. Unset: FCM registration answers that push is not configured.',
    ),
    PUSH_APNS_APPLICATION_ARN: text().describe(
      'ARN of the SNS platform application for APNs (iOS) devices. Unset: APNs registration answers that push is not configured.',
    ),
  }),
);

const countryList = () =>
  z
    .preprocess((value) => (value === undefined ? '' : value), z.string())
    .transform((value) =>
      value
        .split(',')
        .map((code) => code.trim().toUpperCase())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(/^[A-Z]{2}$/, 'ISO 3166-1 alpha-2 country codes, comma-separated')));

export const DEFAULT_SMS_CODES_PER_NUMBER_PER_DAY = 3;
export const DEFAULT_SMS_CODES_PER_CLIENT_PER_DAY = 20;

/** SMS through AWS End User Messaging SMS (docs/deploy.md, "SMS"). */
export const smsSchema = part(() =>
  z.object({
    SMS_COUNTRIES: countryList().describe(
      'Countries SMS may go to, as ISO 3166-1 alpha-2 codes separated by commas (CDK context `smsCountries`). Empty (the default): SMS is off, and a phoneNumber is refused.',
    ),
    SMS_ORIGINATION_IDENTITY: text().describe(
      'The origination identity SMS are sent from: a phone number, sender id or pool, by id or ARN. Unset: SMS deliveries fail as not configured.',
    ),
    SMS_CONFIGURATION_SET: text().describe('The End User Messaging SMS configuration set whose event destination reports delivery outcomes.'),
    SMS_MAX_PRICE: z
      .preprocess(
        unsetIfBlank,
        z
          .string()
          .regex(/^\d+(\.\d+)?$/)
          .default('0.10'),
      )
      .describe('Most an SMS may cost per segment, in US dollars (the service refuses a send above it).'),
    SMS_TTL_MINUTES: whole(1, 30).describe(
      'Minutes an SMS may wait for its carrier before it expires unsent: an alert hours late is worse than none.',
    ),
    SMS_MONTHLY_CAP_USD: z
      .preprocess(unsetIfBlank, z.coerce.number().min(0).default(50))
      .describe(
        "Estimated SMS spend one client may reach per calendar month (UTC), in US dollars (CDK context `smsMonthlyCapUsd`); past it the client's SMS stop until the next month.",
      ),
    SMS_PRICES: z
      .preprocess(unsetIfBlank, z.string().default('{}'))
      .describe(
        'Prices per SMS segment by destination country, as JSON `{"AZ": 0.25}` in US dollars (CDK context `smsPrices`), over the built-in table (shared/channels/sms/prices.ts); they estimate spend against the cap.',
      ),
    SMS_CODES_PER_NUMBER_PER_DAY: whole(1, DEFAULT_SMS_CODES_PER_NUMBER_PER_DAY).describe(
      'Verification codes one phone number may be sent per UTC day.',
    ),
    SMS_CODES_PER_CLIENT_PER_DAY: whole(1, DEFAULT_SMS_CODES_PER_CLIENT_PER_DAY).describe(
      "Verification codes one client's users may be sent per UTC day, all numbers together.",
    ),
  }),
);
export type SmsConfig = z.infer<ReturnType<typeof smsSchema>>;

export const DEFAULT_CONFIRMATIONS_PER_CLIENT_PER_DAY = 50;
export const DEFAULT_CONFIRMATION_FEEDBACK_STOP = 5;

export const senderSchema = part(() =>
  z.object({
    CONFIRMATIONS_PER_CLIENT_PER_DAY: whole(1, DEFAULT_CONFIRMATIONS_PER_CLIENT_PER_DAY).describe(
      'Confirmation e-mails to side addresses one client may have sent per UTC day; past it they wait for the next day (the sweep sends them then).',
    ),
    CONFIRMATION_FEEDBACK_STOP: whole(1, DEFAULT_CONFIRMATION_FEEDBACK_STOP).describe(
      "Permanent bounces and complaints on one client's confirmation e-mails within one UTC day that stop its confirmations until an operator clears them (`npm run admin -- confirmation-stops`).",
    ),
  }),
);

export const deliverSchema = part(() =>
  z.object({
    DELIVERIES_MAX_RECEIVE_COUNT: whole(1, 5).describe(
      "The deliveries queue's maxReceiveCount, a safety net for crashed invocations and not the retry budget (each target has 8 attempts over about 27 hours): on that receive an alert that still has to wait waits for the sweep rather than on the queue, so the queue never dead-letters it.",
    ),
  }),
);

/**
 * Per-client and per-caller limits of the API, each with its default and meaning. Each can be overridden by an
 * environment variable of the same name in upper snake case with a `LIMIT_` prefix (`LIMIT_RULES_PER_CLIENT`).
 */
export const LIMITS = {
  rulesPerClient: { value: 1_000, meaning: 'Notification rules one client may own (its own, not counting clients below it).' },
  vehicleIdsPerRule: { value: 5_000, meaning: 'Vehicle ids one rule may list.' },
  webhooksPerClient: { value: 10, meaning: 'Webhook endpoints one client may register (its own, not counting clients below it).' },
  geozonesPerClient: { value: 2_000, meaning: 'Geozones one client may own.' },
  silencesPerClient: {
    value: 100,
    meaning: 'Maintenance silences one client may hold (its own, until 7 days after each ended); evaluation reads them all every 30 s.',
  },
  rotasPerClient: { value: 50, meaning: 'On-call rotas one client may own (its own, not counting clients below it).' },
  verticesPerGeozone: { value: 20_000, meaning: "Vertices of one geozone's geometry, all rings together." },
  geozoneGeometryBytes: { value: 300_000, meaning: "Bytes of one geozone's geometry as JSON (a DynamoDB item holds at most 400 KB)." },
  apiRequestsPerClientPerMinute: {
    value: 600,
    meaning: 'API requests of all users of one client within one minute (besides one request per second per session).',
  },
  testAlertsPerClientPerHour: {
    value: 10,
    meaning: 'Test alerts (`POST /api/v3/notifications/{id}/test`) of all users of one client within one hour.',
  },
  webhookRecoveriesPerClientPerHour: {
    value: 5,
    meaning: 'Webhook recoveries (`POST /api/v3/webhooks/{id}/recover`) of all users of one client within one hour, all endpoints together.',
  },
  unconfirmedSideEmailsPerClient: {
    value: 100,
    meaning: 'Side addresses (mailboxes) of one client that were named by its rules and have not confirmed yet; a save past it is refused.',
  },
  loginFreeAttemptsPerAddress: {
    value: 5,
    meaning: 'Failed logins of one login from one address before each further attempt must wait (1 s, doubling).',
  },
  loginFreeAttemptsPerIp: { value: 20, meaning: 'Failed logins from one address, over all logins, before each further attempt must wait.' },
  loginMaxDelayMs: { value: 15 * 60_000, meaning: 'Longest wait imposed on a login attempt, in milliseconds.' },
} as const;

export type LimitName = keyof typeof LIMITS;

export const limitEnvName = (key: string) => `LIMIT_${key.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}`;

export const limitsSchema = part(() =>
  z.object(
    Object.fromEntries(Object.entries(LIMITS).map(([key, { value, meaning }]) => [limitEnvName(key), whole(1, value).describe(meaning)])) as Record<
      string,
      ReturnType<typeof whole>
    >,
  ),
);

/** The one limit the Telegram function applies: the silences its alerts' mute buttons make count against the client's. */
export const silenceLimitSchema = part(() =>
  z.object({
    LIMIT_SILENCES_PER_CLIENT: whole(1, LIMITS.silencesPerClient.value).describe(LIMITS.silencesPerClient.meaning),
  }),
);

export const alertLinkSchema = part(() =>
  z.object({
    ALERT_LINK_SECRET_ID: text().describe(
      "Secrets Manager id of the key that signs the links of alert e-mails and push notifications (the alert's page, mute) (the stack generates it; the local runtime generates one per start). Unset: a fixed key, for tests only.",
    ),
  }),
);

export const apiSchema = part(() =>
  z.object({
    HISTORY_TOKEN_SECRET_ID: text().describe(
      "Secrets Manager id of the key that signs the history endpoint's `nextToken` (the stack generates it; the local runtime generates one per start). Unset: a fixed key, for tests only.",
    ),
    RATE_LIMIT_INTERVAL_MS: whole(0, 1000).describe(
      "Minimum milliseconds between two requests of one session (the platform API's limit); 0 turns it off.",
    ),
    GEOCODER: z
      .preprocess(unsetIfBlank, z.enum(['amazon-location', 'none']).default('none'))
      .describe(
        '`amazon-location` geocodes the address of address rules written without coordinates (set by the stack unless `-c geocoding=false`); `none`: the API asks for coordinates.',
      ),
  }),
);

/** The schema of each function: what its code reads, piece by piece. */
const everyFunctionSchema = () => resourcesSchema().extend(observabilitySchema().shape);

const composeFunctionConfigSchemas = {
  api: () =>
    everyFunctionSchema()
      .extend(apiSchema().shape)
      .extend(passwordSchema().shape)
      .extend(alertLinkSchema().shape)
      .extend(vehicleClockEnvSchema().shape)
      .extend(maxEventAgeSchema().shape)
      .extend(templatesSchema().shape)
      .extend(limitsSchema().shape)
      .extend(webhookTargetsSchema().shape)
      .extend(telegramSchema().shape)
      .extend(pushSchema().shape)
      .extend(smsSchema().shape)
      .extend(phonePlanSchema().shape),
  evaluate: () => everyFunctionSchema().extend(vehicleClockEnvSchema().shape).extend(maxEventAgeSchema().shape).extend(ruleCacheSchema().shape),
  deliver: () =>
    everyFunctionSchema()
      .extend(deliverSchema().shape)
      .extend(senderSchema().shape)
      .extend(webhookTargetsSchema().shape)
      .extend(publicLinksSchema().shape)
      .extend(alertLinkSchema().shape)
      .extend(templatesSchema().shape)
      .extend(emailSchema().shape)
      .extend(emailQuotaSchema().shape)
      .extend(telegramSchema().shape)
      .extend(pushSchema().shape)
      .extend(smsSchema().shape)
      .extend(phonePlanSchema().shape),
  sweep: () =>
    everyFunctionSchema()
      .extend(vehicleClockEnvSchema().shape)
      .extend(ruleCacheSchema().shape)
      .extend(outboxSchema().shape)
      .extend(emailQuotaSchema().pick({ EMAIL_DIGEST_INTERVAL_MINUTES: true }).shape)
      .extend(feedOutageSchema().shape),
  project: () => everyFunctionSchema(),
  telegram: () => everyFunctionSchema().extend(telegramSchema().shape).extend(templatesSchema().shape).extend(silenceLimitSchema().shape),
} as const;

type FunctionConfigSchemas = { readonly [Fn in keyof typeof composeFunctionConfigSchemas]: ReturnType<(typeof composeFunctionConfigSchemas)[Fn]> };

// each composed on first read: a function's cold start builds its own schema, not all six
const composedFunctionConfigSchemas: Partial<Record<keyof FunctionConfigSchemas, z.ZodObject>> = {};
export const functionConfigSchemas = Object.defineProperties(
  {},
  Object.fromEntries(
    Object.entries(composeFunctionConfigSchemas).map(([fn, compose]) => [
      fn,
      { enumerable: true, get: () => (composedFunctionConfigSchemas[fn as keyof FunctionConfigSchemas] ??= compose()) },
    ]),
  ),
) as FunctionConfigSchemas;

export type FunctionName = keyof typeof functionConfigSchemas;

/** A missing or malformed configuration value; the message names each variable, what it takes and what it got. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/**
 * What is wrong with `input` by `schema`, one line per variable: its name and value as `display` shows them, what
 * zod expected, and the variable's meaning.
 */
export function configProblems(schema: z.ZodObject, error: z.ZodError, display: (key: string) => string): string[] {
  return error.issues.map((issue) => {
    const key = String(issue.path[0] ?? '');
    const meaning = (schema.shape as Record<string, z.ZodType>)[key]?.description;
    return `${display(key)}: ${issue.message}${meaning ? ` (${meaning})` : ''}`;
  });
}

/** Parses `env` with `schema`, or throws a ConfigError naming every bad variable, its value and its meaning. */
export function readConfig<Schema extends z.ZodObject>(schema: Schema, env: Env = process.env): z.infer<Schema> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const display = (key: string) => `${key}=${env[key] === undefined ? '(unset)' : JSON.stringify(env[key])}`;
  throw new ConfigError(`invalid configuration: ${configProblems(schema, parsed.error, display).join('; ')}`);
}

/** Checks the whole configuration of one function; its handler calls this at cold start. */
export function checkFunctionConfig(fn: FunctionName, env?: Env): void {
  readConfig(functionConfigSchemas[fn], env);
}

export type ResourcesConfig = Omit<z.infer<ReturnType<typeof resourcesSchema>>, 'VISITS_TABLE'> & { VISITS_TABLE: string };

export function resourcesConfig(env?: Env): ResourcesConfig {
  const parsed = readConfig(resourcesSchema(), env);
  const state = parsed.VEHICLE_STATE_TABLE;
  const derived = state.endsWith('vehicle-state') ? `${state.slice(0, -'vehicle-state'.length)}visits` : `${state}-visits`;
  return { ...parsed, VISITS_TABLE: parsed.VISITS_TABLE ?? derived };
}

export function vehicleClockConfig(env?: Env): VehicleClock {
  return readConfig(vehicleClockEnvSchema(), env).VEHICLE_CLOCK;
}

export function maxEventAgeConfig(env?: Env): number {
  return readConfig(maxEventAgeSchema(), env).MAX_EVENT_AGE_SECONDS;
}

export function feedOutageConfig(env?: Env): FeedOutageConfig {
  return readConfig(feedOutageSchema(), env);
}

export function smsConfig(env?: Env): SmsConfig {
  return readConfig(smsSchema(), env);
}
