import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, GetCommand, PutCommand, UpdateCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { directoryKeys, type StoredUser } from '../schemas/directory';
import { hashToken, newSessionToken } from './tokens';

/**
 * Sessions in the directory table: `SESSION#<sha256(token)>` / `SESSION`. The token itself is never stored.
 * Each item also carries `gsi1pk = USERSESSIONS#<userId>` so that a user's sessions can be counted.
 *
 * One conditional update per request both slides the expiry (by the user's session duration) and enforces the
 * minimum interval between requests on the token; only a rejected request costs a second read, to tell an
 * ended session (401) from one that asked too soon (429).
 */
export const DEFAULT_SESSION_MINUTES = 30;
/** Active sessions one user may hold. The 51st login ends the oldest one rather than locking the user out. */
export const MAX_SESSIONS_PER_USER = 50;

const table = () => resourcesConfig().DIRECTORY_TABLE;
const userSessionsKey = (userId: string) => `USERSESSIONS#${userId}`;

export interface Session {
  tokenHash: string;
  userId: string;
  createdAt: number;
  lastRequestAt: number;
  expiresAt: number;
}

export type SessionCheck =
  | { ok: true; session: Session }
  | { ok: false; reason: 'ended' }
  | { ok: false; reason: 'tooSoon'; retryAfterMs: number };

export function sessionDurationMs(user: Pick<StoredUser, 'sessionDuration'>): number {
  return (user.sessionDuration ?? DEFAULT_SESSION_MINUTES) * 60_000;
}

/** Starts a session for `user` and returns its token (shown once, to the caller of login). */
export async function startSession(user: StoredUser, now: number): Promise<{ token: string; expiresAt: number }> {
  await endOldestSessions(user.id, now, MAX_SESSIONS_PER_USER - 1);
  const token = newSessionToken();
  const tokenHash = hashToken(token);
  const durationMs = sessionDurationMs(user);
  const expiresAt = now + durationMs;
  await documentClient().send(
    new PutCommand({
      TableName: table(),
      Item: {
        ...directoryKeys.session(tokenHash),
        gsi1pk: userSessionsKey(user.id),
        gsi1sk: `${new Date(now).toISOString()}#${tokenHash}`,
        userId: user.id,
        createdAt: now,
        // the first request after login is never "too soon"
        lastRequestAt: 0,
        durationMs,
        durationSeconds: Math.ceil(durationMs / 1000),
        expiresAt,
        ttl: Math.ceil(expiresAt / 1000),
      },
    }),
  );
  return { token, expiresAt };
}

/** Ends the oldest active sessions of a user so that at most `keep` remain. */
async function endOldestSessions(userId: string, now: number, keep: number): Promise<void> {
  const active: { pk: string; sk: string }[] = [];
  for await (const page of paginateQuery({ client: documentClient() }, {
    TableName: table(),
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :user',
    FilterExpression: 'expiresAt > :now',
    ExpressionAttributeValues: { ':user': userSessionsKey(userId), ':now': now },
    ProjectionExpression: 'pk, sk',
  })) {
    for (const item of page.Items ?? []) active.push({ pk: String(item.pk), sk: String(item.sk) });
  }
  // the index is sorted by creation time, oldest first
  const ending = active.slice(0, Math.max(0, active.length - keep));
  for (let start = 0; start < ending.length; start += 25) {
    const chunk = ending.slice(start, start + 25);
    await documentClient().send(
      new BatchWriteCommand({ RequestItems: { [table()]: chunk.map((key) => ({ DeleteRequest: { Key: key } })) } }),
    );
  }
}

/**
 * Accepts a request made with `token` at `now`: the session must be active and its previous request at least
 * `minIntervalMs` ago. On success the expiry slides to now + the session's duration.
 */
export async function touchSession(token: string, now: number, minIntervalMs: number): Promise<SessionCheck> {
  const key = directoryKeys.session(hashToken(token));
  try {
    const { Attributes } = await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: key,
        UpdateExpression: 'SET lastRequestAt = :now, expiresAt = :now + durationMs, #ttl = :nowSeconds + durationSeconds',
        ConditionExpression: 'attribute_exists(pk) AND expiresAt > :now AND lastRequestAt <= :threshold',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':now': now, ':nowSeconds': Math.ceil(now / 1000), ':threshold': now - minIntervalMs },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { ok: true, session: toSession(Attributes ?? {}) };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: true }));
  if (!Item || Number(Item.expiresAt) <= now) return { ok: false, reason: 'ended' };
  return { ok: false, reason: 'tooSoon', retryAfterMs: Number(Item.lastRequestAt) + minIntervalMs - now };
}

function toSession(item: Record<string, unknown>): Session {
  return {
    tokenHash: String(item.pk).slice('SESSION#'.length),
    userId: String(item.userId),
    createdAt: Number(item.createdAt),
    lastRequestAt: Number(item.lastRequestAt),
    expiresAt: Number(item.expiresAt),
  };
}
