import { BatchGetCommand, GetCommand, type BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { logger } from '../observability/logger';

/**
 * One item per vehicle: what the evaluators remember between messages. `version` guards every write
 * (optimistic concurrency); `rules` maps a rule id to that rule's evaluator state for this vehicle.
 */
export const vehiclePositionSchema = z.object({
  latitude: z.number(),
  longitude: z.number(),
  speed: z.number(),
  deviceTime: z.iso.datetime({ offset: true }),
});

export const vehicleStateSchema = z.object({
  vehicleId: z.number().int(),
  version: z.number().int().min(1),
  /** Device time of the newest message that changed the state; older messages are stale. */
  lastDeviceTime: z.iso.datetime({ offset: true }).nullable(),
  /** Server receive time of the newest message, epoch ms. */
  lastSeenAt: z.number().nullable(),
  lastPosition: vehiclePositionSchema.nullable(),
  rules: z.record(z.string(), z.unknown()),
});

export type VehicleState = z.infer<typeof vehicleStateSchema>;
export type VehiclePosition = z.infer<typeof vehiclePositionSchema>;

const BATCH_GET_LIMIT = 100;
const MAX_UNPROCESSED_ROUNDS = 8;

export function vehicleStateTable(): string {
  return resourcesConfig().VEHICLE_STATE_TABLE;
}

function parseState(item: Record<string, unknown>): VehicleState | undefined {
  const parsed = vehicleStateSchema.safeParse(item);
  if (parsed.success) return parsed.data;
  // an unreadable state is treated as absent only for evaluation; its version still guards the write
  logger.error('unreadable vehicle state', { vehicleId: item.vehicleId, issues: parsed.error.issues.slice(0, 5) });
  return undefined;
}

export interface LoadedState {
  state: VehicleState | undefined;
  /** Version stored in the table (0 when there is no item), the condition of the next write. */
  version: number;
}

/** Reads the states of many vehicles with BatchGetItem, 100 keys per request, retrying UnprocessedKeys. */
export async function loadVehicleStates(vehicleIds: readonly number[]): Promise<Map<number, LoadedState>> {
  const tableName = vehicleStateTable();
  const states = new Map<number, LoadedState>();
  const unique = [...new Set(vehicleIds)];
  for (let start = 0; start < unique.length; start += BATCH_GET_LIMIT) {
    let keys: Record<string, unknown>[] = unique.slice(start, start + BATCH_GET_LIMIT).map((vehicleId) => ({ vehicleId }));
    for (let round = 0; keys.length > 0; round++) {
      if (round >= MAX_UNPROCESSED_ROUNDS) throw new Error(`vehicle states still unprocessed after ${round} rounds`);
      if (round > 0) await backoff(round);
      const output: BatchGetCommandOutput = await documentClient().send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: keys, ConsistentRead: true } } }),
      );
      for (const item of output.Responses?.[tableName] ?? []) {
        states.set(Number(item.vehicleId), { state: parseState(item), version: Number(item.version ?? 0) });
      }
      keys = output.UnprocessedKeys?.[tableName]?.Keys ?? [];
    }
  }
  for (const vehicleId of unique) if (!states.has(vehicleId)) states.set(vehicleId, { state: undefined, version: 0 });
  return states;
}

/** Reads one vehicle's state (consistent), used when a conditional write found the version moved. */
export async function loadVehicleState(vehicleId: number): Promise<LoadedState> {
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: vehicleStateTable(), Key: { vehicleId }, ConsistentRead: true }),
  );
  return Item ? { state: parseState(Item), version: Number(Item.version ?? 0) } : { state: undefined, version: 0 };
}

function backoff(round: number): Promise<void> {
  const delay = Math.min(1_000, 25 * 2 ** round) * (0.5 + Math.random() / 2);
  return new Promise((resolve) => setTimeout(resolve, delay));
}
