import { createHash, randomInt } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { dayOf, nextDayStart } from './sender-guard';
import { conditionFailed } from './dynamo';
import { directoryKeys, smsKeys } from './keys';

/**
 * The double opt-in of a user's phone number, in the directory table:
 * - `PHONECODE#<userId>` / `CODE`: the code last sent (its hash), the number it was sent to, its expiry and the
 *   tries left; one per user, so a new code replaces the old one.
 * - `PHONE#<number>` / `CODES#<day>`: codes sent to one number on one UTC day (one conditional ADD each).
 * - `SENDER#<clientId>` / `SMSCODES#<day>`: codes sent to the client's users on one UTC day.
 * A number counts as verified while the user's record carries it with `phoneVerifiedAt`.
 */
const table = () => resourcesConfig().DIRECTORY_TABLE;
const DAY_MS = 86_400_000;
export const CODE_TTL_MS = 10 * 60_000;
export const CODE_TRIES = 5;
const codeKey = smsKeys.phoneCode;
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Six digits, from a CSPRNG. */
export const newCode = () => String(randomInt(0, 1_000_000)).padStart(6, '0');

async function takeOne(key: { pk: string; sk: string }, limit: number, day: number): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: key,
        UpdateExpression: 'ADD sent :one SET #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(sent) OR sent < :limit',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':ttl': ((day + 2) * DAY_MS) / 1000 },
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}

export interface CodeBudget {
  perNumber: number;
  perClient: number;
}

/**
 * Takes one code from the number's and the client's budgets of the day. Returns null when it may go out, else
 * which budget is spent and when the next day's begins (epoch ms). A refusal by the client's budget leaves the
 * number's taken: it errs on sending fewer codes.
 */
export async function takeCodeBudget(
  clientId: string,
  phoneNumber: string,
  budget: CodeBudget,
  now: number,
): Promise<{ spent: 'number' | 'client'; resumesAt: number } | null> {
  const day = dayOf(now);
  if (!(await takeOne(smsKeys.numberCodes(phoneNumber, day), budget.perNumber, day))) return { spent: 'number', resumesAt: nextDayStart(now) };
  if (!(await takeOne(smsKeys.clientCodes(clientId, day), budget.perClient, day))) return { spent: 'client', resumesAt: nextDayStart(now) };
  return null;
}

/** Stores the code sent to a user's number, replacing any earlier one. */
export async function storeCode(userId: string, phoneNumber: string, code: string, now: number): Promise<void> {
  await documentClient().send(
    new PutCommand({
      TableName: table(),
      Item: {
        ...codeKey(userId),
        phoneNumber,
        codeHash: sha256(`${userId}.${code}`),
        expiresAt: now + CODE_TTL_MS,
        triesLeft: CODE_TRIES,
        ttl: Math.ceil((now + DAY_MS) / 1000),
      },
    }),
  );
}

export type CodeCheck = 'verified' | 'wrong' | 'expired' | 'none';

/**
 * Checks a code. Each check spends one try first (a conditional decrement), so that parallel guesses cannot
 * exceed the tries; the right code then marks the user's number verified, if the user still has that number.
 */
export async function checkCode(userId: string, code: string, now: number): Promise<{ result: CodeCheck; triesLeft: number }> {
  let item: Record<string, unknown> | undefined;
  try {
    ({ Attributes: item } = await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: codeKey(userId),
        UpdateExpression: 'ADD triesLeft :minus',
        ConditionExpression: 'triesLeft > :zero AND expiresAt > :now',
        ExpressionAttributeValues: { ':minus': -1, ':zero': 0, ':now': now },
        ReturnValues: 'ALL_NEW',
      }),
    ));
  } catch (error) {
    if (!conditionFailed(error)) throw error;
    const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: codeKey(userId), ConsistentRead: true }));
    return { result: Item ? 'expired' : 'none', triesLeft: 0 };
  }
  const triesLeft = Number(item?.triesLeft ?? 0);
  if (item?.codeHash !== sha256(`${userId}.${code}`)) return { result: 'wrong', triesLeft };
  const verified = await markVerified(userId, String(item.phoneNumber), now);
  await documentClient().send(new DeleteCommand({ TableName: table(), Key: codeKey(userId) }));
  return { result: verified ? 'verified' : 'none', triesLeft };
}

async function markVerified(userId: string, phoneNumber: string, now: number): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: directoryKeys.user(userId),
        UpdateExpression: 'SET phoneVerifiedAt = :at',
        ConditionExpression: 'phoneNumber = :number',
        ExpressionAttributeValues: { ':at': new Date(now).toISOString(), ':number': phoneNumber },
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}
