import { describeError, type SendOutcome } from '../channels/outcome';
import { logger } from '../observability/logger';
import type { Language } from '../schemas/directory';
import type { WebhookNoticeId } from '../schemas/webhook';
import { getUsers, userIdsOfClient } from '../store/directory-store';
import { claimWebhookNotice, finishWebhookNotice, markWebhookNoticeSent, releaseWebhookNotice } from '../store/webhook-notices';
import { getWebhookWithSecrets } from '../store/webhooks-store';
import { DISABLE_WEBHOOK_AFTER_MS } from './circuit-breaker';
import { formatEventTime } from './format-time';
import { renderWebhookDisabledNotice, type RenderedNotification, type WebhookDisabledNotice } from './render';
import type { ChannelSenders } from './senders';
import { targetKeys } from './targets';

/** How long one sender holds a notice; longer than the deliver function's timeout. */
const NOTICE_LEASE_MS = 5 * 60_000;

/**
 * - sent: every recipient has it now (or can never get it), and the notice is done;
 * - waiting: some recipient could not be reached for now; the sweep hands the notice out again;
 * - dropped: the endpoint was deleted or enabled again meanwhile, so there is nothing to tell;
 * - none: nothing to do (done before, or another sender is at it).
 */
export type NoticeResult = 'sent' | 'waiting' | 'dropped' | 'none';

type Recipient = { key: string; language: Language } & ({ channel: 'email'; address: string } | { channel: 'telegram'; chatId: string });

/** The users of the endpoint's own client, each by e-mail and in each of its linked chats that still take messages. */
async function recipientsOf(clientId: string): Promise<Recipient[]> {
  const users = (await getUsers(await userIdsOfClient(clientId))).filter((user) => user.isEnabled);
  const recipients = new Map<string, Recipient>();
  for (const user of users) {
    const email = targetKeys.email(user.email);
    if (!recipients.has(email)) recipients.set(email, { key: email, channel: 'email', address: user.email, language: user.language });
    for (const chat of Object.values(user.telegramChats)) {
      const key = targetKeys.telegram(chat.chatId);
      if (chat.active && !recipients.has(key)) recipients.set(key, { key, channel: 'telegram', chatId: chat.chatId, language: user.language });
    }
  }
  return [...recipients.values()];
}

async function sendTo(recipient: Recipient, notice: RenderedNotification, senders: ChannelSenders): Promise<SendOutcome> {
  try {
    if (recipient.channel === 'telegram') return await senders.telegram(recipient.chatId, { html: notice.telegram, text: notice.text });
    return await senders.email({ to: recipient.address, subject: notice.subject, text: notice.text, html: notice.html });
  } catch (error) {
    return { status: 'retry', error: describeError(error) };
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/**
 * Tells the users of an endpoint's client, once each, that it was disabled after failing for days: which
 * endpoint (description, id and host, never its secret or its URL's path), since when, and how to enable it and
 * recover what failed. Each recipient reached is marked on the notice before the next is sent, so a second copy
 * of the request, or the sweep's next hand-out, sends only to whom it has not reached.
 */
export async function sendWebhookDisabledNotice(id: WebhookNoticeId, senders: ChannelSenders, now: number): Promise<NoticeResult> {
  const notice = await claimWebhookNotice(id, now, NOTICE_LEASE_MS);
  if (!notice) return 'none';
  const where = { clientId: id.clientId, endpointId: id.endpointId };
  try {
    const endpoint = await getWebhookWithSecrets(id.clientId, id.endpointId);
    if (!endpoint || endpoint.enabled || endpoint.disabledAt !== id.disabledAt) {
      await finishWebhookNotice(id);
      logger.info('webhook notice dropped: the endpoint was deleted or enabled again', where);
      return 'dropped';
    }
    const host = hostOf(endpoint.url);
    const text = (language: Language): WebhookDisabledNotice => ({
      endpoint: endpoint.description || host,
      endpointId: endpoint.id,
      host,
      days: Math.round(DISABLE_WEBHOOK_AFTER_MS / 86_400_000),
      failingSince: formatEventTime(notice.openSince, 0, language),
      disabledAt: formatEventTime(id.disabledAt, 0, language),
      since: notice.openSince,
    });
    let waiting = 0;
    for (const recipient of await recipientsOf(id.clientId)) {
      if (notice.sent[recipient.key] !== undefined) continue;
      const outcome = await sendTo(recipient, renderWebhookDisabledNotice(recipient.language, text(recipient.language)), senders);
      if (outcome.status === 'retry') {
        waiting++;
        logger.warn(`webhook notice not sent: ${outcome.error}; tried again later`, { ...where, channel: recipient.channel });
        continue;
      }
      if (outcome.status === 'failed') logger.warn(`webhook notice refused: ${outcome.error}`, { ...where, channel: recipient.channel });
      await markWebhookNoticeSent(id, recipient.key, now);
    }
    if (waiting > 0) {
      await releaseWebhookNotice(id);
      return 'waiting';
    }
    await finishWebhookNotice(id);
    logger.info('webhook notice sent', where);
    return 'sent';
  } catch (error) {
    await releaseWebhookNotice(id).catch(() => undefined);
    throw error;
  }
}
