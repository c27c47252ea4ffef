import { expect } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { logger } from '../../shared/observability/logger';
import { resetClients } from '../../shared/aws/clients';
import { forgetTelegramCredentials } from '../../shared/channels/telegram/credentials';
import { resetTelegramSender } from '../../shared/delivery/senders';
import { startSecretsEmulator } from '../../infra/local/secrets-emulator';
import { FakeTelegram } from '../../infra/local/telegram-fake';
import { startWebhookReceiver, type RunningWebhookReceiver, type ScriptedAnswer } from '../../infra/local/webhook-receiver';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { sqsClient } from '../../shared/aws/clients';
import { createWebhook } from '../../shared/store/webhooks-store';
import { RETRY_JITTER, RETRY_WAITS_SECONDS } from '../../shared/delivery/retry-backoff';
import { ChaosController, type ChaosCounts } from './chaos';
import { clearSentEmails } from './emulators';
import { startFaultProxy } from './fault-proxy';
import { captureOutput } from './replay-output';
import { describeVerdict, judgeAlerts, judgeEmails, judgeTelegrams } from './replay-oracle';
import { REPLAY_CHAT_ID, REPLAY_PARENT_ID, runReplay, seedReplay, SIDE_EMAIL, type ReplayRun, type StoredAlert } from './replay-runner';
import { CHAOS_SCENARIOS, DURABLE_SCENARIOS, planReplay, type Scenario } from './replay-scenarios';
import { countByKind, TRACE_START, type Trace } from './trace-generator';

/**
 * One replay scenario end to end, with the assertions every scenario shares: 0 missing, 0 duplicate and
 * 0 unexpected alerts, every alert delivered and out of the outbox, exactly one e-mail and one Telegram
 * message per alert; and, for a chaos scenario, that its fault really hit the functions.
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
  missing: number;
  duplicated: number;
  emails: number;
  telegrams: number;
  redeliveries: number;
  crashes: ReplayRun['crashes'];
  kills: ReplayRun['kills'];
  failedInvocations: number;
  sweeps: number;
  failedSweeps: number;
  outboxReenqueued: number;
  deliveryRetries: number;
  failedPolls: number;
  chaos: ChaosCounts;
  /** Durable-delivery scenarios: deliveries the webhook receiver took (2xx), and requests left on the deliveries DLQ. */
  webhooks?: number;
  deadLettered?: number;
}

/** The ways out besides SES that a replay delivers to: the Telegram Bot API fake, given the bot token through the local Secrets Manager. */
export interface ReplayChannels {
  telegram: FakeTelegram;
  /** The replay client's webhook endpoint, for the durable-delivery scenarios. */
  receiver: RunningWebhookReceiver;
  /** What the receiver answers instead of taking a delivery (its outage), set per scenario. */
  receiverFault: { current: () => ScriptedAnswer | undefined };
  stop(): Promise<void>;
}

const TELEGRAM_SECRET_ID = 'fleetwatch/replay-telegram';

export async function startReplayChannels(): Promise<ReplayChannels> {
  const telegram = new FakeTelegram();
  process.env.TELEGRAM_API_ROOT = await telegram.start();
  const secrets = await startSecretsEmulator({
    [TELEGRAM_SECRET_ID]: JSON.stringify({ botToken: '1700:replay-bot-token', webhookSecret: 'replay-hook' }),
  });
  process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = secrets.endpoint;
  process.env.TELEGRAM_SECRET_ID = TELEGRAM_SECRET_ID;
  forgetTelegramCredentials();
  resetTelegramSender();
  const receiverFault: ReplayChannels['receiverFault'] = { current: () => undefined };
  // deliveries are signed at simulated times, which a signature check against the real clock would refuse as
  // stale: the replay counts what the receiver took by webhook-id, signatures are checked by the webhook tests
  const receiver = await startWebhookReceiver({ fault: () => receiverFault.current() ?? 200 });
  return {
    telegram,
    receiver,
    receiverFault,
    async stop() {
      await Promise.all([telegram.stop(), secrets.stop(), receiver.stop()]);
    },
  };
}

export async function replayAndCheck(
  trace: Trace,
  scenario: Scenario,
  emulators: Emulators,
  channels: ReplayChannels,
  batchSize: number,
): Promise<ScenarioSummary> {
  const durable = DURABLE_SCENARIOS.includes(scenario);
  await seedReplay(trace, {}, { toClient: durable });
  if (durable) {
    process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
    await createWebhook({ parentId: REPLAY_PARENT_ID, url: channels.receiver.url, description: 'Replay receiver' }, TRACE_START - 86_400_000);
  }
  // aws-ses-v2-local keeps one inbox per process, shared by every emulator set
  await clearSentEmails(emulators);
  channels.telegram.reset();
  channels.receiver.attempts.length = 0;
  const plan = planReplay(trace, scenario, { batchSize, seed: trace.options.seed + 1 });
  const chaos = new ChaosController(plan.faults, emulators, channels.telegram);
  channels.receiverFault.current = () => chaos.receiverFault();
  // aws-ses-v2-local cannot be told to fail: SES is reached through a proxy that answers for it while SES is meant to be failing
  const sesProxy = await startFaultProxy(emulators.sesEndpoint, () => chaos.sesFault());
  process.env.AWS_ENDPOINT_URL_SESV2 = sesProxy.endpoint;
  resetClients();
  // the handlers log every alert and flush metrics per invocation: kept off the terminal
  const output = captureOutput({ silent: true, keep: false });
  const level = logger.getLevelName();
  logger.setLogLevel('CRITICAL');
  let run: ReplayRun;
  try {
    run = await runReplay(plan, trace, emulators, { chaos }, durable ? { durable: { tailAfterFaults: DURABLE_TAIL_MS } } : {});
  } finally {
    channels.receiverFault.current = () => undefined;
    delete process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS;
    logger.setLogLevel(level);
    output.restore();
    await chaos.endAll();
    process.env.AWS_ENDPOINT_URL_SESV2 = emulators.sesEndpoint;
    resetClients();
    await sesProxy.stop();
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
  const telegrams = channels.telegram.delivered();
  expect(telegrams).toHaveLength(run.alerts.length);
  expect(judgeTelegrams(run.alerts, telegrams, REPLAY_CHAT_ID)).toEqual({
    vehiclesWithWrongCount: [],
    misaddressed: 0,
    identical: 0,
    unattributed: 0,
  });
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
  } else if (!CHAOS_SCENARIOS.includes(scenario)) {
    const counters = {
      deliveryRetries: run.deliveryRetries,
      redeliveries: run.redeliveries,
      failedInvocations: run.failedInvocations,
      sweeps: run.sweeps,
    };
    expect(run.outboxReenqueued, `outbox re-enqueues without a fault (${JSON.stringify(counters)})`).toBe(0);
  }
  expectChaosHappened(scenario, run, chaos);
  const durableChecks = durable ? await expectDurableDelivery(scenario, run.alerts, channels.receiver, chaos, emulators) : {};

  return {
    ...durableChecks,
    scenario,
    records: plan.records,
    batches: plan.batches.length,
    duplicatesInSameBatch: plan.duplicatesInSameBatch,
    duplicatesInLaterBatch: plan.duplicatesInLaterBatch,
    outOfOrder: plan.outOfOrder,
    expected: trace.expected.length,
    alerts: run.alerts.length,
    missing: verdict.missing.length,
    duplicated: verdict.duplicated.length,
    emails: run.emails.length,
    telegrams: telegrams.length,
    redeliveries: run.redeliveries,
    crashes: run.crashes,
    kills: run.kills,
    failedInvocations: run.failedInvocations,
    sweeps: run.sweeps,
    failedSweeps: run.failedSweeps,
    outboxReenqueued: run.outboxReenqueued,
    deliveryRetries: run.deliveryRetries,
    failedPolls: run.failedPolls,
    chaos: chaos.counts,
  };
}

/** The fault really hit the functions: something failed and was retried, not merely scheduled. */
function expectChaosHappened(scenario: Scenario, run: ReplayRun, chaos: ChaosController): void {
  switch (scenario) {
    case 'dynamodbRestarts':
      expect(chaos.counts.dynamodbRestarts).toBe(2);
      expect(run.failedInvocations + run.itemFailures).toBeGreaterThan(0);
      return;
    case 'sqsRestart':
      expect(chaos.counts.sqsRestarts).toBe(1);
      expect(run.failedPolls).toBeGreaterThan(0);
      // requests queued across the restart, or alerts whose request could not be sent and went through the outbox
      expect(chaos.counts.queuedAtSqsStop + run.outboxReenqueued).toBeGreaterThan(0);
      return;
    case 'sesFailing':
      expect(chaos.counts.sesFaulted).toBeGreaterThan(0);
      expect(run.deliveryRetries).toBeGreaterThan(0);
      return;
    case 'telegramDown':
      expect(chaos.counts.telegramDownSpells).toBe(1);
      expect(chaos.counts.telegram429).toBeGreaterThan(0);
      expect(run.deliveryRetries).toBeGreaterThan(0);
      return;
    case 'telegramLongOutage':
      expect(chaos.counts.telegramDownSpells).toBe(1);
      expect(run.alerts.some((alert) => (alert.deliveries[`telegram:${REPLAY_CHAT_ID}`]?.attempts ?? 0) > 1)).toBe(true);
      return;
    case 'receiverDown':
      expect(chaos.counts.receiver503).toBeGreaterThan(0);
      return;
    case 'sesThrottled':
      expect(chaos.counts.sesFaulted).toBeGreaterThan(0);
      return;
    case 'killed':
      // an invocation can die between two transactions only where its batch commits in more than one
      expect(run.kills.afterCommit + run.kills.betweenTransactions, JSON.stringify(run.kills)).toBeGreaterThan(0);
      expect(run.kills.beforeReport, JSON.stringify(run.kills)).toBeGreaterThan(0);
      expect(run.outboxReenqueued).toBeGreaterThan(0);
      return;
    default:
      expect(chaos.windows).toEqual([]);
  }
}

export function describeTrace(trace: Trace): string {
  const messages = trace.vehicles.reduce((sum, vehicle) => sum + vehicle.messages.length, 0);
  return `${trace.vehicles.length} vehicles, ${messages} messages, expected alerts ${JSON.stringify(countByKind(trace.expected))}`;
}

/** What the replay adds to a scheduled wait: the sweep's step after the trace, and the runner's hold of a failed request. */
const REPLAY_LAG_MS = 11 * 60_000;
/** The longest a wait of the retry schedule may be drawn. */
const LONGEST_WAIT_MS = Math.max(...RETRY_WAITS_SECONDS) * 1000 * (1 + RETRY_JITTER);
/** How long a durable-delivery replay goes on after its last fault ended: the longest wait, and the replay's lag. */
const DURABLE_TAIL_MS = LONGEST_WAIT_MS + REPLAY_LAG_MS;

/** The target each durable-delivery scenario holds up. */
const HELD_TARGET: Partial<Record<Scenario, (alert: StoredAlert) => string | undefined>> = {
  telegramLongOutage: () => `telegram:${REPLAY_CHAT_ID}`,
  sesThrottled: () => `email:${SIDE_EMAIL}`,
  receiverDown: (alert) => Object.keys(alert.deliveries).find((key) => key.startsWith('webhook:')),
};

/**
 * Per target, nothing lost and nothing twice through the outage: every alert reached the webhook receiver once
 * (the e-mails and Telegram messages are counted with every scenario's checks), the deliveries DLQ is empty, and
 * each target held by the fault went out within one step of the retry schedule after the fault ended.
 */
async function expectDurableDelivery(
  scenario: Scenario,
  alerts: readonly StoredAlert[],
  receiver: RunningWebhookReceiver,
  chaos: ChaosController,
  emulators: Emulators,
): Promise<{ webhooks: number; deadLettered: number }> {
  const taken = new Map<string, number>();
  for (const attempt of receiver.attempts) {
    if (typeof attempt.status === 'number' && attempt.status < 300 && attempt.idempotencyKey)
      taken.set(attempt.idempotencyKey, (taken.get(attempt.idempotencyKey) ?? 0) + 1);
  }
  expect(alerts.filter((alert) => taken.get(alert.alertId) !== 1).map((alert) => [alert.alertId, taken.get(alert.alertId) ?? 0])).toEqual([]);
  expect(taken.size).toBe(alerts.length);

  const { Attributes } = await sqsClient().send(
    new GetQueueAttributesCommand({ QueueUrl: emulators.queues.deliveriesDlq, AttributeNames: ['ApproximateNumberOfMessages'] }),
  );
  const deadLettered = Number(Attributes?.ApproximateNumberOfMessages ?? 0);
  expect(deadLettered).toBe(0);

  const recovered = chaos.lastFaultEnd;
  const heldKey = HELD_TARGET[scenario]!;
  const late = alerts.flatMap((alert) => {
    const key = heldKey(alert);
    const status = key ? alert.deliveries[key] : undefined;
    if (!status || status.status !== 'sent') return [`${alert.alertId} ${key}: ${status?.status ?? 'missing'}`];
    // the attempt that went out followed the wait after the one before it, which failed while the fault lasted
    // an alert raised after the fault ended went out as any alert does
    if (alert.createdAt >= recovered) return [];
    const waited = Date.parse(status.at) - recovered;
    const step = status.attempts >= 2 ? RETRY_WAITS_SECONDS[status.attempts - 2]! * 1000 * (1 + RETRY_JITTER) : 0;
    return waited > step + REPLAY_LAG_MS
      ? [`${alert.alertId} ${key}: attempt ${status.attempts} sent ${Math.round(waited / 60_000)} min after the fault ended`]
      : [];
  });
  expect(late).toEqual([]);
  return { webhooks: [...taken.values()].reduce((sum, count) => sum + count, 0), deadLettered };
}
