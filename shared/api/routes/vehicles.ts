import type { VehicleProfile } from '../../schemas/directory';
import { getVehicles } from '../../store/directory-store';
import {
  UnknownClientError,
  VehicleChangedError,
  VehicleMoveRefusedError,
  VehicleTakenError,
  getVehicle,
  registerVehicle,
} from '../../store/vehicle-registry';
import { vehicleIdsOwnedBy } from '../../store/vehicle-state-store';
import {
  vehicleCreateBodySchema,
  vehicleFindBodySchema,
  vehicleFindResponseSchema,
  vehicleReplaceBodySchema,
  vehicleWriteResponseSchema,
} from '../directory-schemas';
import { clientNames, pageOf, vehicleRecord } from '../directory-views';
import { conflict, notFound } from '../errors';
import { defineRoute, type Caller } from '../route';

/**
 * Registers the vehicle through the one registration path the admin CLI and the import use (owner chain and
 * zone sets on the vehicle's state item included), limited to the caller's scope: a vehicle of a client outside
 * it is never taken over, and one of another client inside it moves only with allowMove.
 */
async function register(vehicle: VehicleProfile, allowMove: boolean, caller: Caller) {
  const scope = await caller.scope.agentIds();
  try {
    const registered = await registerVehicle(vehicle, { allowMove, movableFrom: scope });
    const names = await clientNames([vehicle.parentId]);
    if (registered.outcome !== 'moved') return vehicleRecord(registered.vehicle, names);
    return {
      ...vehicleRecord(registered.vehicle, names),
      rulesNoLongerApplying: registered.rulesNoLongerApplying.filter((rule) => scope.has(rule.parentId)),
    };
  } catch (error) {
    if (error instanceof VehicleTakenError) throw conflict(`vehicle ${vehicle.vehicleId} is registered to a client outside your scope`);
    if (error instanceof VehicleMoveRefusedError) {
      throw conflict(
        `vehicle ${vehicle.vehicleId} belongs to client ${error.vehicle.parentId}; send allowMove: true to move it to client ${vehicle.parentId}`,
      );
    }
    if (error instanceof VehicleChangedError) throw conflict(`vehicle ${vehicle.vehicleId} changed meanwhile; try again`);
    if (error instanceof UnknownClientError) throw notFound(`client ${error.clientId}`);
    throw error;
  }
}

export const vehicleRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v3/vehicles/find',
    operationId: 'findVehicles',
    tag: 'vehicles',
    summary: 'List the vehicles of your client and of the clients below it',
    description:
      'Filters: vehicleId (exact), name (part, any letter case), parentId (exact owning client); null ignores a filter. ' +
      'fleetwatch stores no imei, SIM numbers, device types, subdivisions or custom fields: those filters accept only null. ' +
      'Ordered by vehicleId. A parentId outside your scope is 404.',
    auth: true,
    writes: false,
    body: vehicleFindBodySchema,
    response: vehicleFindResponseSchema,
    errors: [404],
    async handle({ body, caller }) {
      if (body.parentId) await caller.scope.require(body.parentId, `client ${body.parentId}`);
      const clients = body.parentId ? new Set([body.parentId]) : await caller.scope.agentIds();
      const ids = body.vehicleId ? [body.vehicleId] : (await Promise.all([...clients].map(vehicleIdsOwnedBy))).flat();
      const part = body.name?.toLowerCase();
      // the directory's record, not the index, decides the owner
      const vehicles = (await getVehicles(ids))
        .filter((vehicle) => clients.has(vehicle.parentId) && (part ? vehicle.name.toLowerCase().includes(part) : true))
        .sort((a, b) => a.vehicleId - b.vehicleId);
      const page = pageOf(vehicles, body);
      const names = await clientNames(page.map((vehicle) => vehicle.parentId));
      return { body: page.map((vehicle) => vehicleRecord(vehicle, names)) };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/vehicles',
    operationId: 'registerVehicle',
    tag: 'vehicles',
    summary: "Register a vehicle under the platform's id",
    description:
      'Registers the vehicle to parentId (default your own client), which must be in your scope (404 otherwise). Registering is ' +
      'idempotent: the same vehicle again changes nothing, a new name renames it. A vehicle registered to a client outside your ' +
      'scope is 409; one registered to another client of your scope is moved only with allowMove: true (409 otherwise), and ' +
      'the answer then lists your rules that stop applying to it.',
    auth: true,
    writes: true,
    body: vehicleCreateBodySchema,
    response: vehicleWriteResponseSchema,
    errors: [403, 404, 409],
    async handle({ body, caller }) {
      const parentId = body.parentId ?? caller.scope.rootId;
      await caller.scope.require(parentId, `client ${parentId}`);
      return { body: await register({ vehicleId: body.vehicleId, name: body.name, parentId }, body.allowMove, caller) };
    },
  }),

  defineRoute({
    method: 'PUT',
    path: '/api/v3/vehicles',
    operationId: 'replaceVehicle',
    tag: 'vehicles',
    summary: 'Replace a vehicle',
    description:
      'Replaces name and owning client of a registered vehicle of your scope (404 otherwise). A different parentId moves the ' +
      'vehicle, only with allowMove: true (409 otherwise), to a client of your scope (404 otherwise).',
    auth: true,
    writes: true,
    body: vehicleReplaceBodySchema,
    response: vehicleWriteResponseSchema,
    errors: [403, 404, 409],
    async handle({ body, caller }) {
      const previous = await getVehicle(body.vehicleId);
      if (!previous || !(await caller.scope.includes(previous.parentId))) throw notFound(`vehicle ${body.vehicleId}`);
      await caller.scope.require(body.parentId, `client ${body.parentId}`);
      return { body: await register({ vehicleId: body.vehicleId, name: body.name, parentId: body.parentId }, body.allowMove, caller) };
    },
  }),
];
