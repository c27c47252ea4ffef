import { COMMON_SETTINGS } from '../rules/settings';
import type { StoredRule } from '../schemas/notification';

/**
 * The rule as its escalations see it: the escalation targets of its settings in place of its own recipients,
 * so that an escalation is looked up and planned exactly like an alert (scope, linked chats, confirmed side
 * addresses, unsubscribes). Its users get it on every channel they have; webhooks get none.
 */
export function escalationRule(rule: StoredRule): StoredRule {
  const userIds = COMMON_SETTINGS.escalateUserIds.safeParse(rule.settings.escalateUserIds).data ?? [];
  const chatIds = COMMON_SETTINGS.escalateTelegrams.safeParse(rule.settings.escalateTelegrams).data ?? [];
  const emails = COMMON_SETTINGS.escalateEmails.safeParse(rule.settings.escalateEmails).data ?? [];
  return {
    ...rule,
    recipientIds: userIds,
    toEmail: true,
    toTelegram: true,
    toMobile: true,
    toClient: false,
    telegrams: chatIds.map((id) => ({ id, info: '' })),
    enableSideEmails: emails.length > 0,
    sideEmails: emails,
  };
}
