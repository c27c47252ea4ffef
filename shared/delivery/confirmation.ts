import { CONFIRMATION_TAG } from '../channels/email/ses-events';
import { escapeHtml } from '../channels/escape-html';
import { readConfig, senderSchema } from '../config';
import { logger } from '../observability/logger';
import { getAgent } from '../store/directory-store';
import { claimConfirmation, settleConfirmation } from '../store/email-consent/confirmation';
import { mailboxOf } from '../store/email-consent/address';
import { confirmationStop, noteConfirmationWait, takeConfirmationBudget } from '../store/sender-guard';
import { confirmEmailLink } from './links';
import type { ChannelSenders } from './senders';

/**
 * - sent: the link went out now;
 * - not-due: it went out before, the address confirmed or unsubscribed, it waits for the budget, or another
 *   sender is sending it;
 * - retry: a passing problem; the link is still due and the next attempt sends it;
 * - waiting: the client's daily budget is spent; the sweep hands the link back when the next day begins;
 * - stopped: the client's confirmations are stopped (bounces, complaints) until an operator clears them;
 * - failed: SES refused the address for good; it is recorded as asked, nothing more is tried.
 */
export type ConfirmationResult = 'sent' | 'not-due' | 'retry' | 'waiting' | 'stopped' | 'failed';

/** SES message tags of a confirmation e-mail: its SES events name the client it was sent for. */
const confirmationTags = (clientId: string) => [{ name: CONFIRMATION_TAG, value: clientId }];

/**
 * Sends a side address its double opt-in link, at most once per client and mailbox, within the client's daily
 * budget, and never while its confirmations are stopped. The one way such a link goes out: from the deliveries
 * queue (a rule was saved, or a wait for the budget ended) and from an alert's delivery (the link never went out).
 */
export async function sendConfirmation(clientId: string, address: string, senders: ChannelSenders, now: number): Promise<ConfirmationResult> {
  if (await confirmationStop(clientId)) return 'stopped';
  const token = await claimConfirmation(clientId, address, now);
  if (!token) return 'not-due';
  try {
    const resumesAt = await takeConfirmationBudget(clientId, now, readConfig(senderSchema()).CONFIRMATIONS_PER_CLIENT_PER_DAY);
    if (resumesAt !== null) {
      await noteConfirmationWait(clientId, mailboxOf(address), address, resumesAt);
      await settleConfirmation(clientId, address, { waitsUntil: resumesAt }, now);
      logger.info("address confirmation waits for the client's daily budget", { clientId, resumesAt: new Date(resumesAt).toISOString() });
      return 'waiting';
    }
    const client = (await getAgent(clientId))?.name ?? 'A fleetwatch client';
    const link = confirmEmailLink(token);
    const text =
      `${client} wants to send fleetwatch vehicle alerts to ${address}.\n\n` +
      `To receive them, open this link and confirm: ${link}\n\n` +
      'If you do not expect these alerts, ignore this e-mail: nothing more will be sent to you.';
    const html =
      `<p>${escapeHtml(client)} wants to send fleetwatch vehicle alerts to ${escapeHtml(address)}.</p>` +
      `<p><a href="${escapeHtml(link)}">Confirm that you want to receive them</a>.</p>` +
      '<p>If you do not expect these alerts, ignore this e-mail: nothing more will be sent to you.</p>';
    const outcome = await senders.email({
      to: address,
      subject: 'Confirm fleetwatch alerts to this address',
      text,
      html,
      tags: confirmationTags(clientId),
    });
    if (outcome.status === 'retry') {
      await settleConfirmation(clientId, address, 'released', now);
      logger.warn('address confirmation not sent; to be retried', { error: outcome.error });
      return 'retry';
    }
    await settleConfirmation(clientId, address, 'sent', now);
    if (outcome.status === 'failed') logger.warn('address confirmation refused', { error: outcome.error });
    return outcome.status;
  } catch (error) {
    await settleConfirmation(clientId, address, 'released', now).catch(() => undefined);
    throw error;
  }
}
