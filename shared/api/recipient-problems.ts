import { ruleChain } from '../rules/rule-chain';
import type { StoredRule } from '../schemas/notification';
import { getUsers } from '../store/directory-store';
import { unreachedRecipients, unverifiedLevelUsers, type TextingLevel } from './channel-reach';
import type { Issue } from './errors';

/**
 * The rule's recipients that a switched-on channel does not reach yet (no linked Telegram chat, no registered
 * phone, disabled or gone), and the users of its texting escalation levels without a verified number, for the
 * rule's `problems`. One batch read of those users, none without them.
 */
export async function recipientProblems(rule: StoredRule): Promise<Issue[]> {
  const channels = rule.toEmail || rule.toTelegram || rule.toMobile || rule.toSms;
  const recipients = channels ? rule.recipientIds : [];
  const texting: TextingLevel[] = (ruleChain(rule)?.levels ?? []).flatMap((level, index) => (level.sms ? [{ index, userIds: level.userIds }] : []));
  const userIds = [...new Set([...recipients, ...texting.flatMap((level) => level.userIds)])];
  if (userIds.length === 0) return [];
  const users = await getUsers(userIds);
  return [...(channels ? unreachedRecipients(rule, users) : []), ...unverifiedLevelUsers(texting, users)];
}
