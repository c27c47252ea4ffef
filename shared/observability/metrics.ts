import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { observabilitySchema, readConfig } from '../config';
import { logger } from './logger';

/**
 * The one EMF metrics emitter of the process, namespace `fleetwatch`
 * (overridable by POWERTOOLS_METRICS_NAMESPACE). Handlers flush it with `logMetrics(metrics)`.
 */
const { POWERTOOLS_METRICS_NAMESPACE, POWERTOOLS_SERVICE_NAME } = readConfig(observabilitySchema());

export const metrics = new Metrics({
  namespace: POWERTOOLS_METRICS_NAMESPACE,
  serviceName: POWERTOOLS_SERVICE_NAME,
  // Powertools' own warnings (e.g. "No application metrics to publish") go through the structured logger and
  // follow its level, instead of a bare console line
  logger,
});

/** Metric names agreed across fleetwatch. */
export const MetricName = {
  MessagesRejected: 'MessagesRejected',
  /** Alert targets put on the deliveries DLQ: failed for good, or still failing after the last attempt of the retry schedule. */
  DeliveriesDeadLettered: 'DeliveriesDeadLettered',
  BatchSize: 'BatchSize',
  AlertsRaised: 'AlertsRaised',
  DeliveriesSent: 'DeliveriesSent',
  DeliveryFailures: 'DeliveryFailures',
  ApiRequests: 'ApiRequests',
  /** Rules left out of evaluation because they cannot work (counted each time the rule index is compiled). */
  UnusableRules: 'UnusableRules',
  /** Permanent bounces and complaints SES reported on confirmation e-mails to side addresses. */
  ConfirmationFeedback: 'ConfirmationFeedback',
  /** Clients whose confirmation e-mails were stopped after too many bounces or complaints. */
  ConfirmationsStopped: 'ConfirmationsStopped',
  /** Interrupted feeds (the platform's, or one client's) the sweep first saw in this run: each raises one alarm. */
  FeedOutagesBegun: 'FeedOutagesBegun',
  /** Interrupted feeds the sweep is holding connection-loss alerts for, in each run while they last. */
  FeedOutages: 'FeedOutages',
  /** Vehicles whose connection loss the sweep held in this run because their feed is interrupted. */
  ConnectionLossesHeld: 'ConnectionLossesHeld',
  /** Share of the account's SES 24-hour sending quota used, in percent, as the deliver function last read it. */
  SesQuotaUsedPercent: 'SesQuotaUsedPercent',
  /** Alert e-mails held for a recipient's digest because the SES quota is nearly used. */
  EmailsHeldForDigest: 'EmailsHeldForDigest',
  /** Circuit breakers that opened (a destination failed 5 times in a row): its deliveries are held, one probe a minute. */
  CircuitsOpened: 'CircuitsOpened',
  /** Circuit breakers that closed again (a probe went through). */
  CircuitsClosed: 'CircuitsClosed',
  /** Shared destinations (Telegram, SES or SNS of a region) whose circuit is open, as the sweep counts them each run. */
  OpenCircuits: 'OpenCircuits',
  /** Webhook endpoints whose circuit is open, as the sweep counts them each run. */
  OpenWebhookCircuits: 'OpenWebhookCircuits',
  /** SMS left unsent because their client's monthly SMS spend cap was reached. */
  SmsCapReached: 'SmsCapReached',
  /** SMS sent, and their estimated cost in micro-dollars (segments × the destination's price). */
  SmsSent: 'SmsSent',
  SmsSpendMicroUsd: 'SmsSpendMicroUsd',
} as const;

export type MetricName = (typeof MetricName)[keyof typeof MetricName];

export { MetricUnit };

/**
 * Flushes the stored metrics at the end of an invocation, and writes nothing when none were added. For the
 * per-batch handlers: a batch with nothing worth counting costs no log bytes (Powertools' `logMetrics` would
 * still log a warning about the empty set), and what every batch has, the messages taken and deleted, is
 * already counted by the queue's own metrics.
 */
export const publishMetricsIfAny = () => {
  const flush = () => {
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
  };
  return { after: flush, onError: flush };
};

/** Adds a count only when it is not zero. */
export function countIfAny(name: MetricName, count: number): void {
  if (count > 0) metrics.addMetric(name, MetricUnit.Count, count);
}
