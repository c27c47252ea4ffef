import type { NotificationBody } from '../schemas/notification';
import { getUsers, getVehicles } from '../store/directory-store';
import { getGeozones } from '../store/geozones-store';
import { validationError, type Issue } from './errors';
import type { TenantScope } from './scope';

/**
 * Checks what a rule refers to against the caller's scope, answering 400 with one issue per bad reference:
 * - geozones must exist and belong to the scope (so a referenced zone can be protected from deletion);
 * - recipients and the owning user must be users of the scope (alerts must not reach other tenants);
 * - vehicles must be in the directory and belong to the scope: a rule on a vehicle nobody registered would
 *   watch whoever reports under that id later.
 * Unknown and foreign geozones, users and vehicles get the same message, so the answer reveals nothing of other tenants.
 */
export async function checkRuleReferences(body: NotificationBody, scope: TenantScope): Promise<void> {
  const issues: Issue[] = [];
  const inScope = await scope.agentIds();
  if (body.activationMode === 1 && body.activationTime === null) {
    issues.push({ path: 'activationTime', message: 'activationTime is required when activationMode is 1' });
  }

  const [zones, users, vehicles] = await Promise.all([
    getGeozones(body.geoids),
    getUsers([...body.recipientIds, ...(body.userId ? [body.userId] : [])]),
    getVehicles(body.vehicleIds),
  ]);
  const visibleZones = new Set(zones.filter((zone) => inScope.has(zone.parentId)).map((zone) => zone.id));
  body.geoids.forEach((id, index) => {
    if (!visibleZones.has(id)) issues.push({ path: `geoids.${index}`, message: `no geozone ${id} in your scope` });
  });
  const visibleUsers = new Set(users.filter((user) => inScope.has(user.parentId)).map((user) => user.id));
  body.recipientIds.forEach((id, index) => {
    if (!visibleUsers.has(id)) issues.push({ path: `recipientIds.${index}`, message: `no user ${id} in your scope` });
  });
  if (body.userId && !visibleUsers.has(body.userId)) issues.push({ path: 'userId', message: `no user ${body.userId} in your scope` });
  const visibleVehicles = new Set(vehicles.filter((vehicle) => inScope.has(vehicle.parentId)).map((vehicle) => vehicle.vehicleId));
  body.vehicleIds.forEach((id, index) => {
    if (!visibleVehicles.has(id)) issues.push({ path: `vehicleIds.${index}`, message: `no vehicle ${id} in your scope` });
  });

  if (issues.length > 0) throw validationError(issues);
}
