import { MetricName, MetricUnit, metrics } from '../observability/metrics';
import type { DeliveryRequest } from '../schemas/alert';
import { sendToDeliveriesDlq } from './dead-letter';

/**
 * Puts one target that can never be delivered on the deliveries DLQ: failed for good (a webhook's 4xx, a blocked
 * bot, a refused address, a disabled push endpoint) or still failing after the last attempt of the retry
 * schedule. The record is `{"alertId", "target", "reason"}`, with the reason also in its `reason` attribute;
 * redriven, it sends that target again (deliverAlert's `reopen`). Sent before the target's failure is written, so a
 * crash in between repeats the record rather than losing it.
 */
export async function deadLetterTarget(alertId: string, target: string, reason: string): Promise<void> {
  const request = { alertId, target } satisfies DeliveryRequest;
  await sendToDeliveriesDlq(JSON.stringify({ ...request, reason }), reason);
  metrics.addMetric(MetricName.DeliveriesDeadLettered, MetricUnit.Count, 1);
}
