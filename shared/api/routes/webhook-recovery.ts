import { randomUUID } from 'node:crypto';
import { logger } from '../../observability/logger';
import { enqueueWebhookRecovery } from '../../queues/enqueue-deliveries';
import { recoveryProgressSchema, type RecoveryJob, type RecoveryProgress } from '../../schemas/webhook-recovery';
import { WEBHOOK_LOG_DAYS } from '../../store/webhook-deliveries';
import {
  RecoveryRunningError,
  finishRecoveryJob,
  getRecoveryJob,
  isRunning,
  latestRecoveryJob,
  startRecoveryJob,
} from '../../store/webhook-recoveries';
import { HOUR_MS, takeClientRequest } from '../../store/client-rate';
import { ApiError, conflict, notFound, tooManyRequests, validationError } from '../errors';
import { recoverExample, recoveryAcceptedExample, recoveryDoneExample, recoveryRunningExample } from '../examples';
import { limits } from '../limits';
import { defineRoute } from '../route';
import { endpointClient, scopedEndpoint } from '../scoped-webhook';
import { recoverBodySchema, recoveryParamsSchema, webhookParamsSchema } from '../webhook-schemas';

const DAY_MS = 86_400_000;

/** `since` as an ISO time in UTC, when it lies within the delivery log's days and not ahead of now; 400 naming it otherwise. */
function checkedSince(since: string, now: number): string {
  const at = Date.parse(since);
  if (at > now) throw validationError([{ path: 'since', message: 'must not be in the future' }]);
  if (at < now - WEBHOOK_LOG_DAYS * DAY_MS) {
    throw validationError([
      { path: 'since', message: `must be within the last ${WEBHOOK_LOG_DAYS} days: the delivery log keeps attempts that long` },
    ]);
  }
  return new Date(at).toISOString();
}

const runningConflict = (jobId: string) =>
  conflict(`recovery ${jobId} of this webhook is still running: follow it with GET /api/v3/webhooks/{id}/recover/${jobId}`);

/** What the API shows of a job: its progress, not where its steps stand. */
const progressOf = (job: RecoveryJob): RecoveryProgress => recoveryProgressSchema.parse(job);

/**
 * Recovery of a webhook endpoint after an outage of its receiver. The API stores the job and queues its first
 * step; the deliver function, the one function allowed to send, runs the steps (shared/delivery/recover-webhook.ts).
 */
export const webhookRecoveryRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v3/webhooks/{id}/recover',
    operationId: 'recoverWebhook',
    tag: 'webhooks',
    summary: 'After an outage of the receiver, send again every alert whose delivery to the endpoint failed since a time',
    description:
      "Finds, in the endpoint's delivery log, every alert whose delivery to the endpoint failed at or after since (at most " +
      `${WEBHOOK_LOG_DAYS} days ago, not in the future) and before now: recorded failed on the alert, or parked after its last attempt. ` +
      'The deliver function sends each again, once, with its original body and webhook-id (receivers drop copies by it), signed with ' +
      'the current secrets, and adds each attempt to the delivery log. One that answers 2xx is recorded as sent on the alert, so no later ' +
      'recovery sends it again; one still failing is left as it was. An alert whose delivery went out since is not sent; one whose retry ' +
      'is still scheduled is left to that retry (skipped). Answers 202 with the job at once; getWebhookRecovery follows its progress. ' +
      'One running job per endpoint (409 naming it); at most webhookRecoveriesPerClientPerHour (5 by default) jobs per client and hour, ' +
      'then 429 with Retry-After. A disabled endpoint is 409: enable it first. A webhook of a client outside your scope is 404; ' +
      'read-only users get 403.',
    auth: true,
    writes: true,
    successStatus: 202,
    params: webhookParamsSchema,
    body: recoverBodySchema,
    response: recoveryProgressSchema,
    examples: { body: recoverExample, response: recoveryAcceptedExample, errors: { 409: recoveryRunningExample } },
    errors: [403, 404, 409, 503],
    async handle({ params, body, caller, now }) {
      const { clientId, endpoint } = await scopedEndpoint(params.id, caller);
      const since = checkedSince(body.since, now);
      if (!endpoint.enabled)
        throw conflict('the webhook is disabled: enable it with PUT /api/v3/webhooks/{id} {"enabled": true} first, then recover');
      const latest = await latestRecoveryJob(endpoint.id);
      if (latest && isRunning(latest, now)) throw runningConflict(latest.jobId);
      const perHour = limits().webhookRecoveriesPerClientPerHour;
      const wait = await takeClientRequest(caller.user.parentId, now, perHour, 'recover', HOUR_MS);
      if (wait > 0) throw tooManyRequests(wait, `at most ${perHour} webhook recoveries per client and hour`);
      const at = new Date(now).toISOString();
      const job: RecoveryJob = {
        jobId: randomUUID(),
        webhookId: endpoint.id,
        clientId,
        state: 'running',
        since,
        found: 0,
        sent: 0,
        failed: 0,
        skipped: 0,
        startedAt: at,
        finishedAt: null,
        lastError: null,
        step: 0,
        cursor: null,
        stepMessageId: null,
        updatedAt: at,
      };
      await startRecoveryJob(job, latest, now).catch((error: unknown) => {
        throw error instanceof RecoveryRunningError ? runningConflict(error.jobId) : error;
      });
      try {
        await enqueueWebhookRecovery({ jobId: job.jobId, clientId, endpointId: endpoint.id, step: 0 });
      } catch (error) {
        logger.warn('webhook recovery not enqueued', { endpointId: endpoint.id, error });
        // a job that never runs must not hold the endpoint
        await finishRecoveryJob(job, now, 'the job could not be queued');
        throw new ApiError(503, 'DeliveriesUnavailable', 'the recovery could not be queued; try again later');
      }
      return { status: 202, body: progressOf(job) };
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/api/v3/webhooks/{id}/recover/{jobId}',
    operationId: 'getWebhookRecovery',
    tag: 'webhooks',
    summary: "A webhook recovery's progress",
    description:
      'The job recoverWebhook accepted: running, done or failed; since; how many failed deliveries it found so far, and of them how many ' +
      'it sent again (2xx), how many still failed and how many it skipped (a retry still scheduled); when it started and finished; the last ' +
      `failure in words. Jobs are kept ${WEBHOOK_LOG_DAYS} days. A webhook of a client outside your scope, or a job of another webhook, is 404.`,
    auth: true,
    writes: false,
    params: recoveryParamsSchema,
    response: recoveryProgressSchema,
    examples: { response: recoveryDoneExample },
    errors: [404],
    async handle({ params, caller }) {
      const clientId = await endpointClient(params.id, caller);
      const job = await getRecoveryJob(params.id, params.jobId);
      if (!job || job.clientId !== clientId) throw notFound(`recovery ${params.jobId} of webhook ${params.id}`);
      return { body: progressOf(job) };
    },
  }),
];
