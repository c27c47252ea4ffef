import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/**
 * The one EMF metrics emitter of the process, namespace `fleetwatch`
 * (overridable by POWERTOOLS_METRICS_NAMESPACE). Handlers flush it with `logMetrics(metrics)`.
 */
export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'fleetwatch',
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'fleetwatch',
});

/** Metric names agreed across fleetwatch. */
export const MetricName = {
  MessagesProcessed: 'MessagesProcessed',
  MessagesRejected: 'MessagesRejected',
  /** Delivery requests parked on the deliveries DLQ after their last receive, still being throttled. */
  DeliveriesDeadLettered: 'DeliveriesDeadLettered',
  BatchSize: 'BatchSize',
  AlertsRaised: 'AlertsRaised',
  DeliveriesSent: 'DeliveriesSent',
  DeliveryFailures: 'DeliveryFailures',
  ApiRequests: 'ApiRequests',
  /** Rules left out of evaluation because they cannot work (counted each time the rule index is compiled). */
  UnusableRules: 'UnusableRules',
} as const;

export type MetricName = (typeof MetricName)[keyof typeof MetricName];

export { MetricUnit };
