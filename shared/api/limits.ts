import { LIMITS, limitEnvName, limitsSchema, readConfig, type LimitName } from '../config';

/**
 * Per-client and per-caller limits of the API, in one place (their defaults and meanings are in
 * shared/config.ts, LIMITS). Each can be overridden by an environment variable of the same name in upper snake
 * case with a `LIMIT_` prefix (for example `LIMIT_RULES_PER_CLIENT`).
 * Every limit answers a clear 400 (a size or count) or 429 (a rate), never a 500.
 */
export type Limits = Record<LimitName, number>;

export const DEFAULT_LIMITS: Readonly<Limits> = Object.fromEntries(Object.entries(LIMITS).map(([key, { value }]) => [key, value])) as Limits;

export function limitsFromEnv(env?: Record<string, string | undefined>): Limits {
  const parsed = readConfig(limitsSchema(), env);
  return Object.fromEntries((Object.keys(LIMITS) as LimitName[]).map((key) => [key, parsed[limitEnvName(key)]])) as Limits;
}

/** The limits in force, read from the environment on each call (a host may set it after loading). */
export const limits = (): Limits => limitsFromEnv();
