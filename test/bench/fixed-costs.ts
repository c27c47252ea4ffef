import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { FleetwatchStack } from '../../infra/stack';
import type { FunctionName } from '../../infra/constructs/fleetwatch-function';
import { CHANNELS } from '../../shared/channels/outcome';
import { MetricName } from '../../shared/observability/metrics';
import { PRICES } from './prices';

/**
 * What fleetwatch costs a month whatever the traffic, counted from what it deploys: the alarms, dashboards,
 * KMS keys and secrets of the synthesized stack template; the custom metrics the functions publish (each metric
 * name once per function that can publish it, as the `service` dimension tells them apart, and once per channel
 * where a `channel` dimension is added), found in the source each function's bundle is built from; and the
 * sweep's one GetMetricStatistics request a run (the input queue's age, shared/sweep/backlog-hold.ts).
 * Log groups have no monthly fee: their bytes are priced with the traffic.
 *
 * CloudWatch bills a custom metric by the hour, for the hours it receives data. A metric that is published only
 * while something is wrong (INCIDENT_METRICS: a rejected message, an interrupted feed, the e-mail quota nearly
 * spent, a shared destination's circuit open) is priced for INCIDENT_HOURS_PER_MONTH; every other one for the whole month.
 */
const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FUNCTIONS: FunctionName[] = ['evaluate', 'sweep', 'deliver', 'api', 'telegram', 'project'];
/** Metrics published with a `channel` dimension (shared/delivery/delivery-stats.ts). */
const PER_CHANNEL = new Set(['DeliveriesSent', 'DeliveryFailures']);
/**
 * Metrics a function publishes only while something is wrong (each is added with countIfAny, or only on that
 * path): priced for INCIDENT_HOURS_PER_MONTH. UnusableRules, DeliveryFailures and the webhook circuits' metrics
 * (CircuitsOpened, CircuitsClosed, OpenWebhookCircuits) are not among them: among thousands of clients some rule or
 * some webhook is always broken.
 */
export const INCIDENT_METRICS: ReadonlySet<string> = new Set([
  MetricName.MessagesRejected,
  MetricName.DeliveriesDeadLettered,
  MetricName.ConfirmationFeedback,
  MetricName.ConfirmationsStopped,
  MetricName.FeedOutagesBegun,
  MetricName.FeedOutages,
  MetricName.ConnectionLossesHeld,
  MetricName.EmailsHeldForDigest,
  MetricName.OpenCircuits,
] satisfies MetricName[]);
/** Hours a month an incident metric is priced for: a tenth of the month, far more than incidents last. */
export const INCIDENT_HOURS_PER_MONTH = 72;
const MONTH_HOURS = 30 * 24;
/** The sweep runs once a minute and reads one metric a run. */
export const SWEEP_METRIC_REQUESTS_PER_MINUTE = 1;
const MONTH_MINUTES = 30 * 24 * 60;

export interface FixedCosts {
  /** Each function's configured memory, MB, from the same template. */
  memoryMb: Record<FunctionName, number>;
  alarmMetrics: number;
  alarms: number;
  dashboards: number;
  kmsKeys: number;
  secrets: number;
  logGroups: number;
  /** Metric series the functions can publish, and of them those published only during incidents. */
  customMetrics: number;
  incidentMetrics: number;
  metricRequestsPerMonth: number;
  /** USD a month, by item and in total. */
  usd: { alarms: number; dashboards: number; kmsKeys: number; secrets: number; customMetrics: number; metricRequests: number; total: number };
}

type Resource = { Type: string; Properties?: { Metrics?: unknown[]; MemorySize?: number } };

export async function measureFixedCosts(): Promise<FixedCosts> {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new FleetwatchStack(app, 'FleetwatchCost');
  const byId = Template.fromStack(stack).toJSON().Resources as Record<string, Resource>;
  const resources = Object.values(byId);
  const memoryMb = Object.fromEntries(
    FUNCTIONS.map((name) => [
      name,
      Number(byId[stack.getLogicalId(stack.functions[name].function.node.defaultChild as never)]!.Properties!.MemorySize),
    ]),
  ) as Record<FunctionName, number>;
  const ofType = (type: string) => resources.filter((resource) => resource.Type === type);
  const alarms = ofType('AWS::CloudWatch::Alarm');
  // an alarm on a math expression is priced per metric it reads; Metrics Insights queries count as one
  const alarmMetrics = alarms.reduce((sum, alarm) => {
    const metrics = (alarm.Properties?.Metrics ?? []) as { MetricStat?: unknown; Expression?: string }[];
    if (metrics.length === 0) return sum + 1;
    const read = metrics.filter((metric) => metric.MetricStat || metric.Expression?.trim().toUpperCase().startsWith('SELECT')).length;
    return sum + Math.max(1, read);
  }, 0);
  const { series: customMetrics, incident: incidentMetrics } = await countCustomMetrics();
  const counts = {
    memoryMb,
    alarmMetrics,
    alarms: alarms.length,
    dashboards: ofType('AWS::CloudWatch::Dashboard').length,
    kmsKeys: ofType('AWS::KMS::Key').length,
    secrets: ofType('AWS::SecretsManager::Secret').length,
    logGroups: ofType('AWS::Logs::LogGroup').length,
    customMetrics,
    incidentMetrics,
    metricRequestsPerMonth: SWEEP_METRIC_REQUESTS_PER_MINUTE * MONTH_MINUTES,
  };
  const usd = {
    alarms: counts.alarmMetrics * PRICES.alarmPerMetricMonth,
    dashboards: counts.dashboards * PRICES.dashboardPerMonth,
    kmsKeys: counts.kmsKeys * PRICES.kmsKeyPerMonth,
    secrets: counts.secrets * PRICES.secretPerMonth,
    customMetrics:
      (counts.customMetrics - counts.incidentMetrics + (counts.incidentMetrics * INCIDENT_HOURS_PER_MONTH) / MONTH_HOURS) *
      PRICES.customMetricPerMonth,
    metricRequests: counts.metricRequestsPerMonth * PRICES.metricApiPerRequest,
  };
  return { ...counts, usd: { ...usd, total: Object.values(usd).reduce((sum, value) => sum + value, 0) } };
}

/** Metric series the functions can publish: the `MetricName.X` uses in the project sources each bundle takes in. */
async function countCustomMetrics(): Promise<{ series: number; incident: number }> {
  let series = 0;
  let incident = 0;
  for (const name of FUNCTIONS) {
    const { metafile } = await build({
      entryPoints: [join(PROJECT_ROOT, 'functions', name, 'handler.ts')],
      absWorkingDir: PROJECT_ROOT,
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      logLevel: 'silent',
    });
    const names = new Set<string>();
    for (const input of Object.keys(metafile.inputs)) {
      const source = readFileSync(join(PROJECT_ROOT, input), 'utf8');
      for (const match of source.matchAll(/\bMetricName\.(\w+)/g)) names.add(match[1]!);
    }
    for (const metric of names) {
      const count = PER_CHANNEL.has(metric) ? CHANNELS.length : 1;
      series += count;
      if (INCIDENT_METRICS.has(metric)) incident += count;
    }
  }
  return { series, incident };
}
