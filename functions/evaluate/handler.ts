import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { checkFunctionConfig, maxEventAgeConfig, vehicleClockConfig, type VehicleClock } from '../../shared/config';
import { logger, loggerContext } from '../../shared/observability/logger';
import { countIfAny, MetricName, publishMetricsIfAny } from '../../shared/observability/metrics';
import { RULE_EVALUATORS } from '../../shared/rules/registry';
import { RuleCache } from '../../shared/pipeline/rule-cache';
import type { EvaluatorLookup } from '../../shared/pipeline/evaluate-vehicle';
import { processBatch } from '../../shared/pipeline/process-batch';

/**
 * Evaluates terminal messages from the FIFO input queue. The batch is processed as a whole (grouped by
 * vehicle, one read of the vehicles' items and one commit per batch), which is why Powertools' per-record batch processor is
 * not used; failures are still reported per record (ReportBatchItemFailures).
 */
export interface EvaluateDependencies {
  /** Epoch ms; the evaluation time of a batch. */
  clock: () => number;
  /** Rules and geozones met so far, by id and version, kept across invocations of a warm function. */
  rules: RuleCache;
  evaluatorFor: EvaluatorLookup;
  /** How the vehicles' clocks are stored (VEHICLE_CLOCK; the sweep reads the same setting). */
  vehicleClock: VehicleClock;
  /** Seconds a message may be old for its events to become alerts, where a rule sets no `maxEventAge` (MAX_EVENT_AGE_SECONDS). */
  maxEventAgeSeconds: number;
}

export function createEvaluateHandler(overrides: Partial<EvaluateDependencies> = {}) {
  const dependencies: EvaluateDependencies = {
    clock: Date.now,
    rules: new RuleCache(),
    evaluatorFor: (type) => RULE_EVALUATORS[type],
    vehicleClock: vehicleClockConfig(),
    maxEventAgeSeconds: maxEventAgeConfig(),
    ...overrides,
  };
  return middy<SQSEvent, SQSBatchResponse>()
    .use(loggerContext())
    .use(publishMetricsIfAny())
    .handler(async (event) => {
      const now = dependencies.clock();
      const outcome = await processBatch(event.Records, {
        now,
        rules: dependencies.rules,
        evaluatorFor: dependencies.evaluatorFor,
        vehicleClock: dependencies.vehicleClock,
        maxEventAgeSeconds: dependencies.maxEventAgeSeconds,
      });
      // messages taken and deleted are counted by the input queue's own metrics; a batch of ordinary
      // messages logs nothing (CloudWatch Logs bills each byte, and this runs once per 10 messages)
      countIfAny(MetricName.MessagesRejected, outcome.rejected);
      countIfAny(MetricName.AlertsRaised, outcome.alertsCreated.length);
      if (outcome.failedMessageIds.length > 0) {
        logger.warn('messages left for redelivery', { messageIds: outcome.failedMessageIds });
      }
      return { batchItemFailures: outcome.failedMessageIds.map((itemIdentifier) => ({ itemIdentifier })) };
    });
}

// a missing or malformed setting fails the cold start, naming the variable
checkFunctionConfig('evaluate');

export const handler = createEvaluateHandler();
