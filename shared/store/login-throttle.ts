import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { conditionFailed } from './dynamo';
import { throttleKeys } from './keys';

/**
 * Slows down password guessing, counted atomically in two places:
 * - per login and source address (`LOGINFAIL#<login>#<ip>`): after the free attempts each further attempt
 *   waits twice as long as the previous one (1 s, 2 s, 4 s ... at most 15 minutes). Counting per address means
 *   a stranger's failures never lock out the user logging in from elsewhere;
 * - per source address over all logins (`IPFAIL#<ip>`): password spraying from one address slows down too.
 *
 * An attempt is reserved before the password is compared: a conditional update on the count read (optimistic
 * concurrency), so concurrent guesses are counted one by one and a burst gets no more comparisons than the
 * free attempts. A success clears the login's count and gives the address its attempt back.
 * Unknown logins are counted like known ones. Items expire a day after the last attempt.
 */
const table = () => resourcesConfig().DIRECTORY_TABLE;
const pairKey = throttleKeys.loginFailures;
const ipKey = throttleKeys.ipFailures;
/** Concurrent attempts that keep losing the race are asked to come back after this long. */
const CONTENDED_RETRY_MS = 1000;

/** How many attempts are free, and the longest wait after them (the API passes its configured limits). */
export interface LoginThresholds {
  freePerAddress: number;
  freePerIp: number;
  maxDelayMs: number;
}

export function delayAfter(failures: number, freeAttempts: number, maxDelayMs: number): number {
  if (failures < freeAttempts) return 0;
  return Math.min(1000 * 2 ** Math.min(failures - freeAttempts, 30), maxDelayMs);
}

/** Reserves one attempt on a counter; returns 0 when the attempt may go ahead, else how long it must wait. */
async function reserve(key: { pk: string; sk: string }, freeAttempts: number, maxDelayMs: number, now: number): Promise<number> {
  for (let race = 0; race < 8; race++) {
    const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: true }));
    const failures = Number(Item?.failures ?? 0);
    const nextAttemptAt = Number(Item?.nextAttemptAt ?? 0);
    if (nextAttemptAt > now) return nextAttemptAt - now;
    try {
      await documentClient().send(
        new UpdateCommand({
          TableName: table(),
          Key: key,
          UpdateExpression: 'SET failures = :next, nextAttemptAt = :nextAttemptAt, #ttl = :ttl',
          ConditionExpression: Item ? 'failures = :seen' : 'attribute_not_exists(pk)',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':next': failures + 1,
            ':nextAttemptAt': now + delayAfter(failures + 1, freeAttempts, maxDelayMs),
            ':ttl': Math.ceil(now / 1000) + 86_400,
            ...(Item ? { ':seen': failures } : {}),
          },
        }),
      );
      return 0;
    } catch (error) {
      if (!conditionFailed(error)) throw error;
    }
  }
  return CONTENDED_RETRY_MS;
}

/**
 * Reserves a login attempt for `login` from `ip`: 0 when the password may be compared now, otherwise the
 * milliseconds to wait (answered 429). The attempt counts as a failure until `clearLoginFailures`.
 */
export async function reserveLoginAttempt(login: string, ip: string, now: number, thresholds: LoginThresholds): Promise<number> {
  const perLogin = await reserve(pairKey(login, ip), thresholds.freePerAddress, thresholds.maxDelayMs, now);
  if (perLogin > 0) return perLogin;
  return reserve(ipKey(ip), thresholds.freePerIp, thresholds.maxDelayMs, now);
}

/** A successful login: the login's count from this address is cleared, and the address gets its attempt back. */
export async function clearLoginFailures(login: string, ip: string): Promise<void> {
  await documentClient().send(new DeleteCommand({ TableName: table(), Key: pairKey(login, ip) }));
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: ipKey(ip),
        UpdateExpression: 'ADD failures :minusOne',
        ConditionExpression: 'failures > :zero',
        ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
      }),
    );
  } catch (error) {
    if (!conditionFailed(error)) throw error;
  }
}
