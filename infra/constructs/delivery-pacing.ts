/**
 * How fast the deliver function may send e-mail, derived from the account's SES maximum send rate (e-mails per
 * second), given at deploy time as `cdk deploy -c sesMaxSendRate=<n>` (SES's first production quota is 14).
 *
 * Two limits together keep a burst of alerts under the quota: the deliveries event source runs at most
 * `maxConcurrency` deliver functions at once, and each of them paces its SES calls to its share of the rate.
 * A share of 5 e-mails per second per function keeps one invocation's batch (up to 10 alerts) moving; Lambda's
 * lowest allowed maximum concurrency for an SQS event source is 2, and its highest 1,000.
 */
export const DEFAULT_SES_MAX_SEND_RATE = 14;
const SHARE_PER_FUNCTION = 5;

export interface DeliveryPacing {
  sesMaxSendRate: number;
  maxConcurrency: number;
  /** E-mails per second one deliver function may send. */
  perFunctionRate: number;
}

/** `ceiling` (the `deliverMaxConcurrency` context value) may lower the concurrency the send rate allows, never raise it. */
export function deliveryPacing(sesMaxSendRate: number = DEFAULT_SES_MAX_SEND_RATE, ceiling?: number): DeliveryPacing {
  if (!Number.isFinite(sesMaxSendRate) || sesMaxSendRate < 1) {
    throw new Error(`sesMaxSendRate must be a number of e-mails per second, at least 1 (got ${sesMaxSendRate})`);
  }
  const fromRate = Math.min(1000, Math.max(2, Math.floor(sesMaxSendRate / SHARE_PER_FUNCTION)));
  const maxConcurrency = ceiling === undefined ? fromRate : Math.max(2, Math.min(fromRate, ceiling));
  const perFunctionRate = Math.max(1, Math.floor(sesMaxSendRate / maxConcurrency));
  return { sesMaxSendRate, maxConcurrency, perFunctionRate };
}
