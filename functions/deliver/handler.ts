import middy from '@middy/core';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SNSEvent, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { handleSesEvents } from '../../shared/channels/email/ses-events';
import { isSnsEvent } from '../../shared/channels/sns-messages';
import { handleSmsEvents } from '../../shared/delivery/sms-events';
import { loggerContext } from '../../shared/observability/logger';
import { MetricName, MetricUnit, metrics, publishMetricsIfAny } from '../../shared/observability/metrics';
import { DeliveryStats } from '../../shared/delivery/delivery-stats';
import { handleDeliveryRequest } from '../../shared/delivery/handle-request';
import { channelSenders, type ChannelSenders } from '../../shared/delivery/senders';
import { checkFunctionConfig, deliverSchema, readConfig } from '../../shared/config';

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

export function createDeliverHandler(overrides: Partial<DeliverDependencies> = {}) {
  const dependencies: DeliverDependencies = {
    senders: channelSenders,
    clock: Date.now,
    maxReceiveCount: readConfig(deliverSchema()).DELIVERIES_MAX_RECEIVE_COUNT,
    ...overrides,
  };
  const processor = new BatchProcessor(EventType.SQS);
  const stats = new DeliveryStats();

  return middy<SQSEvent, SQSBatchResponse>()
    .use(loggerContext())
    .use(logMetrics(metrics))
    .handler(async (event, context) => {
      metrics.addMetric(MetricName.BatchSize, MetricUnit.Count, event.Records.length);
      try {
        return await processPartialResponse(event, (record: SQSRecord) => handleDeliveryRequest(record, { ...dependencies, stats }), processor, {
          context,
          throwOnFullBatchFailure: false,
        });
      } finally {
        stats.publish();
      }
    });
}

/**
 * SES bounce and complaint events (SNS, from the configuration set's event destination) suppress addresses, and
 * those on confirmation e-mails count against the client they were sent for.
 */
export function createSesEventHandler(clock: () => number = Date.now) {
  return middy<SNSEvent, void>()
    .use(loggerContext())
    .use(publishMetricsIfAny())
    .handler(async (event) => {
      await handleSesEvents(event, clock());
      await handleSmsEvents(event, clock());
    });
}

// a missing or malformed setting fails the cold start, naming the variable
checkFunctionConfig('deliver');

const deliverHandler = createDeliverHandler();
const sesEventHandler = createSesEventHandler();

/** The deliver function takes the deliveries queue and, through SNS, the SES events of the mail it sent. */
export const handler = (event: SQSEvent | SNSEvent, context: Context) =>
  isSnsEvent(event) ? sesEventHandler(event, context) : deliverHandler(event as SQSEvent, context);
