import { batchGet, mailboxOf, normal } from './address';
import { confirmationDue, sideKey } from './confirmation';
import { optOutKey } from './unsubscribe';
import { suppressedKey } from './suppression';

/**
 * What an e-mail address agreed to, in the directory table, one module per kind of record: the confirmation of a
 * side mailbox (confirmation.ts), the alerts held until it confirms (holds.ts), a rule's List-Unsubscribe token
 * (unsubscribe.ts) and the addresses SES reported (suppression.ts). This reader puts them together for the deliver
 * path, which asks whether each address of an alert may receive it.
 */

/** What stops alerts to an address, per address (lower-case); absent when nothing does. */
export type EmailBlock = 'not confirmed' | 'unsubscribed' | 'suppressed';

export interface EmailStates {
  blocked: Map<string, EmailBlock>;
  /** List-Unsubscribe tokens of the rule, per address that has one. */
  unsubscribeTokens: Map<string, string>;
  /** Side addresses not confirmed yet: their alerts are held. */
  unconfirmed: Set<string>;
  /** Side addresses whose confirmation link has not gone out yet: it is due. */
  unasked: Set<string>;
}

/**
 * Reads, in one batch, what the addresses of one alert agreed to. `sideAddresses` must confirm; every address
 * may have unsubscribed from the rule or be suppressed.
 */
export async function emailStates(
  clientId: string,
  ruleId: number,
  addresses: readonly string[],
  sideAddresses: readonly string[],
  now: number,
): Promise<EmailStates> {
  const all = [...new Set(addresses.map(normal))];
  const sides = [...new Set(sideAddresses.map(normal))];
  const sideKeys = new Map(sides.map((address) => [sideKey(clientId, address).pk, sideKey(clientId, address)]));
  const keys = [...all.map((address) => optOutKey(ruleId, address)), ...all.map((address) => suppressedKey(address)), ...sideKeys.values()];
  const items = new Map((await batchGet(keys)).map((item) => [String(item.pk), item]));
  const states: EmailStates = { blocked: new Map(), unsubscribeTokens: new Map(), unconfirmed: new Set(), unasked: new Set() };
  const asked = new Set<string>();
  for (const address of sides) {
    const side = items.get(sideKey(clientId, address).pk);
    // one link per mailbox: its first address on the rule is sent it
    if (confirmationDue(side, now) && !asked.has(mailboxOf(address))) states.unasked.add(address);
    asked.add(mailboxOf(address));
    if (!side?.confirmedAt) states.unconfirmed.add(address);
    if (side?.unsubscribedAt) states.blocked.set(address, 'unsubscribed');
  }
  for (const address of all) {
    const optOut = items.get(optOutKey(ruleId, address).pk);
    if (typeof optOut?.token === 'string') states.unsubscribeTokens.set(address, optOut.token);
    if (optOut?.optedOutAt) states.blocked.set(address, 'unsubscribed');
    if (items.has(suppressedKey(address).pk)) states.blocked.set(address, 'suppressed');
  }
  return states;
}
