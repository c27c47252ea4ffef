import { createHmac, timingSafeEqual } from 'node:crypto';
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import * as z from 'zod';
import { apiSchema, readConfig } from '../config';
import { validationError } from './errors';

/**
 * The history endpoint's page token: the position of the next page, signed with HMAC-SHA256 over the query that
 * made it (the caller's client and every filter). A token forged, altered, or passed with another query is refused
 * with 400 naming `nextToken`, before anything is read.
 */

/** The query a token is bound to; `from` and `to` as UTC ISO times. */
export interface HistoryTokenQuery {
  clientId: string;
  parentId?: string | undefined;
  ruleId?: number | undefined;
  vehicleId?: number | undefined;
  state?: string | undefined;
  from: string;
  to: string;
}

// without HISTORY_TOKEN_SECRET_ID (tests): the key is public, so decoding checks the cursor's range as well
const FIXED_KEY = 'fleetwatch-history-token-fixed-key';

let cachedKey: Promise<string> | undefined;

/** Reads the key once per process; a failed read is not cached, so the next request tries again. */
function signingKey(): Promise<string> {
  cachedKey ??= loadKey().catch((error: unknown) => {
    cachedKey = undefined;
    throw error;
  });
  return cachedKey;
}

async function loadKey(): Promise<string> {
  const secretId = readConfig(apiSchema).HISTORY_TOKEN_SECRET_ID;
  if (secretId === undefined) return FIXED_KEY;
  const value = await getSecret(secretId, { maxAge: 24 * 3600 });
  if (typeof value !== 'string' || value.length < 32) throw new Error(`history token secret ${secretId} is not a string of 32 or more characters`);
  return value;
}

/** Forgets the cached key (for tests that change it). */
export function forgetHistoryTokenKey(): void {
  cachedKey = undefined;
}

// a timeKey is `<ISO time>#<alert id>`
const positionSchema = z.object({ before: z.string().min(1).max(200) });

// the state filter joins the binding only when given, so tokens of queries without it stay as they were
const binding = (query: HistoryTokenQuery) =>
  JSON.stringify([
    query.clientId,
    query.parentId ?? null,
    query.ruleId ?? null,
    query.vehicleId ?? null,
    query.from,
    query.to,
    ...(query.state === undefined ? [] : [query.state]),
  ]);

const mac = (key: string, query: HistoryTokenQuery, payload: string) =>
  createHmac('sha256', key)
    .update(`${binding(query)}\n${payload}`)
    .digest();

export async function encodeHistoryToken(before: string, query: HistoryTokenQuery): Promise<string> {
  const payload = Buffer.from(JSON.stringify({ before }), 'utf8').toString('base64url');
  return `${payload}.${mac(await signingKey(), query, payload).toString('base64url')}`;
}

const refused = () => validationError([{ path: 'nextToken', message: 'not a token this endpoint returned for this query' }]);

/** The position a token carries, or 400 naming `nextToken` unless this endpoint signed it for this very query. */
export async function decodeHistoryToken(token: string, query: HistoryTokenQuery): Promise<string> {
  const [payload, signature, ...rest] = token.split('.');
  if (payload === undefined || signature === undefined || rest.length > 0) throw refused();
  const expected = mac(await signingKey(), query, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refused();
  let position: z.infer<typeof positionSchema>;
  try {
    position = positionSchema.parse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
  } catch {
    throw refused();
  }
  if (position.before <= query.from || position.before > `${query.to}#\uffff`) throw refused();
  return position.before;
}
