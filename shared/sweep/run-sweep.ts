import { feedOutageConfig, type FeedOutageConfig, type VehicleClock } from '../config';
import { logger } from '../observability/logger';
import type { EvaluatorLookup, RuleCache } from '../pipeline/public/vehicle-steps';
import { runAlertDuePass } from './alert-due-pass';
import { runConnectionLossPass } from './connection-loss-pass';
import { silenceCertainAsOf, type InputBacklog } from './backlog-hold';
import type { FeedReading } from './feed-rate';
import { runConfirmationWaitPass } from './confirmation-wait-pass';
import { runDigestPass } from './digest-pass';
import { runCircuitPass } from './circuit-pass';
import { runLifecyclePass } from './lifecycle-pass';
import { outboxAgeMs as configuredOutboxAge, runOutboxPass } from './outbox-pass';

/**
 * One sweep: rule expiry, connection loss, the outbox, confirmations that waited for their client's budget,
 * digests due (alert e-mails held while the SES daily quota was nearly used, and what a user's quiet hours
 * held once they end), then
 * alerts due to be escalated, to close by themselves or to be delivered again after a long retry wait, each found through an index keyed by when it falls due,
 * and the circuit breakers' (probes and drains of their held alerts, webhook endpoints failing for days disabled, their notices, the
 * open count). A pass that fails
 * does not keep the others from running; the sweep then fails as a whole so that
 * the failure is visible, and the next run (a minute later) repeats the work, every pass being safe to repeat.
 */
export interface SweepOptions {
  now: number;
  rules: RuleCache;
  evaluatorFor: EvaluatorLookup;
  /** How the vehicles' clocks are stored (config: VEHICLE_CLOCK), as evaluate stores them. */
  vehicleClock: VehicleClock;
  outboxAgeMs?: number;
  /** How far behind evaluate is; connection loss is held accordingly. Default: not monitored. */
  readBacklog?: (now: number) => Promise<InputBacklog>;
  /** How many terminal messages arrive, for a platform-wide feed outage. Default: not monitored. */
  readFeed?: (now: number) => Promise<FeedReading>;
  /** Default: from the environment (FEED_OUTAGE_*). */
  feedOutage?: FeedOutageConfig;
}

export interface SweepReport {
  deactivated: number[];
  prolonged: number[];
  connectionLossVehicles: number;
  /** Silences were judged as of this time (ISO), earlier than now while the input queue lags; null: all held. */
  connectionLossAsOf: string | null;
  /** Vehicles whose connection loss waits for their interrupted feed. */
  connectionLossesHeld: number;
  /** Interrupted feeds (`platform` or client ids): first seen in this run, held in it, and back. */
  feedOutages: { begun: string[]; holding: string[]; ended: string[] };
  alertsRaised: number;
  reenqueued: string[];
  /** Pending alerts the outbox gave up on. */
  abandoned: string[];
  /** Confirmation links handed back after waiting for their client's daily budget. */
  confirmationsResumed: number;
  /** Recipients' digests (held near the SES quota, or during quiet hours) handed to the deliver function. */
  digestsEnqueued: number;
  /** Alerts closed after their rule's autoCloseHours. */
  autoClosed: string[];
  /** Escalations made for alerts still open after their rule's escalateAfter (the escalations' ids). */
  escalated: string[];
  /** Alerts whose delivery retry came due, handed back to the deliver function. */
  retriesDue: string[];
  /** Webhook endpoints disabled after their circuit stayed open for 5 days. */
  webhooksDisabled: string[];
  /** Notices of such endpoints handed to the deliver function. */
  webhookNoticesEnqueued: number;
  /** Held alerts handed to the deliver function to carry the probe of their destination's open circuit. */
  circuitProbes: number;
  /** Held alerts handed back once their destination's circuit closed. */
  heldAlertsDrained: number;
  failedPasses: string[];
}

export async function runSweep(options: SweepOptions): Promise<SweepReport> {
  const { now } = options;
  const report: SweepReport = {
    deactivated: [],
    prolonged: [],
    connectionLossVehicles: 0,
    connectionLossAsOf: null,
    connectionLossesHeld: 0,
    feedOutages: { begun: [], holding: [], ended: [] },
    alertsRaised: 0,
    reenqueued: [],
    abandoned: [],
    confirmationsResumed: 0,
    digestsEnqueued: 0,
    autoClosed: [],
    escalated: [],
    retriesDue: [],
    webhooksDisabled: [],
    webhookNoticesEnqueued: 0,
    circuitProbes: 0,
    heldAlertsDrained: 0,
    failedPasses: [],
  };
  const failures: unknown[] = [];
  const attempt = async (pass: string, work: () => Promise<void>) => {
    try {
      await work();
    } catch (error) {
      logger.error('sweep pass failed', { pass, error });
      report.failedPasses.push(pass);
      failures.push(error);
    }
  };

  await attempt('rules', async () => {
    const lifecycle = await runLifecyclePass(now);
    report.deactivated = lifecycle.deactivated;
    report.prolonged = lifecycle.prolonged;
  });
  await attempt('connectionLoss', async () => {
    const backlog = options.readBacklog ? await options.readBacklog(now) : ({ kind: 'unmonitored' } as const);
    const certainAsOf = silenceCertainAsOf(now, backlog);
    if (certainAsOf === null) {
      logger.warn('connection loss held: how far behind evaluate is, is unknown', { backlog });
      return;
    }
    if (certainAsOf < now)
      logger.info('connection loss judged as of the oldest waiting input message', { backlog, asOf: new Date(certainAsOf).toISOString() });
    report.connectionLossAsOf = new Date(certainAsOf).toISOString();
    const feed = options.readFeed ? await options.readFeed(now) : ({ kind: 'unmonitored' } as const);
    const connectionLoss = await runConnectionLossPass(options.rules, options.evaluatorFor, {
      now,
      vehicleClock: options.vehicleClock,
      certainAsOf,
      feed,
      feedOutage: options.feedOutage ?? feedOutageConfig(),
    });
    report.connectionLossVehicles = connectionLoss.vehicles;
    report.connectionLossesHeld = connectionLoss.held;
    report.feedOutages = connectionLoss.outages;
    report.alertsRaised = connectionLoss.alertsCreated.length;
    if (connectionLoss.failedVehicles.length > 0)
      throw new Error(`connection loss not committed for vehicles ${connectionLoss.failedVehicles.join(', ')}`);
  });
  await attempt('outbox', async () => {
    const outbox = await runOutboxPass(now, options.outboxAgeMs ?? configuredOutboxAge());
    report.reenqueued = outbox.reenqueued;
    report.abandoned = outbox.abandoned;
  });
  await attempt('confirmations', async () => {
    report.confirmationsResumed = await runConfirmationWaitPass(now);
  });
  await attempt('digests', async () => {
    report.digestsEnqueued = await runDigestPass(now);
  });
  await attempt('alertsDue', async () => {
    const due = await runAlertDuePass(now);
    report.autoClosed = due.closed;
    report.escalated = due.escalated;
    report.retriesDue = due.retried;
  });
  await attempt('circuits', async () => {
    const circuits = await runCircuitPass(now);
    report.webhooksDisabled = circuits.disabled;
    report.webhookNoticesEnqueued = circuits.noticesEnqueued;
    report.circuitProbes = circuits.probes.length;
    report.heldAlertsDrained = circuits.drained.length;
  });

  logger.info('sweep finished', {
    ...report,
    reenqueued: report.reenqueued.length,
    abandoned: report.abandoned.length,
    autoClosed: report.autoClosed.length,
    escalated: report.escalated.length,
    retriesDue: report.retriesDue.length,
  });
  if (failures.length > 0) throw new AggregateError(failures, `sweep passes failed: ${report.failedPasses.join(', ')}`);
  return report;
}
