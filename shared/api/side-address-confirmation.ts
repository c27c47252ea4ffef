import { sendMessageBatch } from '../aws/sqs';
import { resourcesConfig } from '../config';
import { logger } from '../observability/logger';
import type { ConfirmationRequest } from '../schemas/alert';
import type { NotificationBody } from '../schemas/notification';
import { addressesToAsk, forgetHold, heldAlertIds } from '../store/email-consent';
import { enqueueDeliveries } from '../pipeline/enqueue-deliveries';

/**
 * A saved rule whose side addresses were never asked: one message per address on the deliveries queue, where
 * the deliver function sends the confirmation link (the one code path that sends it, once per client and
 * address). Saving the rule never waits on SES nor fails for it: a message that cannot be enqueued is logged,
 * and the link then goes out with the rule's first alert, which is held, not lost.
 */
export async function askSideAddresses(rule: Pick<NotificationBody, 'parentId' | 'enableSideEmails' | 'sideEmails'>, now: number): Promise<void> {
  if (!rule.enableSideEmails || rule.sideEmails.length === 0) return;
  try {
    const addresses = await addressesToAsk(rule.parentId, rule.sideEmails, now);
    for (let start = 0; start < addresses.length; start += 10) {
      const entries = addresses.slice(start, start + 10).map((address, index) => ({
        Id: String(index),
        MessageBody: JSON.stringify({ confirmEmail: { clientId: rule.parentId, address } } satisfies ConfirmationRequest),
      }));
      const output = await sendMessageBatch({ QueueUrl: resourcesConfig().DELIVERIES_QUEUE_URL, Entries: entries });
      if (output.Failed?.length) logger.warn('confirmation requests not enqueued; the first alert sends them', { failed: output.Failed.length });
    }
  } catch (error) {
    logger.warn('confirmation requests not enqueued; the first alert sends them', { error });
  }
}

/**
 * An address confirmed: its held alerts go back on the deliveries queue (found under the address's own key,
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
