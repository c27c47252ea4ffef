import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../aws/dynamodb';
import { emailConsentKeys } from '../keys';
import { encodeAddress, normal, parseToken, sameText, secret, table } from './address';

/**
 * The List-Unsubscribe token of one rule's alerts to one address (`OPTOUT#…`), and whether the address used it
 * (`optedOutAt`). The token is kept as is, since every alert e-mail carries it; it can do nothing but stop that
 * rule's alerts to that address.
 */
export const optOutKey = (ruleId: number, address: string) => emailConsentKeys.optOut(ruleId, normal(address));

/** The List-Unsubscribe token of a rule's alerts to an address, created on first use. */
export async function unsubscribeToken(ruleId: number, address: string): Promise<string> {
  const token = `${ruleId}.${encodeAddress(address)}.${secret()}`;
  const { Attributes } = await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: optOutKey(ruleId, address),
      UpdateExpression: 'SET #token = if_not_exists(#token, :token)',
      ExpressionAttributeNames: { '#token': 'token' },
      ExpressionAttributeValues: { ':token': token },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return String(Attributes?.token ?? token);
}

/** What a List-Unsubscribe token names: the rule, the address, and whether the address used it. */
export interface UnsubscribeLink {
  ruleId: number;
  address: string;
  optedOut: boolean;
}

/** The rule and address of a List-Unsubscribe token, or null for a wrong token (one consistent read). */
export async function unsubscribeLink(token: string): Promise<UnsubscribeLink | null> {
  const parts = parseToken(token);
  if (!parts || !/^\d{1,10}$/.test(parts.scope)) return null;
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: table(), Key: optOutKey(Number(parts.scope), parts.address), ConsistentRead: true }),
  );
  if (typeof Item?.token !== 'string' || !sameText(Item.token, token)) return null;
  return { ruleId: Number(parts.scope), address: normal(parts.address), optedOut: Boolean(Item.optedOutAt) };
}

/** One-click unsubscribe (RFC 8058): stops the rule's alerts to the address. Returns null for a wrong token. */
export async function unsubscribe(token: string, now: number): Promise<UnsubscribeLink | null> {
  const link = await unsubscribeLink(token);
  if (!link) return null;
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: optOutKey(link.ruleId, link.address),
      UpdateExpression: 'SET optedOutAt = if_not_exists(optedOutAt, :now)',
      ExpressionAttributeValues: { ':now': new Date(now).toISOString() },
    }),
  );
  return { ...link, optedOut: true };
}

/** Subscribes the address to the rule's alerts again, by the token it unsubscribed with. Null for a wrong token. */
export async function resubscribe(token: string): Promise<UnsubscribeLink | null> {
  const link = await unsubscribeLink(token);
  if (!link) return null;
  await documentClient().send(
    new UpdateCommand({ TableName: table(), Key: optOutKey(link.ruleId, link.address), UpdateExpression: 'REMOVE optedOutAt' }),
  );
  return { ...link, optedOut: false };
}
