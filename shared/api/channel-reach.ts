import type { NotificationBody } from '../schemas/notification';
import type { StoredUser } from '../schemas/directory';
import type { Issue } from './errors';

export type ChannelFields = Pick<
  NotificationBody,
  'toEmail' | 'recipientIds' | 'enableSideEmails' | 'sideEmails' | 'toTelegram' | 'telegrams' | 'toMobile'
>;

/**
 * Channels of a rule that are switched on but reach nobody, one issue each, named by the channel's switch: an
 * author who turns e-mail on and names no recipient expects mail that would never come. `recipients` are the
 * rule's recipients the caller may name (users of its scope), as already read to check them; a disabled user
 * receives nothing, so it reaches no one. `toClient` (the web interface, and the client's webhooks) and `stored`
 * (the history) always have their client, and a rule with every channel off still keeps its history when stored.
 * A chat or phone counts when it exists at write time: a recipient who unlinks the chat or removes the phone
 * later leaves the rule in place, as delivery then skips that recipient.
 */
export function unreachedChannels(rule: ChannelFields, recipients: readonly StoredUser[]): Issue[] {
  const reachable = recipients.filter((user) => user.isEnabled && rule.recipientIds.includes(user.id));
  const issues: Issue[] = [];
  if (rule.toEmail && reachable.length === 0) {
    issues.push({ path: 'toEmail', message: 'toEmail reaches nobody: name in recipientIds at least one enabled user of your clients' });
  }
  if (rule.enableSideEmails && rule.sideEmails.length === 0) {
    issues.push({ path: 'enableSideEmails', message: 'enableSideEmails reaches nobody: list at least one address in sideEmails' });
  }
  const linkedChat = reachable.some((user) => Object.values(user.telegramChats).some((chat) => chat.active));
  if (rule.toTelegram && rule.telegrams.length === 0 && !linkedChat) {
    issues.push({
      path: 'toTelegram',
      message: 'toTelegram reaches nobody: list a chat in telegrams, or name in recipientIds a user who has linked a Telegram chat',
    });
  }
  const phone = reachable.some((user) => Object.keys(user.pushDevices).length > 0);
  if (rule.toMobile && !phone) {
    issues.push({
      path: 'toMobile',
      message: 'toMobile reaches nobody: name in recipientIds a user who has registered a phone (POST /api/v3/push/devices)',
    });
  }
  return issues;
}
