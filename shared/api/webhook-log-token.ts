import * as z from 'zod';
import { apiSchema, readConfig } from '../config';
import { openToken, signToken, signingKey } from '../auth/signed-token';
import { validationError } from './errors';

/**
 * The page token of an endpoint's delivery log: the sort key to read on from, signed with HMAC-SHA256 over the
 * endpoint and the status filter. A token forged, altered, or passed for another endpoint or filter is 400 naming
 * `nextToken`. The key is the history tokens' secret; the context keeps the two kinds of token apart.
 */

const FIXED_KEY = 'fleetwatch-webhook-log-token-fixed-key';
const tokenKey = signingKey('webhook delivery log token', () => readConfig(apiSchema()).HISTORY_TOKEN_SECRET_ID, FIXED_KEY);

const positionSchema = z.object({ before: z.string().min(1).max(300) });

const context = (endpointId: string, status: string | undefined) => JSON.stringify(['webhook-deliveries', endpointId, status ?? null]);

export async function encodeWebhookLogToken(before: string, endpointId: string, status: string | undefined): Promise<string> {
  return signToken(await tokenKey(), context(endpointId, status), { before });
}

/** The position a token carries, or 400 naming `nextToken` unless it was answered for this endpoint and filter. */
export async function decodeWebhookLogToken(token: string, endpointId: string, status: string | undefined): Promise<string> {
  const position = openToken(await tokenKey(), context(endpointId, status), token, positionSchema);
  if (position === null) throw validationError([{ path: 'nextToken', message: 'not a token this endpoint returned for this query' }]);
  return position.before;
}
