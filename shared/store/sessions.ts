import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { type StoredUser } from '../schemas/directory';
import { hashToken, newSessionToken } from '../auth/tokens';
import { conditionFailed, transactOrConflict } from './dynamo';
import { directoryKeys, PK, sessionKeys } from './keys';

/**
 * Sessions in the directory table: `SESSION#<sha256(token)>` / `SESSION`. The token itself is never stored.
 *
 * One conditional update per request both slides the expiry (by the user's session duration) and enforces the
 * minimum interval between requests on the token; only a rejected request costs a second read, to tell an
 * ended session (401) from one that asked too soon (429). However often it is used, a session ends
 * ABSOLUTE_SESSION_MS after its login.
 *
 * The cap of 50 sessions per user is atomic: each login takes the next number of the user's sequence
 * (`USERSESSIONS#<userId>` / `COUNTER`, an atomic ADD) and the slot `number mod 50` (`SLOT#<n>`); one
 * transaction writes the new session, moves the slot to it and deletes the session the slot held, on condition
 * that nobody moved the slot meanwhile. A user can therefore never hold more than 50 sessions, and the 51st
 * login ends the oldest one rather than locking the user out.
 */
export const DEFAULT_SESSION_MINUTES = 30;
/** Active sessions one user may hold. The 51st login ends the oldest one rather than locking the user out. */
export const MAX_SESSIONS_PER_USER = 50;
/** A session ends this long after its login, whatever its sliding expiry says. */
export const ABSOLUTE_SESSION_MS = 7 * 24 * 60 * 60_000;

const table = () => resourcesConfig().DIRECTORY_TABLE;
const counterKey = sessionKeys.counter;
const slotKey = sessionKeys.slot;

export interface Session {
  tokenHash: string;
  userId: string;
  createdAt: number;
  lastRequestAt: number;
  expiresAt: number;
}

export type SessionCheck = { ok: true; session: Session } | { ok: false; reason: 'ended' } | { ok: false; reason: 'tooSoon'; retryAfterMs: number };

export function sessionDurationMs(user: Pick<StoredUser, 'sessionDuration'>): number {
  return (user.sessionDuration ?? DEFAULT_SESSION_MINUTES) * 60_000;
}

async function nextSessionNumber(userId: string): Promise<number> {
  const { Attributes } = await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: counterKey(userId),
      UpdateExpression: 'ADD sessionNumber :one',
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(Attributes?.sessionNumber);
}

/** Starts a session for `user` and returns its token (shown once, to the caller of login). */
export async function startSession(user: StoredUser, now: number): Promise<{ token: string; expiresAt: number }> {
  const token = newSessionToken();
  const tokenHash = hashToken(token);
  const durationMs = sessionDurationMs(user);
  const expiresAt = Math.min(now + durationMs, now + ABSOLUTE_SESSION_MS);
  const session = {
    ...directoryKeys.session(tokenHash),
    userId: user.id,
    createdAt: now,
    // the first request after login is never "too soon"
    lastRequestAt: 0,
    durationMs,
    durationSeconds: Math.ceil(durationMs / 1000),
    expiresAt,
    ttl: Math.ceil(expiresAt / 1000),
  };
  for (let race = 0; race < 10; race++) {
    const sequence = await nextSessionNumber(user.id);
    const slot = slotKey(user.id, sequence % MAX_SESSIONS_PER_USER);
    const { Item: previous } = await documentClient().send(new GetCommand({ TableName: table(), Key: slot, ConsistentRead: true }));
    const previousSequence = Number(previous?.sessionNumber ?? 0);
    if (previous && previousSequence > sequence) continue;
    const outcome = await transactOrConflict({
      TransactItems: [
        {
          Put: {
            TableName: table(),
            Item: { ...slot, sessionNumber: sequence, tokenHash, ttl: Math.ceil((now + ABSOLUTE_SESSION_MS) / 1000) },
            ConditionExpression: previous ? 'sessionNumber = :seen' : 'attribute_not_exists(pk)',
            ...(previous ? { ExpressionAttributeValues: { ':seen': previousSequence } } : {}),
          },
        },
        { Put: { TableName: table(), Item: session, ConditionExpression: 'attribute_not_exists(pk)' } },
        ...(typeof previous?.tokenHash === 'string' ? [{ Delete: { TableName: table(), Key: directoryKeys.session(previous.tokenHash) } }] : []),
      ],
    });
    if (outcome.ok) return { token, expiresAt };
  }
  throw new Error('could not start a session: too many concurrent logins of one user');
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
        ConditionExpression: 'attribute_exists(pk) AND expiresAt > :now AND createdAt > :createdAfter AND lastRequestAt <= :threshold',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':now': now,
          ':nowSeconds': Math.ceil(now / 1000),
          ':threshold': now - minIntervalMs,
          ':createdAfter': now - ABSOLUTE_SESSION_MS,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { ok: true, session: toSession(Attributes ?? {}) };
  } catch (error) {
    if (!conditionFailed(error)) throw error;
  }
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: true }));
  if (!Item || Number(Item.expiresAt) <= now || Number(Item.createdAt) <= now - ABSOLUTE_SESSION_MS) return { ok: false, reason: 'ended' };
  return { ok: false, reason: 'tooSoon', retryAfterMs: Number(Item.lastRequestAt) + minIntervalMs - now };
}

function toSession(item: Record<string, unknown>): Session {
  return {
    tokenHash: String(item.pk).slice(PK.session.length),
    userId: String(item.userId),
    createdAt: Number(item.createdAt),
    lastRequestAt: Number(item.lastRequestAt),
    expiresAt: Math.min(Number(item.expiresAt), Number(item.createdAt) + ABSOLUTE_SESSION_MS),
  };
}
