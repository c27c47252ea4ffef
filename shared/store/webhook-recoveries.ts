import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { recoveryJobSchema, type RecoveryJob } from '../schemas/webhook-recovery';
import { WEBHOOK_LOG_DAYS } from './webhook-deliveries';
import { cancellation, conditionFailed } from './dynamo';
import { webhookRecoveryKeys } from './keys';

/**
 * Webhook recovery jobs, in the directory table, all in the endpoint's own partition:
 *   WEBHOOKRECOVERY#<endpointId> / JOB#<jobId>                  the job: its window, progress and where it stands
 *   WEBHOOKRECOVERY#<endpointId> / LATEST                       the endpoint's latest job (`jobId`): one runs at a time
 *   WEBHOOKRECOVERY#<endpointId> / JOB#<jobId>#ALERT#<alertId>  an alert the job took on, so no copy of a step sends it twice
 * Everything expires as the delivery log does, 7 days after the job started.
 */

/** A running job that no step moved on for this long is taken as lost (its queue message is gone): another may start. */
export const RECOVERY_STALE_MS = 60 * 60_000;
const KEEP_SECONDS = WEBHOOK_LOG_DAYS * 86_400;

const table = () => resourcesConfig().DIRECTORY_TABLE;
const jobKey = webhookRecoveryKeys.job;
const latestKey = webhookRecoveryKeys.latest;
const alertKey = (job: RecoveryJob, alertId: string) => webhookRecoveryKeys.alert(job.webhookId, job.jobId, alertId);
const ttlOf = (job: RecoveryJob) => Math.floor(Date.parse(job.startedAt) / 1000) + KEEP_SECONDS;

/** Another job of the endpoint is running: `jobId`. */
export class RecoveryRunningError extends Error {
  constructor(readonly jobId: string) {
    super(`recovery ${jobId} of this webhook is still running`);
    this.name = 'RecoveryRunningError';
  }
}

/** Whether the job still runs: running, and moved on within RECOVERY_STALE_MS. */
export const isRunning = (job: RecoveryJob, now: number): boolean => job.state === 'running' && Date.parse(job.updatedAt) > now - RECOVERY_STALE_MS;

export async function getRecoveryJob(endpointId: string, jobId: string): Promise<RecoveryJob | null> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: jobKey(endpointId, jobId), ConsistentRead: true }));
  return Item ? recoveryJobSchema.parse(Item) : null;
}

/** The endpoint's latest job, or null when it never had one (or it expired). */
export async function latestRecoveryJob(endpointId: string): Promise<RecoveryJob | null> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: latestKey(endpointId), ConsistentRead: true }));
  const latest = z.object({ jobId: z.string() }).safeParse(Item);
  return latest.success ? getRecoveryJob(endpointId, latest.data.jobId) : null;
}

/**
 * Stores a new job as the endpoint's latest, provided the latest is still `previous` (the one the caller read and
 * found not running), in one transaction; a lost job `previous` is marked failed in it. Throws
 * RecoveryRunningError when another job started meanwhile.
 */
export async function startRecoveryJob(job: RecoveryJob, previous: RecoveryJob | null, now: number): Promise<void> {
  // the caller found it not running: still marked running, it is lost
  const lost = previous?.state === 'running' ? previous : null;
  try {
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: table(),
              Item: { ...jobKey(job.webhookId, job.jobId), ...job, ttl: ttlOf(job) },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Put: {
              TableName: table(),
              Item: { ...latestKey(job.webhookId), jobId: job.jobId, ttl: ttlOf(job) },
              // a latest whose job is gone expired with it (both keep the job's time to live), whether or not TTL deleted it yet
              ...(previous
                ? { ConditionExpression: 'jobId = :previous', ExpressionAttributeValues: { ':previous': previous.jobId } }
                : {
                    ConditionExpression: 'attribute_not_exists(pk) OR #ttl < :now',
                    ExpressionAttributeNames: { '#ttl': 'ttl' },
                    ExpressionAttributeValues: { ':now': Math.floor(now / 1000) },
                  }),
            },
          },
          ...(lost
            ? [
                {
                  Update: {
                    TableName: table(),
                    Key: jobKey(lost.webhookId, lost.jobId),
                    UpdateExpression: 'SET #state = :failed, finishedAt = :at, updatedAt = :at, lastError = :error',
                    ConditionExpression: '#state = :running AND updatedAt = :seen',
                    ExpressionAttributeNames: { '#state': 'state' },
                    ExpressionAttributeValues: {
                      ':failed': 'failed',
                      ':running': 'running',
                      ':at': new Date(now).toISOString(),
                      ':seen': lost.updatedAt,
                      ':error': `the job stopped making progress (no step for ${RECOVERY_STALE_MS / 60_000} minutes); a new one replaced it`,
                    },
                  },
                },
              ]
            : []),
        ],
      }),
    );
  } catch (error) {
    if (!cancellation(error)) throw error;
    throw new RecoveryRunningError((await latestRecoveryJob(job.webhookId))?.jobId ?? 'unknown');
  }
}

/** Takes an alert on for the job; false when a copy of the step (or an earlier step) already did. */
export async function claimRecoveredAlert(job: RecoveryJob, alertId: string): Promise<boolean> {
  try {
    await documentClient().send(
      new PutCommand({
        TableName: table(),
        Item: { ...alertKey(job, alertId), ttl: ttlOf(job) },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}

/** Counts one alert the job found, and what came of it; a failure's words become the job's `lastError`. */
export async function countRecoveredAlert(job: RecoveryJob, outcome: 'sent' | 'failed' | 'skipped', error?: string): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: jobKey(job.webhookId, job.jobId),
      UpdateExpression: `ADD #found :one, #outcome :one${error === undefined ? '' : ' SET lastError = :error'}`,
      ExpressionAttributeNames: { '#found': 'found', '#outcome': outcome },
      ExpressionAttributeValues: { ':one': 1, ...(error === undefined ? {} : { ':error': error }) },
    }),
  );
}

/**
 * Moves the job from its step to the next, after `cursor`, as done by queue message `messageId`; false when a
 * copy of the step got there first or the job no longer runs.
 */
export async function advanceRecoveryJob(job: RecoveryJob, cursor: string, messageId: string, now: number): Promise<boolean> {
  return conditionalJobUpdate(job, 'SET #step = :next, #cursor = :cursor, stepMessageId = :message, updatedAt = :at', {
    ':next': job.step + 1,
    ':cursor': cursor,
    ':message': messageId,
    ':at': new Date(now).toISOString(),
  });
}

/** Ends the job at its step, done or failed (with why); false when a copy of the step got there first. */
export async function finishRecoveryJob(job: RecoveryJob, now: number, error?: string): Promise<boolean> {
  const at = new Date(now).toISOString();
  return conditionalJobUpdate(job, `SET #state = :state, finishedAt = :at, updatedAt = :at${error === undefined ? '' : ', lastError = :error'}`, {
    ':state': error === undefined ? 'done' : 'failed',
    ':at': at,
    ...(error === undefined ? {} : { ':error': error }),
  });
}

async function conditionalJobUpdate(job: RecoveryJob, update: string, values: Record<string, unknown>): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: jobKey(job.webhookId, job.jobId),
        UpdateExpression: update,
        ConditionExpression: '#state = :running AND #step = :step',
        // state, step and cursor are DynamoDB reserved words
        ExpressionAttributeNames: { '#state': 'state', '#step': 'step', ...(update.includes('#cursor') ? { '#cursor': 'cursor' } : {}) },
        ExpressionAttributeValues: { ...values, ':running': 'running', ':step': job.step },
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}
