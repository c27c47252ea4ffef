import { DeleteCommand, paginateQuery, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { webhookNoticeIdSchema, type WebhookNoticeId } from '../schemas/webhook';
import { conditionFailed } from './dynamo';
import { webhookNoticeKeys } from './keys';

/**
 * The notices that an endpoint was disabled after failing for days, while they are being sent (item layout in
 * shared/schemas/webhook.ts, `webhookNoticeKeys`). A notice exists only until every recipient has it, so the
 * partition holds a handful of items at most and the sweep reads it whole, one Query a run.
 */
const table = () => resourcesConfig().DIRECTORY_TABLE;
/** A notice nobody finished is gone after this anyway, so that a client deleted meanwhile leaves nothing behind. */
const KEEP_SECONDS = 30 * 86_400;

const storedNoticeSchema = z.object({
  ...webhookNoticeIdSchema.shape,
  /** When its circuit opened. */
  openSince: z.string(),
  /** When the sweep hands it to deliver (again), epoch ms. */
  dueAt: z.number(),
  /** Recipients reached, by key, with when. */
  sent: z.record(z.string(), z.string()).default({}),
});
export type WebhookNotice = z.infer<typeof storedNoticeSchema>;

const keyOf = (id: WebhookNoticeId) => webhookNoticeKeys.notice(id.endpointId, id.disabledAt);
const idOf = ({ clientId, endpointId, disabledAt }: WebhookNotice): WebhookNoticeId => ({ clientId, endpointId, disabledAt });

/** The Put of a new notice, due at once, for the transaction that disables its endpoint. */
export function webhookNoticePut(id: WebhookNoticeId, openSince: string, now: number) {
  return {
    TableName: table(),
    Item: { ...keyOf(id), ...id, openSince, dueAt: now, sent: {}, ttl: Math.floor(now / 1000) + KEEP_SECONDS },
    ConditionExpression: 'attribute_not_exists(pk)',
  };
}

/** Notices whose time to be handed to deliver has come. */
export async function dueWebhookNotices(now: number): Promise<WebhookNotice[]> {
  const due: WebhookNotice[] = [];
  for await (const page of paginateQuery(
    { client: documentClient() },
    { TableName: table(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': webhookNoticeKeys.partition } },
  )) {
    for (const item of page.Items ?? []) {
      const parsed = storedNoticeSchema.safeParse(item);
      if (parsed.success && parsed.data.dueAt <= now) due.push(parsed.data);
    }
  }
  return due;
}

/**
 * Makes a due notice due again at `nextDueAt` before it is handed out, unless another sweep did first: true for
 * the one caller that should enqueue it. A request lost on the way is handed out again then.
 */
export async function postponeWebhookNotice(notice: WebhookNotice, nextDueAt: number): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: keyOf(idOf(notice)),
        UpdateExpression: 'SET dueAt = :next',
        ConditionExpression: 'dueAt = :due',
        ExpressionAttributeValues: { ':next': nextDueAt, ':due': notice.dueAt },
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}

/** Takes the sending of a notice for `leaseMs`; null when it is done (gone) or another sender has it. */
export async function claimWebhookNotice(id: WebhookNoticeId, now: number, leaseMs: number): Promise<WebhookNotice | null> {
  try {
    const { Attributes } = await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: keyOf(id),
        UpdateExpression: 'SET sendingUntil = :until',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(sendingUntil) OR sendingUntil < :now)',
        ExpressionAttributeValues: { ':until': now + leaseMs, ':now': now },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return storedNoticeSchema.parse(Attributes);
  } catch (error) {
    if (conditionFailed(error)) return null;
    throw error;
  }
}

/** One recipient has the notice (or can never get it): it is not sent to again. */
export async function markWebhookNoticeSent(id: WebhookNoticeId, recipientKey: string, now: number): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: keyOf(id),
      UpdateExpression: 'SET sent.#recipient = :at',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#recipient': recipientKey },
      ExpressionAttributeValues: { ':at': new Date(now).toISOString() },
    }),
  );
}

/** Every recipient has it: the notice is done. */
export async function finishWebhookNotice(id: WebhookNoticeId): Promise<void> {
  await documentClient().send(new DeleteCommand({ TableName: table(), Key: keyOf(id) }));
}

/** Some recipient could not be reached for now: the next hand-out (the sweep's, when due) tries again. */
export async function releaseWebhookNotice(id: WebhookNoticeId): Promise<void> {
  await documentClient()
    .send(
      new UpdateCommand({ TableName: table(), Key: keyOf(id), UpdateExpression: 'REMOVE sendingUntil', ConditionExpression: 'attribute_exists(pk)' }),
    )
    .catch((error: unknown) => {
      if (!conditionFailed(error)) throw error;
    });
}
