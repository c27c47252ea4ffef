import type { SendMessageBatchRequestEntry } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { sendMessageBatch } from '../aws/sqs';
import { resourcesConfig } from '../config';
import { logger } from '../observability/logger';

/**
 * Moves rejected input messages to the input DLQ (FIFO) with the reason they were rejected, so that nothing
 * is lost and an operator can see why. Returns the message ids that could not be moved: only those must be
 * reported as batch item failures (SQS then redelivers them and, after maxReceiveCount, redrives them).
 */
export const REJECTED_GROUP_ID = 'rejected';
/** SQS limits one message (body and attributes) and one SendMessageBatch request to 1 MiB. */
export const SQS_MAX_BYTES = 1_048_576;
const MAX_REASON_LENGTH = 4_000;
/** Bytes counted for each attribute beyond its name and value (data type), with room to spare. */
const ATTRIBUTE_OVERHEAD = 16;

export interface Rejection {
  record: SQSRecord;
  reason: string;
}

interface SizedEntry {
  entry: SendMessageBatchRequestEntry;
  record: SQSRecord;
  bytes: number;
}

export async function sendToDeadLetter(rejections: readonly Rejection[]): Promise<Set<string>> {
  const failed = new Set<string>();
  if (rejections.length === 0) return failed;
  const queueUrl = resourcesConfig().INPUT_DLQ_URL;
  const entries = rejections.map(deadLetterEntry);
  for (const batch of packBatches(entries)) {
    try {
      const output = await sendMessageBatch({ QueueUrl: queueUrl, Entries: batch.map(({ entry }, index) => ({ ...entry, Id: String(index) })) });
      for (const result of output.Failed ?? []) {
        const record = batch[Number(result.Id)]?.record;
        if (!record) continue;
        failed.add(record.messageId);
        logger.error('rejected message not moved to the DLQ', { messageId: record.messageId, code: result.Code, error: result.Message });
      }
    } catch (error) {
      for (const { record } of batch) failed.add(record.messageId);
      logger.error('rejected messages not moved to the DLQ', { messageIds: batch.map(({ record }) => record.messageId), error });
    }
  }
  return failed;
}

function deadLetterEntry({ record, reason }: Rejection): SizedEntry {
  const body = record.body.length > 0 ? record.body : '(empty body)';
  const bodyBytes = Buffer.byteLength(body);
  const fixedBytes = bodyBytes + attributeBytes('sourceMessageId', record.messageId) + attributeBytes('reason', '');
  // the body came through SQS, so it fits; the reason is shortened when a near-limit body leaves it little room
  const room = Math.max(0, SQS_MAX_BYTES - fixedBytes);
  const shortReason = truncateToBytes(reason.slice(0, MAX_REASON_LENGTH), room) || 'see the evaluate function log';
  if (shortReason.length < reason.length) {
    logger.warn('rejection reason shortened for the DLQ', { messageId: record.messageId, reason: reason.slice(0, MAX_REASON_LENGTH) });
  }
  return {
    record,
    bytes: fixedBytes + Buffer.byteLength(shortReason),
    entry: {
      Id: record.messageId,
      MessageBody: body,
      MessageGroupId: REJECTED_GROUP_ID,
      MessageDeduplicationId: record.messageId,
      MessageAttributes: {
        reason: { DataType: 'String', StringValue: shortReason },
        sourceMessageId: { DataType: 'String', StringValue: record.messageId },
      },
    },
  };
}

/** Groups entries into SendMessageBatch requests of at most 10 entries and 1 MiB, in order. */
export function packBatches<T extends { bytes: number }>(entries: readonly T[], maxBytes = SQS_MAX_BYTES, maxEntries = 10): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let currentBytes = 0;
  for (const entry of entries) {
    if (current.length > 0 && (current.length === maxEntries || currentBytes + entry.bytes > maxBytes)) {
      batches.push(current);
      current = [];
      currentBytes = 0;
    }
    current.push(entry);
    currentBytes += entry.bytes;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

function attributeBytes(name: string, value: string): number {
  return Buffer.byteLength(name) + Buffer.byteLength(value) + ATTRIBUTE_OVERHEAD;
}

function truncateToBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let end = Math.min(text.length, maxBytes);
  while (end > 0 && Buffer.byteLength(text.slice(0, end)) > maxBytes) end -= 1;
  return text.slice(0, end);
}
