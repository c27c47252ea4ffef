import { logger } from '../observability/logger';
import type { StoredUser } from '../schemas/directory';
import type { StoredRule } from '../schemas/notification';
import { getAgent } from '../store/directory-store';
import { emailStates, requestConfirmation } from '../store/email-consent';
import { linkedChatOwners } from '../store/telegram-links';
import { listWebhooksWithSecrets } from '../store/webhooks-store';
import type { ClientTree } from './client-tree';
import { confirmEmailLink } from './links';
import { loadUsers } from './recipients';
import { escapeHtml } from '../channels/escape-html';
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
 * endpoints of the rule's client. A side address seen for the first time is sent its confirmation link (once
 * per client and address) and gets no alert yet.
 */
export async function lookUpScope(
  rule: StoredRule,
  users: readonly StoredUser[],
  tree: ClientTree,
  senders: ChannelSenders,
  now: number,
): Promise<ScopeLookup> {
  const owner = users.find((user) => user.id === rule.userId);
  const ownerClient = owner?.parentId ?? rule.parentId;

  const usersInScope = new Set<string>();
  for (const user of users) if (await tree.isWithin(user.parentId, ownerClient)) usersInScope.add(user.id);

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
  const states = await emailStates(rule.parentId, rule.id, [...ownAddresses, ...sideAddresses], sideAddresses);
  for (const address of states.unasked) await sendConfirmation(rule.parentId, address, senders, now);

  // webhooks: the endpoints the rule's own client registered, never those of a client above or beside it
  const webhooks = rule.toClient ? await listWebhooksWithSecrets(rule.parentId) : [];

  return { facts: { usersInScope, linkedChats, blockedEmails: states.blocked, webhooks }, unsubscribeTokens: states.unsubscribeTokens };
}

async function sendConfirmation(clientId: string, address: string, senders: ChannelSenders, now: number): Promise<void> {
  const token = await requestConfirmation(clientId, address, now);
  if (!token) return;
  const client = (await getAgent(clientId))?.name ?? 'A fleetwatch client';
  const link = confirmEmailLink(token);
  const text =
    `${client} wants to send fleetwatch vehicle alerts to ${address}.\n\n` +
    `To receive them, open this link and confirm: ${link}\n\n` +
    'If you do not expect these alerts, ignore this e-mail: nothing more will be sent to you.';
  const html = `<p>${escapeHtml(client)} wants to send fleetwatch vehicle alerts to ${escapeHtml(address)}.</p>` +
    `<p><a href="${escapeHtml(link)}">Confirm that you want to receive them</a>.</p>` +
    '<p>If you do not expect these alerts, ignore this e-mail: nothing more will be sent to you.</p>';
  const outcome = await senders.email({ to: address, subject: 'Confirm fleetwatch alerts to this address', text, html });
  if (outcome.status !== 'sent') logger.warn('could not send an address confirmation', { error: outcome.error });
}
