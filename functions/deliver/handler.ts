import middy from '@middy/core';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SNSEvent, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { handleSesEvents, isSnsEvent } from '../../shared/channels/email/ses-events';
import { logger, loggerContext } from '../../shared/observability/logger';
import { MetricName, MetricUnit, metrics } from '../../shared/observability/metrics';
import { deliveryRequestSchema } from '../../shared/schemas/alert';
import { sendToDeliveriesDlq } from '../../shared/delivery/dead-letter';
import { deliverAlert } from '../../shared/delivery/deliver-alert';
import { DeliveryStats } from '../../shared/delivery/delivery-stats';
import { channelSenders, type ChannelSenders } from '../../shared/delivery/senders';

/**
 * Delivers alerts named on the deliveries queue (`{"alertId": "..."}`) by e-mail, Telegram and mobile push.
 * Each record succeeds or fails on its own (ReportBatchItemFailures); a malformed body goes to the
 * deliveries DLQ with its reason and does not fail the batch.
 */
export interface DeliverDependencies {
  senders: ChannelSenders;
  /** Epoch ms. */
  clock: () => number;
  /** The deliveries queue's maxReceiveCount (`DELIVERIES_MAX_RECEIVE_COUNT`, default 5). */
  maxReceiveCount: number;
}

/** A record to be handed out again by the queue later; its reason is already recorded on the alert. */
class DeliveryNotFinishedError extends Error {
  override name = 'DeliveryNotFinishedError';
}

function parseRequest(record: SQSRecord): { alertId: string } | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(record.body);
  } catch {
    return { error: 'body is not JSON' };
  }
  const parsed = deliveryRequestSchema.safeParse(json);
  if (!parsed.success) {
    return { error: `body is not {"alertId": "..."}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'} ${issue.message}`).join('; ')}` };
  }
  return parsed.data;
}

export function createDeliverHandler(overrides: Partial<DeliverDependencies> = {}) {
  const dependencies: DeliverDependencies = {
    senders: channelSenders,
    clock: Date.now,
    maxReceiveCount: Number(process.env.DELIVERIES_MAX_RECEIVE_COUNT) || 5,
    ...overrides,
  };
  const processor = new BatchProcessor(EventType.SQS);
  const stats = new DeliveryStats();

  const handleRecord = async (record: SQSRecord): Promise<void> => {
    const request = parseRequest(record);
    if ('error' in request) {
      logger.warn('malformed delivery request sent to the DLQ', { messageId: record.messageId, reason: request.error });
      await sendToDeliveriesDlq(record.body, request.error);
      metrics.addMetric(MetricName.MessagesRejected, MetricUnit.Count, 1);
      return;
    }
    const outcome = await deliverAlert(request.alertId, {
      senders: dependencies.senders,
      stats,
      receiveCount: Number(record.attributes.ApproximateReceiveCount) || 1,
      maxReceiveCount: dependencies.maxReceiveCount,
      now: dependencies.clock,
    });
    if (outcome.result === 'dead-letter') {
      logger.error('delivery request sent to the DLQ', { alertId: request.alertId, reason: outcome.reason });
      await sendToDeliveriesDlq(record.body, outcome.reason);
      metrics.addMetric(MetricName.DeliveriesDeadLettered, MetricUnit.Count, 1);
      return;
    }
    if (outcome.result === 'retry') {
      logger.warn('delivery to be retried', { alertId: request.alertId, reason: outcome.reason });
      throw new DeliveryNotFinishedError(outcome.reason);
    }
  };

  return middy<SQSEvent, SQSBatchResponse>()
    .use(loggerContext())
    .use(logMetrics(metrics))
    .handler(async (event, context) => {
      metrics.addMetric(MetricName.BatchSize, MetricUnit.Count, event.Records.length);
      try {
        return await processPartialResponse(event, handleRecord, processor, { context, throwOnFullBatchFailure: false });
      } finally {
        stats.publish();
      }
    });
}

/** SES bounce and complaint events (SNS, from the configuration set's event destination) suppress addresses. */
export function createSesEventHandler(clock: () => number = Date.now) {
  return middy<SNSEvent, void>()
    .use(loggerContext())
    .handler(async (event) => {
      await handleSesEvents(event, clock());
    });
}

const deliverHandler = createDeliverHandler();
const sesEventHandler = createSesEventHandler();

/** The deliver function takes the deliveries queue and, through SNS, the SES events of the mail it sent. */
export const handler = (event: SQSEvent | SNSEvent, context: Context) =>
  isSnsEvent(event) ? sesEventHandler(event, context) : deliverHandler(event as SQSEvent, context);
