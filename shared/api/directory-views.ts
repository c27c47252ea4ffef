import type { Agent, StoredUser, VehicleProfile } from '../schemas/directory';
import { getAgent } from '../store/directory-store';
import type { Paging } from './directory-schemas';

/**
 * How the directory endpoints answer their records: only the platform's fields fleetwatch stores, never a
 * password hash, session, linked chat or push device.
 */

/** One page of an ordered list. */
export const pageOf = <T>(records: readonly T[], paging: Paging): T[] => records.slice(paging.offset, paging.offset + paging.limit);

/** Names of the given clients, read once each. */
export async function clientNames(agentIds: Iterable<string>): Promise<Map<string, string>> {
  const unique = [...new Set(agentIds)];
  const agents = await Promise.all(unique.map(getAgent));
  return new Map(agents.flatMap((agent) => (agent ? [[agent.agentId, agent.name] as const] : [])));
}

export const agentSummary = ({ agentId, parentId, name, fullName, agentInfoType, status }: Agent) => ({
  agentId,
  parentId,
  name,
  fullName,
  agentInfoType,
  status,
});

export const userSummary = (user: StoredUser, names: ReadonlyMap<string, string>) => ({
  id: user.id,
  login: user.login,
  email: user.email,
  firstName: user.firstName,
  lastName: user.lastName,
  parentId: user.parentId,
  parentName: names.get(user.parentId) ?? '',
  sessionDuration: user.sessionDuration,
});

export const userRecord = (user: StoredUser, names: ReadonlyMap<string, string>) => ({
  ...userSummary(user, names),
  language: user.language,
  isReadOnly: user.isReadOnly,
  isEnabled: user.isEnabled,
  phoneNumber: user.phoneNumber,
  phoneVerified: user.phoneNumber !== null && user.phoneVerifiedAt !== null,
});

export const vehicleRecord = ({ vehicleId, name, parentId }: VehicleProfile, names: ReadonlyMap<string, string>) => ({
  vehicleId,
  name,
  parentId,
  parentName: names.get(parentId) ?? '',
});
