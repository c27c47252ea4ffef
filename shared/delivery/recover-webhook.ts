import { describeError } from '../channels/outcome';
import { logger } from '../observability/logger';
import { enqueueWebhookRecovery } from '../queues/enqueue-deliveries';
import type { Alert } from '../schemas/alert';
import type { StoredWebhook } from '../schemas/webhook';
import type { RecoveryJob, RecoveryStep } from '../schemas/webhook-recovery';
import { listFailedAttemptsBetween } from '../store/webhook-deliveries';
import { advanceRecoveryJob, claimRecoveredAlert, countRecoveredAlert, finishRecoveryJob, getRecoveryJob } from '../store/webhook-recoveries';
import { listWebhooksWithSecrets } from '../store/webhooks-store';
import { readRecoverableAlerts, recordRecoveredDelivery, recoveryVerdict } from '../store/alerts/recovered-delivery';
import { redeliverWebhook } from './redeliver-webhook';

/**
 * Log entries one step reads, so at most this many alerts are sent per step, 10 at a time (redeliverWebhook):
 * even a receiver that lets each one time out (5 s) leaves the step well inside the deliver function's 60 s,
 * whatever the endpoint's traffic.
 */
export const RECOVERY_STEP_ENTRIES = 50;

export interface RecoveryStepOptions {
  /** The queue message's id. */
  messageId: string;
  /** How many times the queue has handed out this message (ApproximateReceiveCount). */
  receiveCount: number;
  /** The queue's maxReceiveCount: a step still failing on its last receive fails the job. */
  maxReceiveCount: number;
  /** Epoch ms. */
  now: () => number;
}

/**
 * Runs one step of a recovery job: reads the next entries of the endpoint's delivery log in the job's window,
 * sends again each alert whose delivery failed and has not gone out since, counts what came of it, then moves
 * the job on and queues the next step, or ends it. Any copy of a step may run at the same time as another: an
 * alert is taken on once per job (claimRecoveredAlert), and only one copy moves the job on.
 */
export async function runRecoveryStep(step: RecoveryStep, options: RecoveryStepOptions): Promise<void> {
  const job = await getRecoveryJob(step.endpointId, step.jobId);
  if (!job || job.clientId !== step.clientId || job.state !== 'running') {
    logger.info('recovery step of a job that is not running dropped', { jobId: step.jobId, step: step.step });
    return;
  }
  if (step.step !== job.step) {
    await requeueAfterCut(job, step, options.messageId);
    return;
  }
  try {
    await runStep(job, options);
  } catch (error) {
    if (options.receiveCount < options.maxReceiveCount) throw error;
    const reason = `step ${job.step} failed on its last try: ${describeError(error)}`;
    logger.error('webhook recovery failed', { jobId: job.jobId, endpointId: job.webhookId, reason });
    await finishRecoveryJob(job, options.now(), reason);
  }
}

async function runStep(job: RecoveryJob, { messageId, now }: RecoveryStepOptions): Promise<void> {
  const endpoint = (await listWebhooksWithSecrets(job.clientId)).find((candidate) => candidate.id === job.webhookId);
  if (!endpoint?.enabled) {
    await finishRecoveryJob(job, now(), endpoint ? 'the endpoint was disabled: enable it, then start a new recovery' : 'the endpoint was deleted');
    return;
  }
  const page = await listFailedAttemptsBetween(job.webhookId, {
    from: job.since,
    to: job.startedAt,
    after: job.cursor,
    limit: RECOVERY_STEP_ENTRIES,
  });
  await recoverAlerts(job, endpoint, [...new Set(page.attempts.map((attempt) => attempt.alertId))], now);
  if (page.next === null) {
    await finishRecoveryJob(job, now());
    return;
  }
  if (await advanceRecoveryJob(job, page.next, messageId, now())) {
    await enqueueWebhookRecovery({ jobId: job.jobId, clientId: job.clientId, endpointId: job.webhookId, step: job.step + 1 });
  }
}

/** Sends again the alerts of one step that the job has not taken on yet; counts each, and records each that went out. */
async function recoverAlerts(job: RecoveryJob, endpoint: StoredWebhook, alertIds: readonly string[], now: () => number): Promise<void> {
  const read = await readRecoverableAlerts(alertIds);
  const due: Alert[] = [];
  for (const alertId of alertIds) {
    const recoverable = read.get(alertId);
    const verdict = recoverable ? recoveryVerdict(recoverable, endpoint, now()) : 'none';
    if (!recoverable || verdict === 'none' || !(await claimRecoveredAlert(job, alertId))) continue;
    if (verdict === 'retrying') await countRecoveredAlert(job, 'skipped');
    else due.push(recoverable.alert);
  }
  const answers = await redeliverWebhook(endpoint, due, now());
  await Promise.all(
    answers.map(async (answer, index) => {
      if (answer.error !== null) {
        await countRecoveredAlert(job, 'failed', `alert ${answer.alertId}: ${answer.error}`);
        return;
      }
      await recordRecoveredDelivery(due[index]!, endpoint.id, now());
      await countRecoveredAlert(job, 'sent');
    }),
  );
}

/**
 * A step the job has moved past. When it is this very message handed out again, its step moved the job on but
 * was cut short before it queued the next one: that is queued now. Any other copy is dropped.
 */
async function requeueAfterCut(job: RecoveryJob, step: RecoveryStep, messageId: string): Promise<void> {
  if (step.step === job.step - 1 && job.stepMessageId === messageId) {
    await enqueueWebhookRecovery({ ...step, step: job.step });
    return;
  }
  logger.info('copy of a recovery step already run dropped', { jobId: job.jobId, step: step.step, current: job.step });
}
