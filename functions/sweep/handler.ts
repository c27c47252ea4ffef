import middy from '@middy/core';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { ScheduledEvent } from 'aws-lambda';
import { checkFunctionConfig, feedOutageConfig, vehicleClockConfig, type FeedOutageConfig, type VehicleClock } from '../../shared/config';
import { loggerContext } from '../../shared/observability/logger';
import { MetricName, MetricUnit, metrics } from '../../shared/observability/metrics';
import { RULE_EVALUATORS } from '../../shared/rules/registry';
import { RuleCache } from '../../shared/pipeline/rule-cache';
import type { EvaluatorLookup } from '../../shared/pipeline/evaluate-vehicle';
import { runSweep, type SweepReport } from '../../shared/sweep/run-sweep';
import { readInputBacklog, type InputBacklog } from '../../shared/sweep/backlog-hold';
import { readFeedRate, type FeedReading } from '../../shared/sweep/feed-rate';

/** Runs every minute (EventBridge schedule): rule expiry, connection loss, outbox. */
export interface SweepDependencies {
  clock: () => number;
  /** Rules and geozones met so far, kept across invocations of a warm function. */
  rules: RuleCache;
  evaluatorFor: EvaluatorLookup;
  vehicleClock: VehicleClock;
  /** Minimum age (ms) of a pending alert before the outbox enqueues it again. */
  outboxAgeMs?: number;
  /** How far behind evaluate is (default: the input queue's ApproximateAgeOfOldestMessage from CloudWatch). */
  readBacklog: (now: number) => Promise<InputBacklog>;
  /** How many terminal messages arrive (default: the input queue's NumberOfMessagesSent from CloudWatch). */
  readFeed: (now: number) => Promise<FeedReading>;
  /** When a mass silence counts as an interrupted feed (config: FEED_OUTAGE_*). */
  feedOutage: FeedOutageConfig;
}

export function createSweepHandler(overrides: Partial<SweepDependencies> = {}) {
  const dependencies: SweepDependencies = {
    clock: Date.now,
    rules: new RuleCache(),
    evaluatorFor: (type) => RULE_EVALUATORS[type],
    readBacklog: (now) => readInputBacklog(now),
    readFeed: (now) => readFeedRate(now),
    feedOutage: feedOutageConfig(),
    vehicleClock: vehicleClockConfig(),
    ...overrides,
  };
  return middy<ScheduledEvent | Record<string, never>, SweepReport>()
    .use(loggerContext())
    .use(logMetrics(metrics))
    .handler(async () => {
      const report = await runSweep({
        now: dependencies.clock(),
        rules: dependencies.rules,
        evaluatorFor: dependencies.evaluatorFor,
        vehicleClock: dependencies.vehicleClock,
        outboxAgeMs: dependencies.outboxAgeMs,
        readBacklog: dependencies.readBacklog,
        readFeed: dependencies.readFeed,
        feedOutage: dependencies.feedOutage,
      });
      metrics.addMetric(MetricName.AlertsRaised, MetricUnit.Count, report.alertsRaised);
      return report;
    });
}

// a missing or malformed setting fails the cold start, naming the variable
checkFunctionConfig('sweep');

export const handler = createSweepHandler();
