import { loadUsers } from '../store/recipients';
import { blockSideEmail, unblockSideEmail } from '../store/email-consent/confirmation';
import { resubscribe, unsubscribe } from '../store/email-consent/unsubscribe';
import { getRule } from '../store/rules-store';

/**
 * The client of the link's rule when the address is a side address of it (not the e-mail of one of the rule's
 * users): its unsubscribing then stops every rule of that client. Null for a user's address, whose unsubscribing
 * stops the one rule, or when the rule is gone.
 */
async function sideClientOf(ruleId: number, address: string): Promise<string | null> {
  const rule = await getRule(ruleId);
  if (!rule) return null;
  const users = await loadUsers(rule.userId ? [...rule.recipientIds, rule.userId] : rule.recipientIds);
  return users.some((user) => user.email.trim().toLowerCase() === address) ? null : rule.parentId;
}

/**
 * One-click unsubscribe: stops the rule's alerts to the address and, for a side address, every rule of the
 * client and every confirmation link to it. Returns false for a wrong token.
 */
export async function unsubscribeByLink(token: string, now: number): Promise<boolean> {
  const link = await unsubscribe(token, now);
  if (!link) return false;
  const clientId = await sideClientOf(link.ruleId, link.address);
  if (clientId) await blockSideEmail(clientId, link.address, now);
  return true;
}

/**
 * Subscribing again, by the address's own unsubscribe token: the rule's alerts, and for a side address the
 * client's, reach it again; this counts as the side address's confirmation. Returns false for a wrong token.
 */
export async function resubscribeByLink(token: string, now: number): Promise<boolean> {
  const link = await resubscribe(token);
  if (!link) return false;
  const clientId = await sideClientOf(link.ruleId, link.address);
  if (clientId) await unblockSideEmail(clientId, link.address, now);
  return true;
}
