import type { SQSRecord } from 'aws-lambda';
import { changeMessageVisibility } from '../aws/sqs';
import { resourcesConfig } from '../config';
import { describeError } from '../channels/outcome';
import { logger } from '../observability/logger';
import { MetricName, MetricUnit, metrics } from '../observability/metrics';
import {
  confirmationRequestSchema,
  deliveryRequestSchema,
  digestRequestSchema,
  quietHoursDigestRequestSchema,
  type ConfirmationRequest,
  type DeliveryRequest,
  type DigestRequest,
  type QuietHoursDigestRequest,
} from '../schemas/alert';
import { testSendRequestSchema, type TestSendRequest } from '../schemas/test-send';
import { webhookNoticeRequestSchema, type WebhookNoticeRequest } from '../schemas/webhook';
import { sendWebhookDisabledNotice } from './webhook-notice';
import { webhookRecoverRequestSchema, type WebhookRecoverRequest } from '../schemas/webhook-recovery';
import { sendConfirmation } from './confirmation';
import { sendTestAlert } from './test-send';
import { runRecoveryStep } from './recover-webhook';
import { sendToDeliveriesDlq } from './dead-letter';
import { deliverAlert } from './deliver-alert';
import { sendDigest } from './email-digest';
import type { DeliveryStats } from './delivery-stats';
import type { ChannelSenders } from './senders';

/**
 * One record of the deliveries queue (`{"alertId": "..."}`, `{"confirmEmail": {...}}` for a side address's
 * confirmation link, `{"testSend": {...}}` for a rule's test alert, `{"emailDigest": {...}}` for a recipient's
 * digest of held alert e-mails, `{"quietHoursDigest": {...}}` for a user's digest of its quiet hours, or
 * `{"webhookDisabled": {...}}` for the notice of an endpoint disabled after days of failure, or
 * `{"webhookRecover": {...}}` for a step of a webhook recovery): delivered, parked on the DLQ with its reason
 * (malformed body; an alert's targets that can never be delivered go there one by one), or thrown back to the queue
 * for a later retry.
 */
export interface DeliveryRequestDependencies {
  senders: ChannelSenders;
  stats: DeliveryStats;
  /** Epoch ms. */
  clock: () => number;
  /** The deliveries queue's maxReceiveCount. */
  maxReceiveCount: number;
}

/** A record to be handed out again by the queue later; its reason is already recorded on the alert. */
export class DeliveryNotFinishedError extends Error {
  override name = 'DeliveryNotFinishedError';
}

export function parseDeliveryRequest(
  body: string,
):
  | DeliveryRequest
  | ConfirmationRequest
  | TestSendRequest
  | DigestRequest
  | QuietHoursDigestRequest
  | WebhookNoticeRequest
  | WebhookRecoverRequest
  | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { error: 'body is not JSON' };
  }
  const confirmation = confirmationRequestSchema.safeParse(json);
  if (confirmation.success) return confirmation.data;
  const test = testSendRequestSchema.safeParse(json);
  if (test.success) return test.data;
  const digest = digestRequestSchema.safeParse(json);
  if (digest.success) return digest.data;
  const quiet = quietHoursDigestRequestSchema.safeParse(json);
  if (quiet.success) return quiet.data;
  const notice = webhookNoticeRequestSchema.safeParse(json);
  if (notice.success) return notice.data;
  const recover = webhookRecoverRequestSchema.safeParse(json);
  if (recover.success) return recover.data;
  const parsed = deliveryRequestSchema.safeParse(json);
  if (!parsed.success) {
    return {
      error: `body is not {"alertId": "..."}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'} ${issue.message}`).join('; ')}`,
    };
  }
  return parsed.data;
}

export async function handleDeliveryRequest(record: SQSRecord, dependencies: DeliveryRequestDependencies): Promise<void> {
  const request = parseDeliveryRequest(record.body);
  if ('error' in request) {
    logger.warn('malformed delivery request sent to the DLQ', { messageId: record.messageId, reason: request.error });
    await sendToDeliveriesDlq(record.body, request.error);
    metrics.addMetric(MetricName.MessagesRejected, MetricUnit.Count, 1);
    return;
  }
  if ('confirmEmail' in request) {
    const { clientId, address } = request.confirmEmail;
    // a passing problem: the queue hands the record out again (and to the DLQ after its last receive); a link
    // waiting for the client's budget is the sweep's to hand back, one stopped waits for an operator
    if ((await sendConfirmation(clientId, address, dependencies.senders, dependencies.clock())) === 'retry') {
      throw new DeliveryNotFinishedError('the confirmation link could not be sent yet');
    }
    return;
  }
  if ('testSend' in request) {
    // one attempt per target, never retried: a test answers what happens now
    await sendTestAlert(request.testSend.testId, request.testSend.ruleId, dependencies.senders, dependencies.clock());
    return;
  }
  // a digest that cannot go out now is due again later: the sweep hands it back, the queue never retries it
  if ('emailDigest' in request) {
    await sendDigest({ kind: 'quota', ...request.emailDigest }, dependencies.senders, dependencies.stats, dependencies.clock());
    return;
  }
  if ('quietHoursDigest' in request) {
    const { userId, targetKey, until } = request.quietHoursDigest;
    await sendDigest(
      { kind: 'quietHours', userId, targetKey, until: Date.parse(until) },
      dependencies.senders,
      dependencies.stats,
      dependencies.clock(),
    );
    return;
  }
  // like a digest: what cannot go out now is handed back by the sweep, the queue never retries it
  if ('webhookDisabled' in request) {
    await sendWebhookDisabledNotice(request.webhookDisabled, dependencies.senders, dependencies.clock());
    return;
  }
  if ('webhookRecover' in request) {
    await runRecoveryStep(request.webhookRecover, {
      messageId: record.messageId,
      receiveCount: Number(record.attributes.ApproximateReceiveCount) || 1,
      maxReceiveCount: dependencies.maxReceiveCount,
      now: dependencies.clock,
    });
    return;
  }
  const outcome = await deliverAlert(request.alertId, {
    senders: dependencies.senders,
    stats: dependencies.stats,
    messageId: record.messageId,
    receiveCount: Number(record.attributes.ApproximateReceiveCount) || 1,
    maxReceiveCount: dependencies.maxReceiveCount,
    ...(request.target !== undefined ? { reopen: request.target } : {}),
    now: dependencies.clock,
  });
  if (outcome.result === 'retry') {
    logger.warn('delivery to be retried', { alertId: request.alertId, reason: outcome.reason, delaySeconds: outcome.delaySeconds });
    if (outcome.delaySeconds !== undefined) await backOff(record, outcome.delaySeconds);
    throw new DeliveryNotFinishedError(outcome.reason);
  }
}

/**
 * Sets when the queue hands the record out again (its visibility timeout, counted from now). Best effort: if
 * it fails, the queue's own visibility timeout applies.
 */
async function backOff(record: SQSRecord, delaySeconds: number): Promise<void> {
  const queueUrl = resourcesConfig().DELIVERIES_QUEUE_URL;
  if (!queueUrl || !record.receiptHandle) return;
  try {
    await changeMessageVisibility({ QueueUrl: queueUrl, ReceiptHandle: record.receiptHandle, VisibilityTimeout: delaySeconds });
  } catch (error) {
    logger.warn('could not delay the retry of a delivery request', { messageId: record.messageId, error: describeError(error) });
  }
}
