import { COMMON_SETTINGS } from '../rules/settings';
import { getUsers } from '../store/directory-store';
import { linkedChatOwners } from '../store/telegram-links';
import type { Issue } from './errors';

/**
 * The escalation of a rule, checked: it needs `stored` (an alert is escalated only while it is open, and only a
 * stored alert has a state); its targets are checked like the rule's own recipients: each user of `escalateUserIds`
 * must be a user of the scope, each chat of `escalateTelegrams` linked by an enabled user of the scope and
 * still taking alerts. The settings read well already (the rule's settings schema judged them first).
 * Unknown and foreign ids get the same message.
 */
export async function escalationIssues(
  { settings, stored }: { settings: Record<string, string>; stored: boolean },
  inScope: ReadonlySet<string>,
): Promise<Issue[]> {
  const issues: Issue[] = [];
  // only a stored alert has a state to wait on: an escalation of another would be saved and do nothing
  if ((COMMON_SETTINGS.escalateAfter.safeParse(settings.escalateAfter).data ?? 0) > 0 && !stored)
    issues.push({ path: 'settings.escalateAfter', message: 'escalateAfter needs stored: true (only stored alerts can be acknowledged)' });
  const userIds = COMMON_SETTINGS.escalateUserIds.safeParse(settings.escalateUserIds).data ?? [];
  const chatIds = COMMON_SETTINGS.escalateTelegrams.safeParse(settings.escalateTelegrams).data ?? [];
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
