import type { NotificationBody, StoredRule } from '../schemas/notification';
import { getUsers, getVehicles } from '../store/directory-store';
import { getGeozones } from '../store/geozones-store';
import { clientAndAncestors } from '../store/directory-store';
import { conditionZoneIds } from '../rules/rule-validation';
import { linkedChatOwners } from '../store/telegram-links';
import { unreachedChannels } from './channel-reach';
import { validationError, type Issue } from './errors';
import type { TenantScope } from './scope';
import { escalationIssues } from './escalation-references';

/**
 * Checks what a rule refers to against the caller's scope, answering 400 with one issue per bad reference:
 * - geozones must exist and belong to the scope (so a referenced zone can be protected from deletion); the zones of
 *   a zone condition (`settings.zones`) must be zones of the rule's client or of a client above it;
 * - recipients and the owning user must be users of the scope (alerts must not reach other tenants);
 * - vehicles must be in the directory and belong to the scope: a rule over an unregistered id could otherwise
 *   watch a vehicle before its owner registers it (vehicles reach the directory through the admin CLI and the
 *   bulk import of the platform's vehicle records).
 * - Telegram chats named on the rule must be linked (deep link) by a user of the scope, and still take alerts;
 *   the official bot must not message strangers.
 * - the escalation targets of the settings are checked as the rule's own recipients and chats (escalation-references);
 * - every channel switched on must be able to reach someone (`unreachedChannels`), judged on the rule's own fields.
 * Unknown and foreign references get the same message, so the answer reveals nothing of other tenants.
 *
 * `stored`: the rule as stored, on a replace. Its recipients and chats that the replace keeps, for the same client,
 * are not judged again: whether a recipient was since disabled or removed, or a chat unlinked, is the state of
 * another resource, which must not make an edit of the rule fail (delivery judges them at each alert, and the
 * rule's `problems` say who is not reached).
 */
export async function checkRuleReferences(body: NotificationBody, scope: TenantScope, stored?: StoredRule): Promise<void> {
  const kept = stored?.parentId === body.parentId ? stored : undefined;
  const keptRecipients = new Set(kept?.recipientIds ?? []);
  const keptChats = new Set((kept?.telegrams ?? []).map((chat) => String(chat.id)));
  const issues: Issue[] = [];
  const inScope = await scope.agentIds();
  if (body.activationMode === 1 && body.activationTime === null) {
    issues.push({ path: 'activationTime', message: 'activationTime is required when activationMode is 1' });
  }

  const conditionZones = conditionZoneIds(body.settings);
  const [zones, users, vehicles, conditionZoneRecords, ruleChain] = await Promise.all([
    getGeozones(body.geoids),
    getUsers([...body.recipientIds, ...(body.userId ? [body.userId] : [])]),
    getVehicles(body.vehicleIds),
    getGeozones(conditionZones),
    conditionZones.length > 0 ? clientAndAncestors(body.parentId) : [],
  ]);
  // a zone condition may use the zones of the rule's client and of the clients above it (shared zones)
  const chain = new Set(ruleChain);
  const usableZones = new Set(conditionZoneRecords.filter((zone) => chain.has(zone.parentId)).map((zone) => zone.id));
  const unusable = conditionZones.filter((id) => !usableZones.has(id));
  if (unusable.length > 0)
    issues.push({ path: 'settings.zones', message: `no geozone ${unusable.join(', ')} of client ${body.parentId} or a client above it` });
  const visibleZones = new Set(zones.filter((zone) => inScope.has(zone.parentId)).map((zone) => zone.id));
  body.geoids.forEach((id, index) => {
    if (!visibleZones.has(id)) issues.push({ path: `geoids.${index}`, message: `no geozone ${id} in your scope` });
  });
  const usersInScope = users.filter((user) => inScope.has(user.parentId));
  const visibleUsers = new Set(usersInScope.map((user) => user.id));
  body.recipientIds.forEach((id, index) => {
    if (!visibleUsers.has(id) && !keptRecipients.has(id)) issues.push({ path: `recipientIds.${index}`, message: `no user ${id} in your scope` });
  });
  if (body.userId && !visibleUsers.has(body.userId)) issues.push({ path: 'userId', message: `no user ${body.userId} in your scope` });
  const visibleVehicles = new Set(vehicles.filter((vehicle) => inScope.has(vehicle.parentId)).map((vehicle) => vehicle.vehicleId));
  body.vehicleIds.forEach((id, index) => {
    if (!visibleVehicles.has(id)) issues.push({ path: `vehicleIds.${index}`, message: `no vehicle ${id} in your scope` });
  });

  const newChats = body.telegrams.filter((chat) => !keptChats.has(String(chat.id)));
  if (newChats.length > 0) {
    // a chat id may be sent as a number or a string; it is kept as sent, and looked up as text
    const owners = await linkedChatOwners(newChats.map((chat) => String(chat.id)));
    const chatUsers = new Map((await getUsers([...new Set(owners.values())])).map((user) => [user.id, user]));
    body.telegrams.forEach((chat, index) => {
      const chatId = String(chat.id);
      if (keptChats.has(chatId)) return;
      const user = chatUsers.get(owners.get(chatId) ?? '');
      const linked = user && inScope.has(user.parentId) && user.telegramChats[chatId]?.active;
      if (!linked) issues.push({ path: `telegrams.${index}.id`, message: `no chat ${chat.id} linked by a user in your scope` });
    });
  }

  issues.push(...(await escalationIssues(body, inScope)));
  issues.push(...unreachedChannels(body));

  if (issues.length > 0) throw validationError(issues);
}
