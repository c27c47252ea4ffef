import { expect } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { logger } from '../../shared/observability/logger';
import { clearSentEmails } from './emulators';
import { captureOutput } from './replay-output';
import { describeVerdict, judgeAlerts, judgeEmails } from './replay-oracle';
import { runReplay, seedReplay, SIDE_EMAIL, type ReplayRun } from './replay-runner';
import { planReplay, type Scenario } from './replay-scenarios';
import { countByKind, type Trace } from './trace-generator';

/**
 * One replay scenario end to end, with the assertions every scenario shares: 0 missing, 0 duplicate and
 * 0 unexpected alerts, every alert delivered and out of the outbox, exactly one e-mail per alert.
 */
export interface ScenarioSummary {
  scenario: Scenario;
  records: number;
  batches: number;
  duplicatesInSameBatch: number;
  duplicatesInLaterBatch: number;
  outOfOrder: number;
  expected: number;
  alerts: number;
  emails: number;
  redeliveries: number;
  crashes: ReplayRun['crashes'];
  sweeps: number;
  outboxReenqueued: number;
}

export async function replayAndCheck(trace: Trace, scenario: Scenario, emulators: Emulators, batchSize: number): Promise<ScenarioSummary> {
  await seedReplay(trace);
  // aws-ses-v2-local keeps one inbox per process, shared by every emulator set
  await clearSentEmails(emulators);
  const plan = planReplay(trace, scenario, { batchSize, seed: trace.options.seed + 1 });
  // the handlers log every alert and flush metrics per invocation: kept off the terminal
  const output = captureOutput({ silent: true, keep: false });
  const level = logger.getLevelName();
  logger.setLogLevel('WARN');
  let run: ReplayRun;
  try {
    run = await runReplay(plan, trace, emulators);
  } finally {
    logger.setLogLevel(level);
    output.restore();
  }

  const verdict = judgeAlerts(trace.expected, run.alerts);
  expect(verdict.missing, describeVerdict(verdict)).toEqual([]);
  expect(verdict.duplicated, describeVerdict(verdict)).toEqual([]);
  expect(verdict.unexpected, describeVerdict(verdict)).toEqual([]);
  expect(verdict.matched).toBe(trace.expected.length);
  expect(run.alerts.filter((alert) => alert.status !== 'delivered' || alert.outbox !== undefined)).toEqual([]);

  const emails = judgeEmails(run.alerts, run.emails, SIDE_EMAIL);
  expect(run.emails).toHaveLength(run.alerts.length);
  expect(emails).toEqual({ vehiclesWithWrongCount: [], misaddressed: 0, identical: 0, unattributed: 0 });
  // each scenario did what it says
  if (scenario === 'duplicated') {
    expect(plan.duplicatesInSameBatch).toBeGreaterThan(0);
    expect(plan.duplicatesInLaterBatch).toBeGreaterThan(0);
  } else {
    expect(plan.duplicatesInSameBatch + plan.duplicatesInLaterBatch).toBe(0);
  }
  if (scenario === 'reordered') expect(plan.outOfOrder).toBeGreaterThan(plan.records / 20);
  if (scenario === 'crashing') {
    expect(run.crashes.beforeEnqueue).toBeGreaterThan(0);
    expect(run.crashes.afterEnqueue).toBeGreaterThan(0);
    // alerts whose delivery request was lost reached their e-mail through the outbox
    expect(run.outboxReenqueued).toBeGreaterThan(0);
  } else {
    expect(run.outboxReenqueued).toBe(0);
  }

  return {
    scenario,
    records: plan.records,
    batches: plan.batches.length,
    duplicatesInSameBatch: plan.duplicatesInSameBatch,
    duplicatesInLaterBatch: plan.duplicatesInLaterBatch,
    outOfOrder: plan.outOfOrder,
    expected: trace.expected.length,
    alerts: run.alerts.length,
    emails: run.emails.length,
    redeliveries: run.redeliveries,
    crashes: run.crashes,
    sweeps: run.sweeps,
    outboxReenqueued: run.outboxReenqueued,
  };
}

export function describeTrace(trace: Trace): string {
  const messages = trace.vehicles.reduce((sum, vehicle) => sum + vehicle.messages.length, 0);
  return `${trace.vehicles.length} vehicles, ${messages} messages, expected alerts ${JSON.stringify(countByKind(trace.expected))}`;
}
