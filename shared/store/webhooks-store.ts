import { createHash, randomBytes } from 'node:crypto';
import type { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { logger } from '../observability/logger';
import { parseRecord } from './record-schema';
import { storedWebhookSchema, webhookIdClient, type StoredWebhook, type WebhookEndpoint } from '../schemas/webhook';
import { conditionFailed, queryAll, transactOrConflict } from './dynamo';
import { webhookKeys } from './keys';

/**
 * The webhook endpoints of each client (see `shared/schemas/webhook.ts` for the item layout and how the secret
 * is kept). Every function here names the client: an endpoint is only ever read within its client's partition.
 */

/** The index that finds the client of an endpoint registered before endpoint ids named their client. */
const ENDPOINT_INDEX = 'gsi1';
const endpointIndexKey = webhookKeys.index;

/** A new endpoint's id names its client (see `webhookIdSchema`), so no index entry is written to find it. */
const newEndpointId = (clientId: string) => `${clientId}.${randomBytes(16).toString('base64url')}`;

function table(): string {
  return resourcesConfig().DIRECTORY_TABLE;
}

/** `whsec_` and 256 random bits in standard base64, the form Standard Webhooks libraries decode. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function withoutSecret(endpoint: StoredWebhook): WebhookEndpoint {
  const { secret: _secret, previousSecret: _previous, health, ...shown } = endpoint;
  const { lastProbeAt: _probe, probeBy: _carrier, ...shownHealth } = health;
  return { ...shown, health: shownHealth };
}

/** The client already has `limit` endpoints: none was stored. */
export class WebhookLimitError extends Error {
  constructor(readonly limit: number) {
    super(`the client already has ${limit} webhook endpoints, the most allowed`);
    this.name = 'WebhookLimitError';
  }
}

/** The client already has an endpoint with this URL: none was stored. */
export class WebhookUrlTakenError extends Error {
  constructor() {
    super('this URL is already registered for the client');
    this.name = 'WebhookUrlTakenError';
  }
}

/** What the client's `URLS` item keeps of a URL: its SHA-256, so that ten long URLs still fit in one small item. */
const urlHash = (url: string) => createHash('sha256').update(url).digest('base64url');

/**
 * Creates the client's `URLS` item from the endpoints it has, unless another write created it first. Every
 * create and delete needs the item, so none can change the endpoints between this read and the item's creation.
 */
async function initializeUrls(clientId: string): Promise<void> {
  const hashes = new Set((await listWebhooksWithSecrets(clientId)).map((endpoint) => urlHash(endpoint.url)));
  try {
    await documentClient().send(
      new PutCommand({
        TableName: table(),
        Item: { ...webhookKeys.urls(clientId), ...(hashes.size > 0 ? { urls: hashes } : {}) },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (!conditionFailed(error)) throw error;
  }
}

type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

/**
 * Runs the endpoint's write and the change of the client's `URLS` item (second) as one transaction, creating
 * a missing `URLS` item and trying again. Answers the `URLS` item as it was when its condition failed (then
 * nothing was written), or null when the endpoint's own condition failed, or undefined on success.
 */
async function transactWithUrls(clientId: string, items: [TransactItem, TransactItem]): Promise<Record<string, unknown> | null | undefined> {
  for (let attempt = 0; ; attempt++) {
    const outcome = await transactOrConflict({ TransactItems: items });
    if (outcome.ok) return undefined;
    const [endpoint, urls] = outcome.reasons;
    if (endpoint?.Code === 'ConditionalCheckFailed') return null;
    if (urls?.Code !== 'ConditionalCheckFailed' || attempt >= 2) throw outcome.error;
    if (urls.Item) return unmarshall(urls.Item);
    await initializeUrls(clientId);
  }
}

/**
 * Stores a new endpoint, in one transaction with its URL's hash in the client's `URLS` item: at most `limit`
 * endpoints (when given) and never one URL twice, however many requests run at once.
 */
export async function createWebhook(
  input: { parentId: string; url: string; description: string } & Partial<Pick<StoredWebhook, 'events' | 'ruleTypes'>>,
  now: number,
  limit?: number,
): Promise<StoredWebhook> {
  const endpoint = parseRecord(
    storedWebhookSchema,
    {
      id: newEndpointId(input.parentId),
      parentId: input.parentId,
      url: input.url,
      description: input.description,
      enabled: true,
      createdAt: new Date(now).toISOString(),
      secret: newWebhookSecret(),
      signatureScheme: 'standard',
      events: input.events ?? [],
      ruleTypes: input.ruleTypes ?? [],
    },
    'webhook endpoint',
  );
  // no health until the first delivery: the breaker writes the map then
  const { health: _health, ...item } = endpoint;
  const hash = urlHash(endpoint.url);
  const roomy = limit === undefined ? '' : ' AND size(urls) < :limit';
  const failed = await transactWithUrls(endpoint.parentId, [
    {
      Put: {
        TableName: table(),
        Item: { ...webhookKeys.endpoint(endpoint.parentId, endpoint.id), ...item },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Update: {
        TableName: table(),
        Key: webhookKeys.urls(endpoint.parentId),
        UpdateExpression: 'ADD urls :hash',
        ConditionExpression: `attribute_exists(pk) AND (attribute_not_exists(urls) OR (NOT contains(urls, :url)${roomy}))`,
        ExpressionAttributeValues: { ':hash': new Set([hash]), ':url': hash, ...(limit === undefined ? {} : { ':limit': limit }) },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
  ]);
  if (failed === null) throw new Error('a fresh endpoint id was already taken');
  if (failed) {
    const urls = failed.urls instanceof Set ? failed.urls : new Set();
    throw urls.has(hash) ? new WebhookUrlTakenError() : new WebhookLimitError(limit ?? urls.size);
  }
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
  const items = await queryAll({
    TableName: table(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': webhookKeys.partition(clientId), ':prefix': webhookKeys.sortPrefix },
    ConsistentRead: true,
  });
  return parseEndpoints(items).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

/** The client's endpoints as the API shows them. */
export async function listWebhooks(clientId: string): Promise<WebhookEndpoint[]> {
  return (await listWebhooksWithSecrets(clientId)).map(withoutSecret);
}

/**
 * The client an endpoint belongs to: the one its id names, or for an endpoint registered before ids named
 * their client, found in `candidate` first (the caller's own client, a consistent read), then through the
 * directory's index. Null when no endpoint of such an old id exists; a named client is answered unread (the
 * caller reads the endpoint in that client's partition, and finds none when the id is made up).
 */
export async function findWebhookClient(endpointId: string, candidate: string): Promise<string | null> {
  const named = webhookIdClient(endpointId);
  if (named !== null) return named;
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

/**
 * Deletes one endpoint of the client and its URL's hash from the client's `URLS` item, in one transaction, so
 * the slot and the URL are free again; false when the client has no such endpoint.
 */
export async function deleteWebhook(clientId: string, endpointId: string): Promise<boolean> {
  const key = webhookKeys.endpoint(clientId, endpointId);
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: table(), Key: key, ConsistentRead: true, ProjectionExpression: '#url', ExpressionAttributeNames: { '#url': 'url' } }),
  );
  if (typeof Item?.url !== 'string') return false;
  const failed = await transactWithUrls(clientId, [
    {
      Delete: {
        TableName: table(),
        Key: key,
        ConditionExpression: '#url = :url',
        ExpressionAttributeNames: { '#url': 'url' },
        ExpressionAttributeValues: { ':url': Item.url },
      },
    },
    {
      Update: {
        TableName: table(),
        Key: webhookKeys.urls(clientId),
        UpdateExpression: 'DELETE urls :hash',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':hash': new Set([urlHash(Item.url)]) },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
  ]);
  return failed === undefined;
}

/**
 * The write that stops deliveries to an endpoint, keeping it listed with the reason. With `whileOpenSince`, only
 * while it is still enabled and its circuit is still the one open since then (the sweep's disable after days of
 * failure: a success, a re-enable or another sweep in between makes it a no-op).
 */
export function webhookDisableUpdate(clientId: string, endpointId: string, reason: string, now: number, whileOpenSince?: string) {
  return {
    TableName: table(),
    Key: webhookKeys.endpoint(clientId, endpointId),
    UpdateExpression: 'SET enabled = :false, disabledAt = :at, disabledReason = :reason',
    ConditionExpression: whileOpenSince === undefined ? 'attribute_exists(pk)' : 'enabled = :true AND health.openSince = :openSince',
    ExpressionAttributeValues: {
      ':false': false,
      ':at': new Date(now).toISOString(),
      ':reason': reason,
      ...(whileOpenSince === undefined ? {} : { ':true': true, ':openSince': whileOpenSince }),
    },
  };
}

/** Stops deliveries to an endpoint (its receiver answered 410 Gone), keeping it listed with the reason. */
export async function disableWebhook(clientId: string, endpointId: string, reason: string, now: number): Promise<boolean> {
  try {
    await documentClient().send(new UpdateCommand(webhookDisableUpdate(clientId, endpointId, reason, now)));
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}

/** What an update may change of an endpoint. */
export type WebhookChanges = Partial<
  Pick<StoredWebhook, 'description' | 'signatureScheme' | 'events' | 'ruleTypes' | 'enabled' | 'disabledAt' | 'disabledReason'>
>;

/** Reads one endpoint of the client, secrets included; null when the client has none of that id. */
export async function getWebhookWithSecrets(clientId: string, endpointId: string): Promise<StoredWebhook | null> {
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: table(), Key: webhookKeys.endpoint(clientId, endpointId), ConsistentRead: true }),
  );
  return Item ? parseRecord(storedWebhookSchema, Item, 'webhook endpoint') : null;
}

/** Sets the given fields of one endpoint of the client; null when the client has no such endpoint. */
export async function updateWebhook(clientId: string, endpointId: string, changes: WebhookChanges): Promise<StoredWebhook | null> {
  const entries = Object.entries(changes).filter(([, value]) => value !== undefined);
  if (entries.length === 0) return getWebhookWithSecrets(clientId, endpointId);
  return conditionalUpdate(
    clientId,
    endpointId,
    `SET ${entries.map((_, index) => `#f${index} = :v${index}`).join(', ')}`,
    Object.fromEntries(entries.map(([name], index) => [`#f${index}`, name])),
    Object.fromEntries(entries.map(([, value], index) => [`:v${index}`, value])),
  );
}

/**
 * Gives the endpoint a new secret and keeps the current one as `previousSecret` until `overlapEnds` (epoch
 * ms): deliveries until then are signed with both. Null when the client has no such endpoint.
 */
export async function rotateWebhookSecret(clientId: string, endpointId: string, overlapEnds: number): Promise<StoredWebhook | null> {
  return conditionalUpdate(clientId, endpointId, 'SET previousSecret = secret, previousSecretExpiresAt = :ends, secret = :secret', undefined, {
    ':ends': new Date(overlapEnds).toISOString(),
    ':secret': newWebhookSecret(),
  });
}

async function conditionalUpdate(
  clientId: string,
  endpointId: string,
  expression: string,
  names: Record<string, string> | undefined,
  values: Record<string, unknown>,
): Promise<StoredWebhook | null> {
  try {
    const { Attributes } = await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: webhookKeys.endpoint(clientId, endpointId),
        UpdateExpression: expression,
        ConditionExpression: 'attribute_exists(pk)',
        ...(names ? { ExpressionAttributeNames: names } : {}),
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return parseRecord(storedWebhookSchema, Attributes, 'webhook endpoint');
  } catch (error) {
    if (conditionFailed(error)) return null;
    throw error;
  }
}
