import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand, paginateQuery, type PutCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { logger } from '../observability/logger';
import { vehicleStateSchema, type VehicleState } from '../schemas/vehicle-state';
import { batchGetItems } from './batch-get';
import { PACKED_STATE_ATTRIBUTE, packState, unpackState } from './vehicle-state-codec';
import { conditionFailed } from './dynamo';

/**
 * One item per vehicle, the unit of loading and of trust. Evaluate reads it (in the batch's BatchGetItem) and
 * learns from it everything it needs besides the message:
 * - what the evaluators remember between messages (`rules`: rule id → that rule's state, device time, last seen);
 * - who owns the vehicle (`owners`: the owning client first, then each client above it), written by the directory;
 * - which rules apply to it and at which version (`ruleRefs`), and the versions of the geozones those rules use
 *   (`zoneRefs`), written by the projector from the rules and geozones tables' streams;
 * - when it falls silent (`silentAt`, in the sparse `bySilence` index), for the sweep;
 * - the version of each owner-chain client's set of geozones (`zoneSets`: client id → version), which the visit
 *   journal follows, and the owning client alone (`owner`, key of the keys-only `byOwner` index), by which the
 *   projector finds the vehicles of a client whose zones changed;
 * - the visit journal's state (`visits`): the zones the vehicle is inside and the open visits.
 * `version` guards every write (optimistic concurrency): the projector and the directory bump it too, so an
 * evaluation computed against an older item is recomputed.
 * What the table's indexes, conditions and update expressions name (`vehicleId`, `version`, `owners`, `owner`,
 * `ruleRefs`, `zoneRefs`, `zoneSets`, `silenceShard`, `silentAt`) are attributes of their own; the rest of the
 * state, which only evaluation reads and it writes whole, is packed into one (`state`, vehicle-state-codec.ts).
 */
const refsSchema = z.record(z.string(), z.number().int()).catch({});
const projectionSchema = z.object({
  owners: z.array(z.string()).catch([]).default([]),
  ruleRefs: refsSchema.default({}),
  zoneRefs: refsSchema.default({}),
  zoneSets: refsSchema.default({}),
});

/** What the directory and the projector maintain on the vehicle's item; evaluation only reads it and keeps it. */
export interface VehicleProjection {
  /** The owning client first, then every client above it; empty for a vehicle the directory does not know. */
  owners: string[];
  /** Rule id → version of the rule as last projected onto this vehicle. */
  ruleRefs: Record<string, number>;
  /** Geozone id → version, for the zones the vehicle's rules use. */
  zoneRefs: Record<string, number>;
  /** Client id → version of that client's set of geozones, for each client of `owners` (the visit journal). */
  zoneSets?: Record<string, number>;
}

/** Sparse index of silence deadlines: `silenceShard` is one of SILENCE_SHARDS partitions, `silentAt` epoch ms. */
export const SILENCE_INDEX = 'bySilence';
export const SILENCE_SHARDS = 16;
export const silenceShardOf = (vehicleId: number) => `silence#${vehicleId % SILENCE_SHARDS}`;

export function vehicleStateTable(): string {
  return resourcesConfig().VEHICLE_STATE_TABLE;
}

/**
 * The state's fields of an item: unpacked from `state`, or, for an item written before the state was packed,
 * its own attributes; undefined when `state` cannot be unpacked.
 */
function stateFields(item: Record<string, unknown>): Record<string, unknown> | undefined {
  if (item[PACKED_STATE_ATTRIBUTE] === undefined) return item;
  const fields = unpackState(item[PACKED_STATE_ATTRIBUTE]);
  return fields && { ...fields, vehicleId: item.vehicleId, version: item.version };
}

function parseState(item: Record<string, unknown>): VehicleState | undefined {
  const fields = stateFields(item);
  const parsed = fields === undefined ? undefined : vehicleStateSchema.safeParse(fields);
  if (parsed?.success) return parsed.data;
  // an unreadable state is treated as absent only for evaluation; its version still guards the write
  logger.error('unreadable vehicle state', {
    vehicleId: item.vehicleId,
    ...(parsed ? { issues: parsed.error.issues.slice(0, 5) } : { reason: `${PACKED_STATE_ATTRIBUTE} not decodable` }),
  });
  return undefined;
}

export interface LoadedState {
  state: VehicleState | undefined;
  /** Version stored in the table (0 when there is no item), the condition of the next write. */
  version: number;
  projection: VehicleProjection;
  /** The silence deadline indexed with the stored state, epoch ms; null when none. */
  silentAt: number | null;
}

const EMPTY_PROJECTION: VehicleProjection = { owners: [], ruleRefs: {}, zoneRefs: {} };

function loaded(item: Record<string, unknown> | undefined): LoadedState {
  if (!item) return { state: undefined, version: 0, projection: EMPTY_PROJECTION, silentAt: null };
  return {
    state: parseState(item),
    version: Number(item.version ?? 0),
    projection: projectionSchema.parse(item),
    silentAt: typeof item.silentAt === 'number' ? item.silentAt : null,
  };
}

/**
 * Reads many vehicles' items in BatchGetItem requests of 100 keys; consistent unless asked otherwise, at twice
 * the read units (see runVehicleSteps for when an eventually consistent read is safe).
 */
export async function loadVehicleStates(vehicleIds: readonly number[], options: { consistent: boolean }): Promise<Map<number, LoadedState>> {
  const unique = [...new Set(vehicleIds)];
  const items = await batchGetItems(
    vehicleStateTable(),
    unique.map((vehicleId) => ({ vehicleId })),
    { consistentRead: options.consistent },
  );
  const states = new Map<number, LoadedState>();
  for (const item of items) states.set(Number(item.vehicleId), loaded(item));
  for (const vehicleId of unique) if (!states.has(vehicleId)) states.set(vehicleId, loaded(undefined));
  return states;
}

/** Reads one vehicle's item (consistent), used when a conditional write found the version moved. */
export async function loadVehicleState(vehicleId: number): Promise<LoadedState> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: vehicleStateTable(), Key: { vehicleId }, ConsistentRead: true }));
  return loaded(Item);
}

/** The whole item evaluation writes: the new state (packed), the projection it was read with, the silence deadline. */
export function vehicleItem(state: VehicleState, projection: VehicleProjection, silentAt: number | null): Record<string, unknown> {
  const { vehicleId, version, ...fields } = state;
  return {
    vehicleId,
    version,
    [PACKED_STATE_ATTRIBUTE]: packState(fields),
    ...(projection.owners.length > 0 ? { owners: projection.owners } : {}),
    ...(Object.keys(projection.ruleRefs).length > 0 ? { ruleRefs: projection.ruleRefs } : {}),
    ...(Object.keys(projection.zoneRefs).length > 0 ? { zoneRefs: projection.zoneRefs } : {}),
    ...(projection.owners.length > 0 ? { owner: projection.owners[0] } : {}),
    ...(projection.zoneSets && Object.keys(projection.zoneSets).length > 0 ? { zoneSets: projection.zoneSets } : {}),
    ...(silentAt === null ? {} : { silenceShard: silenceShardOf(state.vehicleId), silentAt }),
  };
}

/** Keys-only index of vehicles by owning client (`owner` = owners[0]), for the projector of zone changes. */
export const OWNER_INDEX = 'byOwner';

/** The query of the client's own vehicles on the keys-only `byOwner` index. */
const ownedBy = (owner: string) => ({
  TableName: vehicleStateTable(),
  IndexName: OWNER_INDEX,
  KeyConditionExpression: '#owner = :owner',
  ExpressionAttributeNames: { '#owner': 'owner' },
  ExpressionAttributeValues: { ':owner': owner },
});

/** Ids of the vehicles the client owns itself (not those of clients below it), through the keys-only `byOwner` index. */
export async function vehicleIdsOwnedBy(owner: string): Promise<number[]> {
  const vehicleIds: number[] = [];
  for await (const page of paginateQuery({ client: documentClient() }, ownedBy(owner))) {
    for (const item of page.Items ?? []) vehicleIds.push(Number(item.vehicleId));
  }
  return vehicleIds;
}

/** How many vehicles the client owns itself, counted on the keys-only `byOwner` index. */
export async function countVehiclesOwnedBy(owner: string): Promise<number> {
  let count = 0;
  for await (const page of paginateQuery({ client: documentClient() }, { ...ownedBy(owner), Select: 'COUNT' })) count += page.Count ?? 0;
  return count;
}

/**
 * Records who owns the vehicle now (owner first, then the clients above it), and starts a new zone-set version
 * for every client of the chain, so that the visit journal reads the new owners' zones. An empty list forgets
 * the owner, and takes the vehicle out of the silence index: nobody's rules apply to it any more.
 */
export async function setVehicleOwners(vehicleId: number, owners: readonly string[], now: number = Date.now()): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: vehicleStateTable(),
      Key: { vehicleId },
      UpdateExpression:
        owners.length > 0
          ? 'SET owners = :owners, #owner = :owner, zoneSets = :sets ADD version :one'
          : 'REMOVE owners, #owner, zoneSets, silenceShard, silentAt ADD version :one',
      ExpressionAttributeNames: { '#owner': 'owner' },
      ExpressionAttributeValues: {
        ':one': 1,
        ...(owners.length > 0 ? { ':owners': [...owners], ':owner': owners[0], ':sets': Object.fromEntries(owners.map((id) => [id, now])) } : {}),
      },
    }),
  );
}

/**
 * Moves one client's zone-set version on a vehicle, only if the vehicle's chain has that client and the stored
 * version is older (a late projection never undoes a newer one). Returns whether the item changed.
 */
export async function bumpZoneSet(vehicleId: number, clientId: string, version: number): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: vehicleStateTable(),
        Key: { vehicleId },
        UpdateExpression: 'SET zoneSets.#client = :version ADD version :one',
        ConditionExpression: 'zoneSets.#client < :version',
        ExpressionAttributeNames: { '#client': clientId },
        ExpressionAttributeValues: { ':version': version, ':one': 1 },
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}

export interface RefChange {
  vehicleId: number;
  /** Rule refs to set (id → version) and to remove. */
  setRules?: Record<number, number>;
  removeRules?: number[];
  /** Zone refs to set (id → version) and to remove. */
  setZones?: Record<number, number>;
  removeZones?: number[];
}

/**
 * Applies a projected change of rule and zone refs to one vehicle's item, creating the item when the vehicle
 * has none yet. Stream records of one rule or zone arrive in order, so the last projection wins.
 */
export async function applyRefChange(change: RefChange): Promise<void> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':one': 1, ':empty': {} };
  const sets: string[] = [];
  const removes: string[] = [];
  let n = 0;
  const ensureMaps: string[] = [];
  const setRefs = (map: 'ruleRefs' | 'zoneRefs', refs: Record<number, number> | undefined) => {
    const entries = Object.entries(refs ?? {});
    if (entries.length === 0) return;
    ensureMaps.push(map);
    for (const [id, version] of entries) {
      names[`#k${n}`] = id;
      values[`:v${n}`] = version;
      sets.push(`${map}.#k${n} = :v${n}`);
      n++;
    }
  };
  const removeRefs = (map: 'ruleRefs' | 'zoneRefs', ids: number[] | undefined) => {
    for (const id of ids ?? []) {
      names[`#k${n}`] = String(id);
      removes.push(`${map}.#k${n}`);
      n++;
    }
  };
  setRefs('ruleRefs', change.setRules);
  setRefs('zoneRefs', change.setZones);
  removeRefs('ruleRefs', change.removeRules);
  removeRefs('zoneRefs', change.removeZones);
  if (sets.length === 0 && removes.length === 0) return;
  const update = (withMaps: boolean) =>
    documentClient().send(
      new UpdateCommand({
        TableName: vehicleStateTable(),
        Key: { vehicleId: change.vehicleId },
        UpdateExpression: [
          withMaps
            ? `SET ${ensureMaps.map((map) => `${map} = if_not_exists(${map}, :empty)`).join(', ')}`
            : sets.length > 0
              ? `SET ${sets.join(', ')}`
              : '',
          !withMaps && removes.length > 0 ? `REMOVE ${removes.join(', ')}` : '',
          'ADD version :one',
        ]
          .filter(Boolean)
          .join(' '),
        ...(withMaps || Object.keys(names).length === 0 ? {} : { ExpressionAttributeNames: names }),
        ExpressionAttributeValues: withMaps
          ? { ':one': 1, ':empty': {} }
          : Object.fromEntries(Object.entries(values).filter(([key]) => key !== ':empty')),
      }),
    );
  try {
    await update(false);
  } catch (error) {
    // a nested path needs its map: create the maps, then set the entries
    if ((error as Error).name !== 'ValidationException') throw error;
    if (ensureMaps.length === 0) return; // only removals, from a map the item does not have
    await update(true);
    await update(false);
  }
}

/** A vehicle whose silence deadline has come, with its owner (null in an older installation's keys-only index). */
export interface FallingSilent {
  vehicleId: number;
  silentAt: number;
  owner: string | null;
}

/** Vehicles whose silence deadline is at or before `until`, with their owner, from every shard of the index. */
export async function vehiclesFallingSilent(until: number): Promise<FallingSilent[]> {
  const shards = Array.from({ length: SILENCE_SHARDS }, (_, shard) => `silence#${shard}`);
  const found = await Promise.all(
    shards.map(async (shard) => {
      const vehicles: FallingSilent[] = [];
      for await (const page of paginateQuery(
        { client: documentClient() },
        {
          TableName: vehicleStateTable(),
          IndexName: SILENCE_INDEX,
          // no projection expression: the keys-only index of an older installation, which an upgrade keeps for a
          // while (docs/deploy.md), refuses a query naming `owner`, and answers this one without it
          KeyConditionExpression: 'silenceShard = :shard AND silentAt <= :until',
          ExpressionAttributeValues: { ':shard': shard, ':until': until },
        },
      )) {
        for (const item of page.Items ?? [])
          vehicles.push({
            vehicleId: Number(item.vehicleId),
            silentAt: Number(item.silentAt),
            owner: typeof item.owner === 'string' ? item.owner : null,
          });
      }
      return vehicles;
    }),
  );
  return found.flat();
}

/**
 * Writes a vehicle change's items in one transaction; a lone state Put goes as a plain conditional PutItem (billed
 * half), its failed condition answered as the one-item transaction's cancellation would be.
 */
export async function commitVehiclePuts(items: readonly { Put: PutCommandInput }[]): Promise<void> {
  const [only] = items;
  if (items.length === 1 && only && only.Put.TableName === vehicleStateTable()) {
    try {
      await documentClient().send(new PutCommand(only.Put));
    } catch (error) {
      // the same answer a one-item transaction gives, so that one code path handles both
      if (conditionFailed(error)) {
        throw new TransactionCanceledException({
          message: 'state version moved',
          $metadata: {},
          CancellationReasons: [{ Code: 'ConditionalCheckFailed' }],
        });
      }
      throw error;
    }
    return;
  }
  await documentClient().send(new TransactWriteCommand({ TransactItems: [...items] }));
}
