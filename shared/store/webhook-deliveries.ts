import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { webhookKeys } from './keys';

/**
 * The delivery log of each webhook endpoint, in the directory table: one small item per attempt
 * (`WEBHOOKLOG#<endpointId>` / `<ISO time>#<alert id>`), one PutItem of well under 1 KB (1 write unit), kept
 * 7 days by the table's TTL. Newest first on reading; a status filter is applied by DynamoDB on each page.
 */

export const WEBHOOK_LOG_DAYS = 7;
const DAY_SECONDS = 86_400;

export const DELIVERY_LOG_STATUSES = ['succeeded', 'failed'] as const;

export const webhookAttemptSchema = z.object({
  alertId: z.string(),
  event: z.string(),
  at: z.iso.datetime({ offset: true }),
  status: z.enum(DELIVERY_LOG_STATUSES),
  httpStatus: z.number().int().nullable(),
  latencyMs: z.number().int().min(0),
  error: z.string().nullable(),
});
export type WebhookAttempt = z.infer<typeof webhookAttemptSchema>;

const partition = webhookKeys.logPartition;

/** Records one attempt of one delivery to the endpoint. */
export async function recordWebhookAttempt(endpointId: string, attempt: WebhookAttempt): Promise<void> {
  await documentClient().send(
    new PutCommand({
      TableName: resourcesConfig().DIRECTORY_TABLE,
      Item: {
        pk: partition(endpointId),
        sk: `${attempt.at}#${attempt.alertId}`,
        ...attempt,
        ttl: Math.floor(Date.parse(attempt.at) / 1000) + WEBHOOK_LOG_DAYS * DAY_SECONDS,
      },
    }),
  );
}

/** One page of the endpoint's attempts, newest first, from before `before` (a sort key a page answered). */
export async function listWebhookAttempts(
  endpointId: string,
  options: { status?: (typeof DELIVERY_LOG_STATUSES)[number] | undefined; before?: string | undefined; limit: number },
): Promise<{ attempts: WebhookAttempt[]; next: string | null }> {
  const page = await documentClient().send(
    new QueryCommand({
      TableName: resourcesConfig().DIRECTORY_TABLE,
      KeyConditionExpression: options.before ? 'pk = :pk AND sk < :before' : 'pk = :pk',
      ...(options.status ? { FilterExpression: '#status = :status', ExpressionAttributeNames: { '#status': 'status' } } : {}),
      ExpressionAttributeValues: {
        ':pk': partition(endpointId),
        ...(options.before ? { ':before': options.before } : {}),
        ...(options.status ? { ':status': options.status } : {}),
      },
      ScanIndexForward: false,
      Limit: options.limit,
    }),
  );
  const attempts = (page.Items ?? []).map((item) => webhookAttemptSchema.parse(item));
  const last = page.LastEvaluatedKey?.sk;
  return { attempts, next: typeof last === 'string' ? last : null };
}

/**
 * A recovery's read of the log: the failed attempts among the next `limit` attempts logged at or after `from`
 * and before `to`, oldest first, after the sort key `after` (a page answered). At most `limit` items are read
 * whatever the endpoint's traffic; `next` is null once the range is read.
 */
export async function listFailedAttemptsBetween(
  endpointId: string,
  options: { from: string; to: string; after: string | null; limit: number },
): Promise<{ attempts: WebhookAttempt[]; next: string | null }> {
  const page = await documentClient().send(
    new QueryCommand({
      TableName: resourcesConfig().DIRECTORY_TABLE,
      // a sort key is `<ISO time>#<alert id>`, so `to` itself (an ISO time) sorts after every attempt before it
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      FilterExpression: '#status = :failed',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':pk': partition(endpointId), ':from': options.from, ':to': options.to, ':failed': 'failed' },
      ...(options.after === null ? {} : { ExclusiveStartKey: { pk: partition(endpointId), sk: options.after } }),
      Limit: options.limit,
    }),
  );
  const attempts = (page.Items ?? []).map((item) => webhookAttemptSchema.parse(item));
  const last = page.LastEvaluatedKey?.sk;
  return { attempts, next: typeof last === 'string' ? last : null };
}
