import type { Channel } from '../channels/outcome';
import { MetricName, MetricUnit, metrics } from '../observability/metrics';

/** Counts of one invocation, published once per channel as `DeliveriesSent` / `DeliveryFailures` (dimension channel). */
export class DeliveryStats {
  readonly sent = new Map<Channel, number>();
  readonly failed = new Map<Channel, number>();

  countSent(channel: Channel): void {
    this.sent.set(channel, (this.sent.get(channel) ?? 0) + 1);
  }

  countFailed(channel: Channel): void {
    this.failed.set(channel, (this.failed.get(channel) ?? 0) + 1);
  }

  publish(): void {
    const emit = (name: string, counts: Map<Channel, number>) => {
      for (const [channel, count] of counts) {
        const metric = metrics.singleMetric();
        metric.addDimension('channel', channel);
        metric.addMetric(name, MetricUnit.Count, count);
      }
    };
    emit(MetricName.DeliveriesSent, this.sent);
    emit(MetricName.DeliveryFailures, this.failed);
    this.sent.clear();
    this.failed.clear();
  }
}
