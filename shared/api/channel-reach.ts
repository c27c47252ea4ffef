import type { NotificationBody } from '../schemas/notification';
import type { StoredUser } from '../schemas/directory';
import type { Issue } from './errors';

export type ChannelFields = Pick<
  NotificationBody,
  'toEmail' | 'recipientIds' | 'enableSideEmails' | 'sideEmails' | 'toTelegram' | 'telegrams' | 'toMobile' | 'toSms'
>;

/**
 * Channels of a rule that are switched on but can never reach anyone, one issue each, named by the channel's
 * switch: an author who turns e-mail on and names no recipient expects mail that would never come. Judged on the
 * rule's own fields only, never on the state of users or chats: recipients are usually named before they link a
 * chat or register a phone, and a recipient who unlinks later must not make an unrelated edit of the rule fail.
 * Who is not reached yet is the rule's `problems` (unreachedRecipients). `toClient` (the web interface, and the
 * client's webhooks) and `stored` (the history) always have their client, and a rule with every channel off still
 * keeps its history when stored.
 */
export function unreachedChannels(rule: ChannelFields): Issue[] {
  const named = rule.recipientIds.length > 0;
  const issues: Issue[] = [];
  if (rule.toEmail && !named) {
    issues.push({ path: 'toEmail', message: 'toEmail reaches nobody: name at least one user of your clients in recipientIds' });
  }
  if (rule.enableSideEmails && rule.sideEmails.length === 0) {
    issues.push({ path: 'enableSideEmails', message: 'enableSideEmails reaches nobody: list at least one address in sideEmails' });
  }
  if (rule.toTelegram && !named && rule.telegrams.length === 0) {
    issues.push({
      path: 'toTelegram',
      message: 'toTelegram reaches nobody: list a chat in telegrams, or name in recipientIds a user, who gets alerts in the chats they link',
    });
  }
  if (rule.toMobile && !named) {
    issues.push({
      path: 'toMobile',
      message: 'toMobile reaches nobody: name in recipientIds a user, who gets alerts on the phones they register (POST /api/v3/push/devices)',
    });
  }
  if (rule.toSms && !named) {
    issues.push({
      path: 'toSms',
      message: 'toSms reaches nobody: name in recipientIds a user, who gets alerts by SMS once their phoneNumber is verified',
    });
  }
  return issues;
}

/**
 * Each recipient a switched-on channel of the rule does not reach yet, for the rule's `problems`: one issue per
 * recipient and channel, named `recipientIds.<i>`. `users` are the recipients as read now (a missing one no
 * longer exists). Users are named by id only: a rule may name users its reader cannot see.
 */
export function unreachedRecipients(rule: ChannelFields, users: readonly StoredUser[]): Issue[] {
  const byId = new Map(users.map((user) => [user.id, user]));
  const switched = (['toEmail', 'toTelegram', 'toMobile', 'toSms'] as const).filter((channel) => rule[channel]);
  if (switched.length === 0) return [];
  return rule.recipientIds.flatMap((id, index): Issue[] => {
    const path = `recipientIds.${index}`;
    const user = byId.get(id);
    if (!user) return [{ path, message: `user ${id} no longer exists: it gets nothing through ${switched.join(', ')}` }];
    if (!user.isEnabled) return [{ path, message: `user ${id} is disabled: it gets nothing through ${switched.join(', ')}` }];
    const issues: Issue[] = [];
    if (rule.toTelegram && !Object.values(user.telegramChats).some((chat) => chat.active))
      issues.push({
        path,
        message: `user ${id} has no linked Telegram chat yet (or stopped it): toTelegram reaches them once they link one (POST /api/v3/telegram/link)`,
      });
    if (rule.toMobile && Object.keys(user.pushDevices).length === 0)
      issues.push({
        path,
        message: `user ${id} has not registered a phone yet: toMobile reaches them once they do (POST /api/v3/push/devices)`,
      });
    if (rule.toSms && !(user.phoneNumber && user.phoneVerifiedAt))
      issues.push({
        path,
        message: `user ${id} has no verified phone number yet: toSms reaches them once it is verified (POST /api/v3/users/{id}/phone/verification)`,
      });
    return issues;
  });
}

/** An escalation level that texts its users (`sms`): its index in the chain and the users it names. */
export interface TextingLevel {
  index: number;
  userIds: readonly string[];
}

/**
 * Each user a texting level names who has no verified phone number yet, named `settings.escalation.<i>.userIds.<j>`.
 * The people a rota puts on call are not listed: who that is changes with the rota.
 */
export function unverifiedLevelUsers(levels: readonly TextingLevel[], users: readonly StoredUser[]): Issue[] {
  const byId = new Map(users.map((user) => [user.id, user]));
  return levels.flatMap((level) =>
    level.userIds.flatMap((id, position): Issue[] => {
      const user = byId.get(id);
      if (user?.phoneNumber && user.phoneVerifiedAt) return [];
      return [
        {
          path: `settings.escalation.${level.index}.userIds.${position}`,
          message: `user ${id} has no verified phone number yet: this level texts them once it is verified (POST /api/v3/users/{id}/phone/verification)`,
        },
      ];
    }),
  );
}
