import type { StoredRule } from '../schemas/notification';
import { getUsers } from '../store/directory-store';
import { unreachedRecipients } from './channel-reach';
import type { Issue } from './errors';

/**
 * The rule's recipients that a switched-on channel does not reach yet (no linked Telegram chat, no registered
 * phone, disabled or gone), for the rule's `problems`. One batch read of the recipients, none without them.
 */
export async function recipientProblems(rule: StoredRule): Promise<Issue[]> {
  if (rule.recipientIds.length === 0 || !(rule.toEmail || rule.toTelegram || rule.toMobile || rule.toSms)) return [];
  return unreachedRecipients(rule, await getUsers(rule.recipientIds));
}
