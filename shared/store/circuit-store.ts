import { DeleteCommand, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { parseHealth, type CircuitHealth } from '../schemas/circuit-health';
import { cancellation, conditionFailed } from './dynamo';
import { circuitKeys, webhookKeys } from './keys';

/**
 * The circuit breakers' health, in the directory table (keys in shared/schemas/circuit-health.ts). A webhook
 * endpoint keeps its health on its own item (`health` map), which deliver reads anyway; a shared destination
 * (`telegram`, `ses#<region>`, `sns#<region>`) on an item of its own, read through a short cache per container.
 *
 * What it costs per alert and destination:
 * - healthy: nothing for a webhook endpoint; at most one eventually consistent read (0.5 unit) per container
 *   every CACHE_MS for a shared destination; a success writes only when it changes something (a count to
 *   reset, a circuit to close, or `lastSuccessAt` older than an hour), so about one write an hour;
 * - a transient failure: one UpdateItem (ADD to the count); the one that opens the circuit, a transaction of three
 *   more writes (the health, the `FAILING#…` list and the `HELD` list of held lists), and the success that closes
 *   it, one UpdateItem and one DeleteItem;
 * - open: a held attempt writes its alert to the destination's held list (shared/store/held-targets.ts); a probe
 *   costs one conditional UpdateItem to claim the slot (by the deliver function, or by the sweep for the oldest held
 *   alert, which then takes it with another).
 */
const table = () => resourcesConfig().DIRECTORY_TABLE;

/** How long a container trusts a shared destination's health it read: a circuit opened elsewhere holds here that much later. */
export const CACHE_MS = 5_000;

/** Whose health: a webhook endpoint's (on its item), or a shared destination's (on its own item). */
export type HealthOwner = { kind: 'webhook'; clientId: string; endpointId: string } | { kind: 'destination'; key: string };

/** The destination's name, as log lines, the open and held lists and `heldBy` give it. */
export function destinationOfOwner(owner: HealthOwner): string {
  return owner.kind === 'webhook' ? `webhook#${owner.endpointId}` : owner.key;
}

function keyOf(owner: HealthOwner): Record<string, string> {
  return owner.kind === 'webhook' ? webhookKeys.endpoint(owner.clientId, owner.endpointId) : circuitKeys.destination(owner.key);
}

/** A webhook endpoint deleted meanwhile must not come back as an item holding only its health. */
const itemExists = (owner: HealthOwner) => (owner.kind === 'webhook' ? 'attribute_exists(pk) AND ' : '');

const cache = new Map<string, { health: CircuitHealth; readAt: number }>();

function remember(owner: HealthOwner, health: CircuitHealth, now: number): void {
  if (owner.kind === 'destination') cache.set(owner.key, { health, readAt: now });
}

/** A shared destination's health, from this container's cache while it is younger than CACHE_MS. */
export async function destinationHealth(key: string, now: number): Promise<CircuitHealth> {
  const cached = cache.get(key);
  if (cached && Math.abs(now - cached.readAt) < CACHE_MS) return cached.health;
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: circuitKeys.destination(key) }));
  const health = parseHealth(Item?.health);
  cache.set(key, { health, readAt: now });
  return health;
}

/** Forgets the cached health of every shared destination (tests, and a container told the world changed). */
export function forgetDestinationHealth(): void {
  cache.clear();
}

/**
 * Runs an update of paths inside `health`, or, for an item without the map yet, sets the whole map to `fresh`
 * (two attempts cover a concurrent first write). Answers the item's attributes (`ReturnValues`), or null when a
 * webhook endpoint is gone.
 */
async function updateHealth(
  owner: HealthOwner,
  update: { expression: string; values: Record<string, unknown>; returnValues: 'ALL_NEW' | 'ALL_OLD' },
  fresh: Record<string, unknown>,
): Promise<Record<string, unknown> | null> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const { Attributes } = await documentClient().send(
        new UpdateCommand({
          TableName: table(),
          Key: keyOf(owner),
          UpdateExpression: update.expression,
          ConditionExpression: 'attribute_exists(health)',
          ExpressionAttributeValues: update.values,
          ReturnValues: update.returnValues,
        }),
      );
      return Attributes ?? {};
    } catch (error) {
      if (!conditionFailed(error)) throw error;
    }
    try {
      await documentClient().send(
        new UpdateCommand({
          TableName: table(),
          Key: keyOf(owner),
          UpdateExpression: 'SET health = :fresh',
          ConditionExpression: `${itemExists(owner)}attribute_not_exists(health)`,
          ExpressionAttributeValues: { ':fresh': fresh },
        }),
      );
      return update.returnValues === 'ALL_NEW' ? { health: fresh } : {};
    } catch (error) {
      if (!conditionFailed(error)) throw error;
    }
  }
  return null;
}

/** Counts one transient failure (atomically: ADD); answers the health after it, or null when the endpoint is gone. */
export async function recordFailure(owner: HealthOwner, error: string, now: number): Promise<CircuitHealth | null> {
  const at = new Date(now).toISOString();
  const attributes = await updateHealth(
    owner,
    {
      expression: 'ADD health.consecutiveFailures :one SET health.lastFailureAt = :at, health.lastError = :error',
      values: { ':one': 1, ':at': at, ':error': error },
      returnValues: 'ALL_NEW',
    },
    { consecutiveFailures: 1, lastFailureAt: at, lastError: error },
  );
  if (attributes === null) return null;
  const health = parseHealth(attributes.health);
  remember(owner, health, now);
  return health;
}

/**
 * Records a success: the count reset, the circuit closed. Answers when the circuit had been open (its
 * `openSince`), so that the caller counts the closing once; null when it was closed.
 */
export async function recordSuccess(owner: HealthOwner, now: number): Promise<{ closedOpenSince: string | null }> {
  const at = new Date(now).toISOString();
  const before = await updateHealth(
    owner,
    {
      expression: 'SET health.lastSuccessAt = :at, health.consecutiveFailures = :zero REMOVE health.openSince, health.lastProbeAt, health.probeBy',
      values: { ':at': at, ':zero': 0 },
      returnValues: 'ALL_OLD',
    },
    { consecutiveFailures: 0, lastSuccessAt: at },
  );
  const old = parseHealth(before?.health);
  remember(owner, { ...old, consecutiveFailures: 0, lastSuccessAt: at, openSince: null, lastProbeAt: null, probeBy: null }, now);
  if (old.openSince === null) return { closedOpenSince: null };
  // the open list's entry; its condition keeps an entry that a failure right after this success wrote anew
  await documentClient()
    .send(
      new DeleteCommand(
        owner.kind === 'webhook'
          ? { TableName: table(), Key: circuitKeys.failingWebhook(old.openSince, owner.endpointId) }
          : {
              TableName: table(),
              Key: circuitKeys.failingDestination(owner.key),
              ConditionExpression: 'attribute_not_exists(pk) OR openSince = :since',
              ExpressionAttributeValues: { ':since': old.openSince },
            },
      ),
    )
    .catch((error: unknown) => {
      if (!conditionFailed(error)) throw error;
    });
  return { closedOpenSince: old.openSince };
}

/**
 * Opens the circuit: stamps `openSince`, adds the destination to its open list, and makes sure the sweep finds
 * its held list (`HELD` / destination, stamped with this `openSince`), in one transaction, unless another
 * invocation opened it first. True when this call opened it.
 */
export async function openCircuit(owner: HealthOwner, now: number): Promise<boolean> {
  const at = new Date(now).toISOString();
  const entry =
    owner.kind === 'webhook'
      ? { ...circuitKeys.failingWebhook(at, owner.endpointId), clientId: owner.clientId, endpointId: owner.endpointId, openSince: at }
      : { ...circuitKeys.failingDestination(owner.key), destination: owner.key, openSince: at };
  try {
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: table(),
              Key: keyOf(owner),
              UpdateExpression: 'SET health.openSince = :at',
              ConditionExpression: 'attribute_exists(health) AND attribute_not_exists(health.openSince)',
              ExpressionAttributeValues: { ':at': at },
            },
          },
          { Put: { TableName: table(), Item: entry } },
          {
            Put: {
              TableName: table(),
              Item: { ...circuitKeys.heldList(destinationOfOwner(owner)), destination: destinationOfOwner(owner), owner, openSince: at },
            },
          },
        ],
      }),
    );
  } catch (error) {
    if (cancellation(error)) return false;
    throw error;
  }
  const cached = owner.kind === 'destination' ? cache.get(owner.key) : undefined;
  if (cached) remember(owner, { ...cached.health, openSince: at }, now);
  return true;
}

/**
 * Claims the probe slot of an open circuit: true for exactly one caller per interval, however many invocations
 * ask at once (a conditional write on when the last probe went). A caller that loses holds, and remembers the
 * slot as just taken.
 */
export async function claimProbe(owner: HealthOwner, now: number, freeBefore: string): Promise<boolean> {
  const at = new Date(now).toISOString();
  let claimed = true;
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: keyOf(owner),
        UpdateExpression: 'SET health.lastProbeAt = :at',
        ConditionExpression: 'attribute_exists(health) AND (attribute_not_exists(health.lastProbeAt) OR health.lastProbeAt <= :free)',
        ExpressionAttributeValues: { ':at': at, ':free': freeBefore },
      }),
    );
  } catch (error) {
    if (!conditionFailed(error)) throw error;
    claimed = false;
  }
  const cached = owner.kind === 'destination' ? cache.get(owner.key) : undefined;
  if (cached) remember(owner, { ...cached.health, lastProbeAt: at }, now);
  return claimed;
}

/**
 * The sweep's claim of an open circuit's probe slot for one held alert: like claimProbe, and it names the alert
 * (`probeBy`) whose next delivery may carry the probe (takeProbe). Only while the circuit is open and no probe went
 * within the interval; false otherwise (closed meanwhile, probed meanwhile, or a webhook endpoint gone).
 */
export async function claimProbeFor(owner: HealthOwner, alertId: string, now: number, freeBefore: string, failuresToOpen: number): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: keyOf(owner),
        UpdateExpression: 'SET health.lastProbeAt = :at, health.probeBy = :alert',
        ConditionExpression:
          'attribute_exists(health) AND (attribute_exists(health.openSince) OR health.consecutiveFailures >= :open)' +
          ' AND (attribute_not_exists(health.lastProbeAt) OR health.lastProbeAt <= :free)',
        ExpressionAttributeValues: { ':at': new Date(now).toISOString(), ':alert': alertId, ':free': freeBefore, ':open': failuresToOpen },
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}

/**
 * Takes the probe the sweep claimed for this alert (claimProbeFor): true for one delivery of it, once; false when
 * the probe is another alert's, was taken already, or the circuit closed meanwhile (which removes it).
 */
export async function takeProbe(owner: HealthOwner, alertId: string): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: keyOf(owner),
        UpdateExpression: 'REMOVE health.probeBy',
        ConditionExpression: 'health.probeBy = :alert',
        ExpressionAttributeValues: { ':alert': alertId },
      }),
    );
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
  const cached = owner.kind === 'destination' ? cache.get(owner.key) : undefined;
  if (owner.kind === 'destination' && cached) cache.set(owner.key, { ...cached, health: { ...cached.health, probeBy: null } });
  return true;
}

/** What the sweep reads of one circuit: its health, and for a webhook endpoint whether it is there and enabled. */
export async function readCircuit(owner: HealthOwner): Promise<{ health: CircuitHealth; sending: boolean }> {
  const { Item } = await documentClient().send(
    new GetCommand({
      TableName: table(),
      Key: keyOf(owner),
      ConsistentRead: true,
      // never an endpoint's secrets: the sweep has no use for them
      ProjectionExpression: 'pk, health, #enabled',
      ExpressionAttributeNames: { '#enabled': 'enabled' },
    }),
  );
  const sending = owner.kind === 'destination' || (Item !== undefined && Item.enabled !== false);
  return { health: parseHealth(Item?.health), sending };
}

/** An endpoint enabled again starts afresh: no health, and out of the open list. */
export async function forgetWebhookHealth(clientId: string, endpointId: string): Promise<void> {
  let before: Record<string, unknown> | undefined;
  try {
    ({ Attributes: before } = await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: webhookKeys.endpoint(clientId, endpointId),
        UpdateExpression: 'REMOVE health',
        ConditionExpression: 'attribute_exists(pk)',
        ReturnValues: 'ALL_OLD',
      }),
    ));
  } catch (error) {
    if (!conditionFailed(error)) throw error;
  }
  const { openSince } = parseHealth(before?.health);
  if (openSince !== null) {
    await documentClient().send(new DeleteCommand({ TableName: table(), Key: circuitKeys.failingWebhook(openSince, endpointId) }));
  }
}
