import type { StoredUser } from '../schemas/directory';
import type { StoredRule } from '../schemas/notification';
import { emailStates } from '../store/email-consent';
import { linkedChatOwners } from '../store/telegram-links';
import { listWebhooksWithSecrets } from '../store/webhooks-store';
import type { ClientTree } from './client-tree';
import { sendConfirmation } from './confirmation';
import { loadUsers } from '../store/recipients';
import type { ChannelSenders } from './senders';
import type { ScopeFacts } from './targets';

export interface ScopeLookup {
  facts: ScopeFacts;
  /** List-Unsubscribe tokens already issued for the rule, by address (lower-case). */
  unsubscribeTokens: Map<string, string>;
}

const lower = (address: string) => address.trim().toLowerCase();

/**
 * Looks up what the plan of one alert must respect: which recipients and rule chats belong to the rule owner's
 * scope (the owner's client and the clients below it), which addresses must get nothing, and the webhook
 * endpoints of the rule's client. A side address whose confirmation link never went out (the one of the rule's
 * saving was lost) is sent it now; its alert is held until it confirms. A test alert (`ask: false`) sends no link:
 * it only reports the address as not confirmed. `onCall` (an escalation's) names users a rota put on call: a rota
 * may be covered by users of the rule's client or of a client above it, and those are in scope for it too.
 */
export async function lookUpScope(
  rule: StoredRule,
  users: readonly StoredUser[],
  tree: ClientTree,
  senders: ChannelSenders,
  now: number,
  ask = true,
  onCall: ReadonlySet<string> = new Set(),
): Promise<ScopeLookup> {
  const owner = users.find((user) => user.id === rule.userId);
  const ownerClient = owner?.parentId ?? rule.parentId;

  const usersInScope = new Set<string>();
  for (const user of users) {
    const covering = onCall.has(user.id) && (await tree.isWithin(rule.parentId, user.parentId));
    if (covering || (await tree.isWithin(user.parentId, ownerClient))) usersInScope.add(user.id);
  }

  const linkedChats = new Set<string>();
  if (rule.toTelegram && rule.telegrams.length > 0) {
    const owners = await linkedChatOwners(rule.telegrams.map((chat) => String(chat.id)));
    const chatUsers = new Map((await loadUsers([...new Set(owners.values())])).map((user) => [user.id, user]));
    for (const [chatId, userId] of owners) {
      const user = chatUsers.get(userId);
      if (user?.isEnabled && user.telegramChats[chatId]?.active && (await tree.isWithin(user.parentId, ownerClient))) linkedChats.add(chatId);
    }
  }

  const ownAddresses = rule.toEmail ? users.filter((user) => usersInScope.has(user.id)).map((user) => lower(user.email)) : [];
  const sideAddresses = rule.enableSideEmails ? rule.sideEmails.map(lower).filter((address) => !ownAddresses.includes(address)) : [];
  const states = await emailStates(rule.parentId, rule.id, [...ownAddresses, ...sideAddresses], sideAddresses, now);
  // a link that cannot go out now is tried again by the rule's next alert or saving
  if (ask) for (const address of states.unasked) await sendConfirmation(rule.parentId, address, senders, now);

  // webhooks: the endpoints the rule's own client registered, never those of a client above or beside it
  const webhooks = rule.toClient ? await listWebhooksWithSecrets(rule.parentId) : [];

  return {
    facts: { usersInScope, linkedChats, blockedEmails: states.blocked, unconfirmedEmails: states.unconfirmed, webhooks },
    unsubscribeTokens: states.unsubscribeTokens,
  };
}
