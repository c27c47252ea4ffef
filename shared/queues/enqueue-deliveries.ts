import { sendMessage, sendMessageBatch } from '../aws/sqs';
import type { TestSendRequest } from '../schemas/test-send';
import type { RecoveryStep, WebhookRecoverRequest } from '../schemas/webhook-recovery';
import { resourcesConfig } from '../config';
import type { ConfirmationRequest, DeliveryRequest, DigestRequest, QuietHoursDigestRequest } from '../schemas/alert';
import type { DigestId } from '../store/email-digests';
import type { WebhookNoticeId, WebhookNoticeRequest } from '../schemas/webhook';
import { logger } from '../observability/logger';

/**
 * Asks the deliver function to deliver alerts, ten per SendMessageBatch. An alert that could not be enqueued
 * stays `pending` in the alerts table and the sweep's outbox pass enqueues it later, so a failure here is
 * logged, never thrown: the alert is already safely committed.
 * Returns the ids that were enqueued.
 */
export async function enqueueDeliveries(alertIds: readonly string[]): Promise<Set<string>> {
  const enqueued = new Set<string>();
  if (alertIds.length === 0) return enqueued;
  const queueUrl = resourcesConfig().DELIVERIES_QUEUE_URL;
  for (let start = 0; start < alertIds.length; start += 10) {
    const chunk = alertIds.slice(start, start + 10);
    try {
      const output = await sendMessageBatch({
        QueueUrl: queueUrl,
        Entries: chunk.map((alertId, index) => ({
          Id: String(index),
          MessageBody: JSON.stringify({ alertId } satisfies DeliveryRequest),
        })),
      });
      const failedIds = new Set((output.Failed ?? []).map((entry) => Number(entry.Id)));
      for (const [index, alertId] of chunk.entries()) {
        if (failedIds.has(index)) logger.warn('delivery request not enqueued; the outbox will retry', { alertId });
        else enqueued.add(alertId);
      }
    } catch (error) {
      logger.warn('delivery requests not enqueued; the outbox will retry', { alertIds: chunk, error });
    }
  }
  return enqueued;
}

/**
 * Asks the deliver function to send side addresses of one client their confirmation link, ten per
 * SendMessageBatch. Returns the addresses enqueued; a failure is logged, and the caller keeps what it has
 * (the rule's first alert, or the next sweep, sends the rest).
 */
export async function enqueueConfirmations(clientId: string, addresses: readonly string[]): Promise<Set<string>> {
  const enqueued = new Set<string>();
  for (let start = 0; start < addresses.length; start += 10) {
    const chunk = addresses.slice(start, start + 10);
    try {
      const output = await sendMessageBatch({
        QueueUrl: resourcesConfig().DELIVERIES_QUEUE_URL,
        Entries: chunk.map((address, index) => ({
          Id: String(index),
          MessageBody: JSON.stringify({ confirmEmail: { clientId, address } } satisfies ConfirmationRequest),
        })),
      });
      const failedIds = new Set((output.Failed ?? []).map((entry) => Number(entry.Id)));
      if (failedIds.size) logger.warn('confirmation requests not enqueued', { failed: failedIds.size });
      for (const [index, address] of chunk.entries()) if (!failedIds.has(index)) enqueued.add(address);
    } catch (error) {
      logger.warn('confirmation requests not enqueued', { error });
    }
  }
  return enqueued;
}

/** The queue message that asks for a digest. */
function digestRequest(id: DigestId): DigestRequest | QuietHoursDigestRequest {
  if (id.kind === 'quota') return { emailDigest: { clientId: id.clientId, address: id.address } };
  return { quietHoursDigest: { userId: id.userId, targetKey: id.targetKey, until: new Date(id.until).toISOString() } };
}

/**
 * Asks the deliver function to send recipients their digests (of alert e-mails held near the quota, or of a
 * user's quiet hours), ten per SendMessageBatch. Returns how many were enqueued; a failure is logged, and a
 * digest not enqueued is due again later.
 */
export async function enqueueDigests(digests: readonly DigestId[]): Promise<number> {
  let enqueued = 0;
  for (let start = 0; start < digests.length; start += 10) {
    const chunk = digests.slice(start, start + 10);
    try {
      const output = await sendMessageBatch({
        QueueUrl: resourcesConfig().DELIVERIES_QUEUE_URL,
        Entries: chunk.map((id, index) => ({ Id: String(index), MessageBody: JSON.stringify(digestRequest(id)) })),
      });
      const failed = output.Failed?.length ?? 0;
      if (failed) logger.warn('digest requests not enqueued; due again later', { failed });
      enqueued += chunk.length - failed;
    } catch (error) {
      logger.warn('digest requests not enqueued; due again later', { error });
    }
  }
  return enqueued;
}

/**
 * Asks the deliver function to send the notices of endpoints disabled after days of failure, ten per
 * SendMessageBatch. Returns how many were enqueued; a failure is logged, and a notice not enqueued is due again
 * later.
 */
export async function enqueueWebhookNotices(notices: readonly WebhookNoticeId[]): Promise<number> {
  let enqueued = 0;
  for (let start = 0; start < notices.length; start += 10) {
    const chunk = notices.slice(start, start + 10);
    try {
      const output = await sendMessageBatch({
        QueueUrl: resourcesConfig().DELIVERIES_QUEUE_URL,
        Entries: chunk.map(({ clientId, endpointId, disabledAt }, index) => ({
          Id: String(index),
          MessageBody: JSON.stringify({ webhookDisabled: { clientId, endpointId, disabledAt } } satisfies WebhookNoticeRequest),
        })),
      });
      const failed = output.Failed?.length ?? 0;
      if (failed) logger.warn('webhook notices not enqueued; due again later', { failed });
      enqueued += chunk.length - failed;
    } catch (error) {
      logger.warn('webhook notices not enqueued; due again later', { error });
    }
  }
  return enqueued;
}

/** Asks the deliver function to send a rule's test alert. Throws when the queue does not take it. */
export async function enqueueTestSend(testId: string, ruleId: number): Promise<void> {
  await sendMessage({
    QueueUrl: resourcesConfig().DELIVERIES_QUEUE_URL,
    MessageBody: JSON.stringify({ testSend: { testId, ruleId } } satisfies TestSendRequest),
  });
}

/** Asks the deliver function to run a step of a webhook recovery. Throws when the queue does not take it. */
export async function enqueueWebhookRecovery(step: RecoveryStep): Promise<void> {
  await sendMessage({
    QueueUrl: resourcesConfig().DELIVERIES_QUEUE_URL,
    MessageBody: JSON.stringify({ webhookRecover: step } satisfies WebhookRecoverRequest),
  });
}
