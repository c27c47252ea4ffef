import type { StoredRule } from '../schemas/notification';
import { sideRecords } from '../store/email-consent/confirmation';
import { confirmationStop } from '../store/sender-guard';
import type { Issue } from './errors';

/**
 * Why side addresses of a rule get no alerts although they are on it, for the rule's `problems`: the address
 * unsubscribed from the client, its confirmation waits for the client's daily budget, or the client's
 * confirmations are stopped. One batch read of the rule's side mailboxes and one read of the client's stop.
 */
export async function sideAddressProblems(rule: StoredRule, now: number): Promise<Issue[]> {
  if (!rule.enableSideEmails || rule.sideEmails.length === 0) return [];
  const [records, stop] = await Promise.all([sideRecords(rule.parentId, rule.sideEmails), confirmationStop(rule.parentId)]);
  return rule.sideEmails.flatMap((address, index) => {
    const record = records.get(address.trim().toLowerCase());
    const message = problemOf(address, record, stop !== null, now);
    return message ? [{ path: `sideEmails.${index}`, message }] : [];
  });
}

function problemOf(address: string, record: Record<string, unknown> | undefined, stopped: boolean, now: number): string | null {
  if (record?.unsubscribedAt)
    return `${address} unsubscribed from every rule of this client; only the address itself can subscribe again, from its unsubscribe link`;
  if (record?.confirmedAt) return null;
  if (stopped)
    return `${address}: confirmation stopped, too many of this client's confirmation e-mails bounced or were marked as spam; an operator must clear it`;
  if (typeof record?.waitsUntil === 'number' && record.waitsUntil > now)
    return `${address}: confirmation waits for the client's daily budget, resumes ${new Date(record.waitsUntil).toISOString()}`;
  return null;
}
