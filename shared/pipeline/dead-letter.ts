import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { sqsClient } from '../aws/clients';
import { resourcesConfig } from '../config';
import { logger } from '../observability/logger';

/**
 * Moves rejected input messages to the input DLQ (FIFO) with the reason they were rejected, so that nothing
 * is lost and an operator can see why. Returns the message ids that could not be moved: only those must be
 * reported as batch item failures (SQS then redelivers them and, after maxReceiveCount, redrives them).
 */
export const REJECTED_GROUP_ID = 'rejected';
/** SQS limits a message attribute value, together with the body, to 256 KiB; reasons are kept short. */
const MAX_REASON_LENGTH = 4_000;

export interface Rejection {
  record: SQSRecord;
  reason: string;
}

export async function sendToDeadLetter(rejections: readonly Rejection[]): Promise<Set<string>> {
  const failed = new Set<string>();
  if (rejections.length === 0) return failed;
  const queueUrl = resourcesConfig().INPUT_DLQ_URL;
  for (let start = 0; start < rejections.length; start += 10) {
    const chunk = rejections.slice(start, start + 10);
    try {
      const output = await sqsClient().send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: chunk.map(({ record, reason }, index) => ({
            Id: String(index),
            MessageBody: record.body.length > 0 ? record.body : '(empty body)',
            MessageGroupId: REJECTED_GROUP_ID,
            MessageDeduplicationId: record.messageId,
            MessageAttributes: {
              reason: { DataType: 'String', StringValue: reason.slice(0, MAX_REASON_LENGTH) },
              sourceMessageId: { DataType: 'String', StringValue: record.messageId },
            },
          })),
        }),
      );
      for (const entry of output.Failed ?? []) {
        const record = chunk[Number(entry.Id)]?.record;
        if (!record) continue;
        failed.add(record.messageId);
        logger.error('rejected message not moved to the DLQ', { messageId: record.messageId, code: entry.Code, error: entry.Message });
      }
    } catch (error) {
      for (const { record } of chunk) failed.add(record.messageId);
      logger.error('rejected messages not moved to the DLQ', { messageIds: chunk.map(({ record }) => record.messageId), error });
    }
  }
  return failed;
}
