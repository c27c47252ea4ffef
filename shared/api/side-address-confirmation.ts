import { logger } from '../observability/logger';
import type { NotificationBody } from '../schemas/notification';
import { addressesToAsk, registerSideAddresses } from '../store/email-consent/confirmation';
import { forgetHold, heldAlertIds } from '../store/email-consent/holds';
import { enqueueConfirmations, enqueueDeliveries } from '../queues/enqueue-deliveries';
import { validationError } from './errors';
import { limits } from './limits';
import { commonSettings } from '../rules/settings';

type SideAddresses = Pick<NotificationBody, 'parentId' | 'enableSideEmails' | 'sideEmails' | 'settings'>;

/** Every side mailbox the rule may write to: its side addresses, and those it escalates to (`settings.escalateEmails`). */
function addressesOf(rule: SideAddresses): string[] {
  const escalation = commonSettings().escalateEmails.safeParse(rule.settings.escalateEmails).data ?? [];
  return [...new Set([...(rule.enableSideEmails ? rule.sideEmails : []), ...escalation])];
}

/**
 * Before a rule is saved: the side mailboxes it names (side addresses and escalation addresses) that its client never had are registered, and counted
 * against the client's unconfirmed mailboxes (`unconfirmedSideEmailsPerClient`). Past that, 400 naming
 * `sideEmails`, and the rule is not saved.
 */
export async function requireSideAddressRoom(rule: SideAddresses, now: number): Promise<void> {
  const addresses = addressesOf(rule);
  if (addresses.length === 0) return;
  const cap = limits().unconfirmedSideEmailsPerClient;
  if (!(await registerSideAddresses(rule.parentId, addresses, cap, now))) {
    throw validationError([
      {
        path: rule.enableSideEmails && rule.sideEmails.length > 0 ? 'sideEmails' : 'settings.escalateEmails',
        message: `the client already has its most side addresses waiting for confirmation (${cap}); new ones can be added as those confirm`,
      },
    ]);
  }
}

/**
 * A saved rule whose side addresses were never asked: one message per mailbox on the deliveries queue, where
 * the deliver function sends the confirmation link (the one code path that sends it, once per client and
 * mailbox). Saving the rule never waits on SES nor fails for it: a message that cannot be enqueued is logged,
 * and the link then goes out with the rule's first alert, which is held, not lost.
 */
export async function askSideAddresses(rule: SideAddresses, now: number): Promise<void> {
  const all = addressesOf(rule);
  if (all.length === 0) return;
  try {
    const addresses = await addressesToAsk(rule.parentId, all, now);
    const enqueued = await enqueueConfirmations(rule.parentId, addresses);
    if (enqueued.size < addresses.length) logger.warn('confirmation requests not enqueued; the first alert sends them');
  } catch (error) {
    logger.warn('confirmation requests not enqueued; the first alert sends them', { error });
  }
}

/**
 * An address confirmed: its held alerts go back on the deliveries queue (found under the mailbox's own key,
 * so the cost follows its held alerts). A hold is forgotten only once its alert is enqueued; one that could
 * not be is settled by the sweep when its hold runs out (sent then, the address being confirmed).
 */
export async function releaseHeldAlerts(clientId: string, address: string): Promise<void> {
  try {
    const alertIds = await heldAlertIds(clientId, address);
    const enqueued = await enqueueDeliveries(alertIds);
    for (const alertId of enqueued) await forgetHold(clientId, address, alertId);
  } catch (error) {
    logger.warn('held alerts not released; the sweep sends them when their hold runs out', { error });
  }
}
