import { randomBytes, randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { logger } from '../observability/logger';
import { parseRecord } from './record-schema';
import { storedWebhookSchema, webhookKeys, type StoredWebhook, type WebhookEndpoint } from '../schemas/webhook';

/**
 * The webhook endpoints of each client (see `shared/schemas/webhook.ts` for the item layout and how the secret
 * is kept). Every function here names the client: an endpoint is only ever read within its client's partition.
 */

const ENDPOINT_INDEX = 'gsi1';
const endpointIndexKey = (endpointId: string) => ({ gsi1pk: `WEBHOOK#${endpointId}`, gsi1sk: 'ENDPOINT' });

function table(): string {
  return resourcesConfig().DIRECTORY_TABLE;
}

/** `whsec_` and 256 random bits, base64url. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export function withoutSecret(endpoint: StoredWebhook): WebhookEndpoint {
  const { secret: _secret, ...shown } = endpoint;
  return shown;
}

export async function createWebhook(input: { parentId: string; url: string; description: string }, now: number): Promise<StoredWebhook> {
  const endpoint = parseRecord(
    storedWebhookSchema,
    {
      id: randomUUID(),
      parentId: input.parentId,
      url: input.url,
      description: input.description,
      enabled: true,
      createdAt: new Date(now).toISOString(),
      secret: newWebhookSecret(),
    },
    'webhook endpoint',
  );
  await documentClient().send(
    new PutCommand({
      TableName: table(),
      Item: { ...webhookKeys.endpoint(endpoint.parentId, endpoint.id), ...endpointIndexKey(endpoint.id), ...endpoint },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return endpoint;
}

function parseEndpoints(items: readonly Record<string, unknown>[] | undefined): StoredWebhook[] {
  const endpoints: StoredWebhook[] = [];
  for (const item of items ?? []) {
    const parsed = storedWebhookSchema.safeParse(item);
    if (parsed.success) endpoints.push(parsed.data);
    else
      logger.error('stored webhook endpoint does not match its schema', {
        endpointId: String(item.id),
        issues: parsed.error.issues.map((issue) => issue.path.join('.')),
      });
  }
  return endpoints;
}

/** The client's endpoints, oldest first, secrets included: for signing only, never to be answered. */
export async function listWebhooksWithSecrets(clientId: string): Promise<StoredWebhook[]> {
  const endpoints: StoredWebhook[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': webhookKeys.partition(clientId), ':prefix': webhookKeys.sortPrefix },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    endpoints.push(...parseEndpoints(page.Items));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return endpoints.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

/** The client's endpoints as the API shows them. */
export async function listWebhooks(clientId: string): Promise<WebhookEndpoint[]> {
  return (await listWebhooksWithSecrets(clientId)).map(withoutSecret);
}

/**
 * The client an endpoint belongs to, or null when no endpoint has this id: looked up in `candidate` first (the
 * caller's own client, a consistent read), then through the directory's index.
 */
export async function findWebhookClient(endpointId: string, candidate: string): Promise<string | null> {
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: table(), Key: webhookKeys.endpoint(candidate, endpointId), ConsistentRead: true, ProjectionExpression: 'parentId' }),
  );
  if (Item) return candidate;
  const { Items } = await documentClient().send(
    new QueryCommand({
      TableName: table(),
      IndexName: ENDPOINT_INDEX,
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
      ExpressionAttributeValues: { ':pk': endpointIndexKey(endpointId).gsi1pk, ':sk': 'ENDPOINT' },
      ProjectionExpression: 'parentId',
    }),
  );
  const parentId = Items?.[0]?.parentId;
  return typeof parentId === 'string' ? parentId : null;
}

/** Deletes one endpoint of the client; false when the client has no such endpoint. */
export async function deleteWebhook(clientId: string, endpointId: string): Promise<boolean> {
  try {
    await documentClient().send(
      new DeleteCommand({ TableName: table(), Key: webhookKeys.endpoint(clientId, endpointId), ConditionExpression: 'attribute_exists(pk)' }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/** Stops deliveries to an endpoint (its receiver answered 410 Gone), keeping it listed with the reason. */
export async function disableWebhook(clientId: string, endpointId: string, reason: string, now: number): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: webhookKeys.endpoint(clientId, endpointId),
        UpdateExpression: 'SET enabled = :false, disabledAt = :at, disabledReason = :reason',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':false': false, ':at': new Date(now).toISOString(), ':reason': reason },
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}
