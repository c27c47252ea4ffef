import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import type { WebhookNoticeId } from '../schemas/webhook';
import { conditionFailedAt, countAll, transactOrConflict } from './dynamo';
import { webhookNoticePut } from './webhook-notices';
import { webhookDisableUpdate } from './webhooks-store';
import { circuitKeys, FAILING_DESTINATIONS, FAILING_WEBHOOKS } from './keys';

/**
 * The open lists of the circuit breakers (`FAILING#WEBHOOKS`, `FAILING#DESTINATIONS`, keys.ts):
 * what the sweep reads to disable the endpoints that have failed for days, and to count the open circuits.
 */
const table = () => resourcesConfig().DIRECTORY_TABLE;
/** Endpoints disabled per sweep run at most; the rest wait a minute for the next run. */
const DISABLES_PER_RUN = 50;

const failingWebhookSchema = z.object({ clientId: z.string(), endpointId: z.string(), openSince: z.string() });
export type FailingWebhook = z.infer<typeof failingWebhookSchema>;

/** Webhook endpoints whose circuit opened before `cutoff` (ISO) and is still listed open, oldest first. */
export async function failingWebhooksOpenBefore(cutoff: string): Promise<FailingWebhook[]> {
  const { Items = [] } = await documentClient().send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'pk = :pk AND sk < :cutoff',
      ExpressionAttributeValues: { ':pk': FAILING_WEBHOOKS, ':cutoff': cutoff },
      Limit: DISABLES_PER_RUN,
    }),
  );
  return Items.flatMap((item) => {
    const parsed = failingWebhookSchema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}

/**
 * Disables an endpoint whose circuit has been open since `failing.openSince`, takes it off the open list and
 * writes the notice to its client's users, in one transaction on the condition that it is still enabled and
 * still open since then: of two sweeps, one disables it and writes one notice. `stale` when the endpoint closed,
 * was disabled or deleted meanwhile: its list entry is dropped, nothing else is written; `busy` when another
 * sweep's transaction was at it at the same moment.
 */
export async function disableFailingWebhook(failing: FailingWebhook, reason: string, now: number): Promise<'disabled' | 'stale' | 'busy'> {
  const entry = circuitKeys.failingWebhook(failing.openSince, failing.endpointId);
  const notice: WebhookNoticeId = { clientId: failing.clientId, endpointId: failing.endpointId, disabledAt: new Date(now).toISOString() };
  const outcome = await transactOrConflict({
    TransactItems: [
      { Update: webhookDisableUpdate(failing.clientId, failing.endpointId, reason, now, failing.openSince) },
      { Delete: { TableName: table(), Key: entry } },
      { Put: webhookNoticePut(notice, failing.openSince, now) },
    ],
  });
  if (outcome.ok) return 'disabled';
  // another sweep's transaction on the same items: whichever won, the next run sees it
  if (outcome.reasons.some((cancelled) => cancelled.Code === 'TransactionConflict')) return 'busy';
  if (!conditionFailedAt(outcome.reasons, 0)) throw outcome.error;
  await documentClient().send(new DeleteCommand({ TableName: table(), Key: entry }));
  return 'stale';
}

async function countPartition(pk: string): Promise<number> {
  return countAll({ TableName: table(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } });
}

/** How many circuits are open now: shared destinations, and webhook endpoints. */
export async function countOpenCircuits(): Promise<{ destinations: number; webhooks: number }> {
  return { destinations: await countPartition(FAILING_DESTINATIONS), webhooks: await countPartition(FAILING_WEBHOOKS) };
}
