import { isDeepStrictEqual } from 'node:util';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { vehicleProfileSchema, type VehicleProfile } from '../schemas/directory';
import { clientAndAncestors, getAgent } from './directory-store';
import { parseRecord } from './record-schema';
import { projectVehicleScope } from './rule-coverage';
import { loadVehicleState, setVehicleOwners } from './vehicle-state-store';
import { conditionFailed } from './dynamo';
import { directoryKeys } from './keys';

/**
 * Registering vehicles in the directory, which decides who may watch them: a rule applies to a vehicle only
 * when the vehicle belongs to the rule's client or a client below it. Registering is idempotent; moving a
 * vehicle to another client is a deliberate act (`allowMove`), and its answer names the rules that stop
 * applying to the vehicle.
 */
export class VehicleMoveRefusedError extends Error {
  constructor(
    readonly vehicle: VehicleProfile,
    readonly to: string,
  ) {
    super(`vehicle ${vehicle.vehicleId} belongs to client ${vehicle.parentId}; moving it to client ${to} needs --move`);
    this.name = 'VehicleMoveRefusedError';
  }
}

export class UnknownClientError extends Error {
  constructor(readonly clientId: string) {
    super(`client ${clientId} does not exist`);
    this.name = 'UnknownClientError';
  }
}

/** The vehicle belongs to a client the registering party may not take it from. */
export class VehicleTakenError extends Error {
  constructor(readonly vehicleId: number) {
    super(`vehicle ${vehicleId} is registered to another client`);
    this.name = 'VehicleTakenError';
  }
}

/** The vehicle's record changed between the read and the conditional write. */
export class VehicleChangedError extends Error {
  constructor(
    readonly vehicleId: number,
    options?: ErrorOptions,
  ) {
    super(`vehicle ${vehicleId} changed meanwhile; run the command again`, options);
    this.name = 'VehicleChangedError';
  }
}

export interface RegisterOptions {
  /** Move a vehicle registered to another client. */
  allowMove?: boolean;
  /** Clients the vehicle may be registered to before (a move out of any other client is refused); any when absent. */
  movableFrom?: ReadonlySet<string>;
}

export interface RuleRef {
  id: number;
  name: string;
  parentId: string;
}

export type Registration =
  | { outcome: 'created' | 'unchanged' | 'renamed'; vehicle: VehicleProfile }
  | { outcome: 'moved'; vehicle: VehicleProfile; from: string; rulesNoLongerApplying: RuleRef[] };

const table = () => resourcesConfig().DIRECTORY_TABLE;

export async function getVehicle(vehicleId: number): Promise<VehicleProfile | null> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: directoryKeys.vehicle(vehicleId), ConsistentRead: true }));
  const parsed = vehicleProfileSchema.safeParse(Item);
  return parsed.success ? parsed.data : null;
}

/**
 * Writes the owner chain, and the scoped rules it brings, onto the vehicle's state item when the chain is not
 * there: the second write of a registration that failed after the directory's, which running the command again
 * then completes.
 */
async function repairOwners(vehicleId: number, parentId: string): Promise<void> {
  const chain = await clientAndAncestors(parentId);
  const { projection } = await loadVehicleState(vehicleId);
  if (isDeepStrictEqual(projection.owners, chain)) return;
  await setVehicleOwners(vehicleId, chain);
  await projectVehicleScope(vehicleId, chain, projection.owners);
}

/**
 * Registers a vehicle to a client. The write is conditional on what was read, so a concurrent change is never
 * overwritten silently (it answers as a conflict the caller can retry).
 */
export async function registerVehicle(input: VehicleProfile, options: RegisterOptions = {}): Promise<Registration> {
  const vehicle = parseRecord(vehicleProfileSchema, input, 'vehicle');
  if (!(await getAgent(vehicle.parentId))) throw new UnknownClientError(vehicle.parentId);
  const previous = await getVehicle(vehicle.vehicleId);
  if (previous && options.movableFrom && !options.movableFrom.has(previous.parentId)) throw new VehicleTakenError(vehicle.vehicleId);
  if (previous && previous.parentId === vehicle.parentId && previous.name === vehicle.name) {
    await repairOwners(vehicle.vehicleId, vehicle.parentId);
    return { outcome: 'unchanged', vehicle };
  }
  const moving = previous !== null && previous.parentId !== vehicle.parentId;
  if (moving && !options.allowMove) throw new VehicleMoveRefusedError(previous, vehicle.parentId);
  try {
    await documentClient().send(
      new PutCommand({
        TableName: table(),
        Item: { ...directoryKeys.vehicle(vehicle.vehicleId), ...vehicle },
        ConditionExpression: previous ? 'parentId = :parent AND #name = :name' : 'attribute_not_exists(pk)',
        ...(previous
          ? { ExpressionAttributeNames: { '#name': 'name' }, ExpressionAttributeValues: { ':parent': previous.parentId, ':name': previous.name } }
          : {}),
      }),
    );
  } catch (error) {
    if (conditionFailed(error)) throw new VehicleChangedError(vehicle.vehicleId, { cause: error });
    throw error;
  }
  // evaluation learns the owner chain (and the visit journal its zone sets) from the vehicle's item, and the
  // scoped rules of the chain from its rule refs
  let lost: RuleRef[] = [];
  if (!previous || moving) {
    const chain = await clientAndAncestors(vehicle.parentId);
    await setVehicleOwners(vehicle.vehicleId, chain);
    const leaving = await projectVehicleScope(vehicle.vehicleId, chain, previous ? await clientAndAncestors(previous.parentId) : []);
    lost = leaving.map((rule) => ({ id: rule.id, name: rule.name, parentId: rule.parentId })).sort((a, b) => a.id - b.id);
  }
  if (!previous) return { outcome: 'created', vehicle };
  if (!moving) return { outcome: 'renamed', vehicle };
  return { outcome: 'moved', vehicle, from: previous.parentId, rulesNoLongerApplying: lost };
}
