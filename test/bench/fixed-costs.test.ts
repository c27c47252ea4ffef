import { describe, expect, it } from 'vitest';
import { MetricName } from '../../shared/observability/metrics';
import { CHANNELS } from '../../shared/channels/outcome';
import { INCIDENT_HOURS_PER_MONTH, INCIDENT_METRICS, measureFixedCosts, type FixedCosts } from './fixed-costs';
import { PRICES } from './prices';

describe('the fixed monthly costs', () => {
  let fixed: FixedCosts;
  it('counts the alarms, dashboard, keys and secrets the stack deploys, and each function memory', async () => {
    fixed = await measureFixedCosts();
    expect(fixed.alarms).toBeGreaterThan(0);
    expect(fixed.alarmMetrics).toBeGreaterThanOrEqual(fixed.alarms);
    expect(fixed.dashboards).toBe(1);
    expect(fixed.kmsKeys).toBeGreaterThan(0);
    expect(fixed.secrets).toBeGreaterThan(0);
    expect(fixed.memoryMb.evaluate).toBeGreaterThanOrEqual(128);
    expect(fixed.usd.total).toBeCloseTo(
      fixed.alarmMetrics * PRICES.alarmPerMetricMonth +
        fixed.dashboards * PRICES.dashboardPerMonth +
        fixed.kmsKeys * PRICES.kmsKeyPerMonth +
        fixed.secrets * PRICES.secretPerMonth +
        (fixed.customMetrics - fixed.incidentMetrics + (fixed.incidentMetrics * INCIDENT_HOURS_PER_MONTH) / (30 * 24)) * PRICES.customMetricPerMonth +
        30 * 24 * 60 * PRICES.metricApiPerRequest,
      6,
    );
  }, 120_000);

  it('counts every metric name some function publishes, the delivery counts once per channel', () => {
    // every name is published by at least one function, and the two delivery counts carry a channel dimension
    expect(fixed.customMetrics).toBeGreaterThanOrEqual(Object.keys(MetricName).length + 2 * (CHANNELS.length - 1));
  });

  it('prices the metrics published only during incidents by the hour, every other one for the month', () => {
    // each incident metric is published by some function, and none of the steady ones is among them
    expect(fixed.incidentMetrics).toBeGreaterThanOrEqual(INCIDENT_METRICS.size);
    expect(fixed.incidentMetrics).toBeLessThan(fixed.customMetrics);
    expect(INCIDENT_METRICS.has(MetricName.AlertsRaised)).toBe(false);
    expect(INCIDENT_METRICS.has(MetricName.DeliveriesSent)).toBe(false);
    const wholeMonth = fixed.customMetrics * PRICES.customMetricPerMonth;
    expect(fixed.usd.customMetrics).toBeLessThan(wholeMonth);
    expect(fixed.usd.customMetrics).toBeGreaterThan((fixed.customMetrics - fixed.incidentMetrics) * PRICES.customMetricPerMonth);
  });
});
