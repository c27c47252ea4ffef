import * as z from 'zod';

/**
 * Per-client and per-caller limits of the API, in one place. Each can be overridden by an environment
 * variable of the same name in upper snake case with a `LIMIT_` prefix (for example `LIMIT_RULES_PER_CLIENT`).
 * Every limit answers a clear 400 (a size or count) or 429 (a rate), never a 500.
 */
export const DEFAULT_LIMITS = {
  /** Notification rules one client may own (its own, not counting clients below it). */
  rulesPerClient: 1_000,
  /** Vehicle ids one rule may list. */
  vehicleIdsPerRule: 5_000,
  /** Webhook endpoints one client may register (its own, not counting clients below it). */
  webhooksPerClient: 10,
  /** Geozones one client may own. */
  geozonesPerClient: 2_000,
  /** Vertices of one geozone's geometry, all rings together. */
  verticesPerGeozone: 20_000,
  /** Bytes of one geozone's geometry as JSON; a DynamoDB item holds at most 400 KB. */
  geozoneGeometryBytes: 300_000,
  /** API requests of all users of one client within one minute (besides one request per second per session). */
  apiRequestsPerClientPerMinute: 600,
  /** Failed logins of one login from one address before each further attempt must wait (1 s, doubling). */
  loginFreeAttemptsPerAddress: 5,
  /** Failed logins from one address, over all logins, before each further attempt must wait. */
  loginFreeAttemptsPerIp: 20,
  /** Longest wait imposed on a login attempt. */
  loginMaxDelayMs: 15 * 60_000,
} as const;

export type Limits = { -readonly [K in keyof typeof DEFAULT_LIMITS]: number };

const envName = (key: string) => `LIMIT_${key.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}`;

export function limitsFromEnv(env: NodeJS.ProcessEnv = process.env): Limits {
  const limits = { ...DEFAULT_LIMITS } as Limits;
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof Limits)[]) {
    const raw = env[envName(key)];
    if (raw === undefined || raw === '') continue;
    const parsed = z.coerce.number().int().min(1).safeParse(raw);
    if (parsed.success) limits[key] = parsed.data;
  }
  return limits;
}

/** The limits in force, read from the environment on each call (a host may set it after loading). */
export const limits = (): Limits => limitsFromEnv();
