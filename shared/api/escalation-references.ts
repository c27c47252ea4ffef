import { commonSettings } from '../rules/settings';
import { getUsers } from '../store/directory-store';
import { getRotas } from '../store/rotas-store';
import { linkedChatOwners } from '../store/telegram-links';
import { clientAndAncestors } from '../store/directory-store';
import type { Issue } from './errors';

/**
 * The escalation of a rule, checked: it needs `stored` (an alert is escalated only while it is open, and only a
 * stored alert has a state); its targets are checked like the rule's own recipients: each user of `escalateUserIds`
 * must be a user of the scope, each chat of `escalateTelegrams` linked by an enabled user of the scope and
 * still taking alerts. The settings read well already (the rule's settings schema judged them first).
 * Unknown and foreign ids get the same message.
 */
export async function escalationIssues(
  { settings, stored, parentId }: { settings: Record<string, string>; stored: boolean; parentId: string },
  inScope: ReadonlySet<string>,
): Promise<Issue[]> {
  const issues: Issue[] = [...(await chainIssues(settings, stored, parentId, inScope))];
  // only a stored alert has a state to wait on: an escalation of another would be saved and do nothing
  if ((commonSettings().escalateAfter.safeParse(settings.escalateAfter).data ?? 0) > 0 && !stored)
    issues.push({ path: 'settings.escalateAfter', message: 'escalateAfter needs stored: true (only stored alerts can be acknowledged)' });
  const userIds = commonSettings().escalateUserIds.safeParse(settings.escalateUserIds).data ?? [];
  const chatIds = commonSettings().escalateTelegrams.safeParse(settings.escalateTelegrams).data ?? [];
  if (userIds.length > 0) {
    const visible = new Set((await getUsers(userIds)).filter((user) => inScope.has(user.parentId)).map((user) => user.id));
    const foreign = userIds.filter((id) => !visible.has(id));
    if (foreign.length > 0) issues.push({ path: 'settings.escalateUserIds', message: `no user ${foreign.join(', ')} in your scope` });
  }
  if (chatIds.length > 0) {
    const owners = await linkedChatOwners(chatIds);
    const chatUsers = new Map((await getUsers([...new Set(owners.values())])).map((user) => [user.id, user]));
    const unlinked = chatIds.filter((chatId) => {
      const user = chatUsers.get(owners.get(chatId) ?? '');
      return !(user?.isEnabled && inScope.has(user.parentId) && user.telegramChats[chatId]?.active);
    });
    if (unlinked.length > 0)
      issues.push({ path: 'settings.escalateTelegrams', message: `no chat ${unlinked.join(', ')} linked by a user in your scope` });
  }
  return issues;
}

/**
 * The levels of `settings.escalation`, checked as escalateAfter's targets are, each issue named
 * `settings.escalation.<level>.<field>.<index>`; and each rota must be of the rule's client or of a client above
 * it (whose people may cover it), and within your scope.
 */
async function chainIssues(settings: Record<string, string>, stored: boolean, parentId: string, inScope: ReadonlySet<string>): Promise<Issue[]> {
  const levels = commonSettings().escalation.safeParse(settings.escalation).data;
  if (!levels) return [];
  const issues: Issue[] = [];
  if (!stored) issues.push({ path: 'settings.escalation', message: 'escalation needs stored: true (only stored alerts can be acknowledged)' });
  const userIds = [...new Set(levels.flatMap((level) => level.userIds))];
  const chatIds = [...new Set(levels.flatMap((level) => level.telegrams))];
  const rotaIds = [...new Set(levels.flatMap((level) => level.rotaIds))];
  const [users, owners, rotas, allowedClients] = await Promise.all([
    getUsers(userIds),
    linkedChatOwners(chatIds),
    getRotas(rotaIds),
    rotaIds.length > 0 ? clientAndAncestors(parentId) : Promise.resolve([]),
  ]);
  const visibleUsers = new Set(users.filter((user) => inScope.has(user.parentId)).map((user) => user.id));
  const chatUsers = new Map((await getUsers([...new Set(owners.values())])).map((user) => [user.id, user]));
  const linked = (chatId: string) => {
    const user = chatUsers.get(owners.get(chatId) ?? '');
    return Boolean(user?.isEnabled && inScope.has(user.parentId) && user.telegramChats[chatId]?.active);
  };
  const allowed = new Set(allowedClients);
  const usableRotas = new Set(rotas.filter((rota) => allowed.has(rota.parentId) && inScope.has(rota.parentId)).map((rota) => rota.id));
  levels.forEach((level, index) => {
    const at = `settings.escalation.${index}`;
    level.userIds.forEach((id, item) => {
      if (!visibleUsers.has(id)) issues.push({ path: `${at}.userIds.${item}`, message: `no user ${id} in your scope` });
    });
    level.telegrams.forEach((chatId, item) => {
      if (!linked(chatId)) issues.push({ path: `${at}.telegrams.${item}`, message: `no chat ${chatId} linked by a user in your scope` });
    });
    level.rotaIds.forEach((id, item) => {
      if (!usableRotas.has(id))
        issues.push({ path: `${at}.rotaIds.${item}`, message: `no rota ${id} of client ${parentId} or of a client above it` });
    });
  });
  return issues;
}
