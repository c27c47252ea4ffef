import * as z from 'zod';
import { apiSchema, readConfig } from '../config';
import { openToken, signToken, signingKey } from '../auth/signed-token';
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
  /** The severity filter, each level once, least first. */
  severities?: readonly string[] | undefined;
  from: string;
  to: string;
}

// without HISTORY_TOKEN_SECRET_ID (tests): the key is public, so decoding checks the cursor's range as well
const FIXED_KEY = 'fleetwatch-history-token-fixed-key';

const historyTokenKey = signingKey('history token', () => readConfig(apiSchema()).HISTORY_TOKEN_SECRET_ID, FIXED_KEY);

/** Forgets the cached key (for tests that change it). */
export const forgetHistoryTokenKey = () => historyTokenKey.forget();

// a timeKey is `<ISO time>#<alert id>`
const positionSchema = z.object({ before: z.string().min(1).max(200) });

// the state and severity filters join the binding only when given, so tokens of queries without them stay as they were
const binding = (query: HistoryTokenQuery) =>
  JSON.stringify([
    query.clientId,
    query.parentId ?? null,
    query.ruleId ?? null,
    query.vehicleId ?? null,
    query.from,
    query.to,
    ...(query.state === undefined ? [] : [query.state]),
    ...(query.severities === undefined ? [] : [{ severities: query.severities }]),
  ]);

export async function encodeHistoryToken(before: string, query: HistoryTokenQuery): Promise<string> {
  return signToken(await historyTokenKey(), binding(query), { before });
}

const refused = () => validationError([{ path: 'nextToken', message: 'not a token this endpoint returned for this query' }]);

/** The position a token carries, or 400 naming `nextToken` unless this endpoint signed it for this very query. */
export async function decodeHistoryToken(token: string, query: HistoryTokenQuery): Promise<string> {
  const position = openToken(await historyTokenKey(), binding(query), token, positionSchema);
  if (position === null || position.before <= query.from || position.before > `${query.to}#\uffff`) throw refused();
  return position.before;
}
