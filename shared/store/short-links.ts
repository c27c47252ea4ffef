import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import type { ShortLinkCode } from '../auth/short-link-code';
import { directoryKeys } from './keys';

/**
 * The short links of alert SMS, in the directory table: `SMSLINK#<code>` / `SMSLINK` holding the signed alert-link
 * token it stands for, with `ttl` the token's own expiry, so the item goes when the link would stop working.
 * Deliver writes one per SMS it sends; the API reads it with one GetItem to redirect.
 */
const table = () => resourcesConfig().DIRECTORY_TABLE;

const shortLinkItemSchema = z.object({ token: z.string().min(1), ttl: z.number().int() });

export async function putShortLink(code: ShortLinkCode, token: string, expiresAt: number): Promise<void> {
  await documentClient().send(
    new PutCommand({
      TableName: table(),
      Item: { ...directoryKeys.shortLink(code), token, ttl: expiresAt },
      // a code drawn twice would hand one recipient's link to another: refuse rather than overwrite
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/** The token a code stands for, or null when it is unknown or expired (DynamoDB deletes expired items only eventually). */
export async function getShortLink(code: ShortLinkCode, now: number): Promise<string | null> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: directoryKeys.shortLink(code) }));
  const parsed = shortLinkItemSchema.safeParse(Item);
  if (!parsed.success || parsed.data.ttl * 1000 <= now) return null;
  return parsed.data.token;
}
