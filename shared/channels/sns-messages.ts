import type { SNSEvent } from 'aws-lambda';

/** An SNS invocation (the SES and SMS event destinations), as opposed to the deliveries queue's SQS batch. */
export function isSnsEvent(event: unknown): event is SNSEvent {
  const records = (event as { Records?: { EventSource?: string }[] } | null)?.Records;
  return Array.isArray(records) && records.length > 0 && records.every((record) => record?.EventSource === 'aws:sns');
}

/** The JSON messages an SNS batch carries, in order; one that is not JSON is skipped, after `onMalformed`. */
export function snsJsonMessages(event: SNSEvent, onMalformed?: (messageId: string) => void): unknown[] {
  const messages: unknown[] = [];
  for (const record of event.Records) {
    try {
      messages.push(JSON.parse(record.Sns.Message));
    } catch {
      onMalformed?.(record.Sns.MessageId);
    }
  }
  return messages;
}
