import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { sqsClient } from '../../shared/aws/clients';
import { invoke } from './invocation';
import { localAwsConfig } from './start-config';

/**
 * Plays the part of Lambda's SQS event source mapping on one machine: receives batches, invokes the handler
 * with an SQS event, and deletes what the handler did not report as failed. A handler that throws fails the
 * whole batch, which then becomes visible again after the visibility timeout, as on AWS.
 */
export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export interface PollOptions {
  queueUrl: string;
  handler: SqsHandler;
  functionName: string;
  batchSize?: number;
  visibilityTimeoutSeconds?: number;
  waitTimeSeconds?: number;
  /**
   * Batches in flight at once, as Lambda runs several invocations of one function (default 1). FIFO order
   * holds whatever the number: SQS hands out no message of a group while another of the group is in flight.
   */
  concurrency?: number;
  onError?: (error: unknown) => void;
}

export function toSqsRecord(message: Message, queueArn: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId!,
    receiptHandle: message.ReceiptHandle!,
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      ...(attributes.MessageGroupId ? { MessageGroupId: attributes.MessageGroupId } : {}),
      ...(attributes.MessageDeduplicationId ? { MessageDeduplicationId: attributes.MessageDeduplicationId } : {}),
    },
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
        name,
        { dataType: value.DataType ?? 'String', stringValue: value.StringValue, binaryValue: undefined, stringListValues: [], binaryListValues: [] },
      ]),
    ),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: localAwsConfig().AWS_REGION,
  };
}

export function lambdaContext(functionName: string): Context {
  const deadline = Date.now() + 60_000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: crypto.randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function queueArnOf(queueUrl: string): string {
  return `arn:aws:sqs:us-east-1:000000000000:${queueUrl.split('/').pop()}`;
}

/** Receives one batch and runs the handler on it. Returns how many messages were received. */
export async function pollOnce(options: PollOptions): Promise<number> {
  const client = sqsClient();
  const { Messages = [] } = await client.send(
    new ReceiveMessageCommand({
      QueueUrl: options.queueUrl,
      MaxNumberOfMessages: Math.min(options.batchSize ?? 10, 10),
      WaitTimeSeconds: options.waitTimeSeconds ?? 0,
      VisibilityTimeout: options.visibilityTimeoutSeconds ?? 30,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    }),
  );
  if (Messages.length === 0) return 0;
  const event: SQSEvent = { Records: Messages.map((message) => toSqsRecord(message, queueArnOf(options.queueUrl))) };
  let failed = new Set<string>();
  try {
    const context = lambdaContext(options.functionName);
    const response = await invoke(context, () => options.handler(event, context));
    failed = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
  } catch (error) {
    options.onError?.(error);
    return Messages.length;
  }
  const done = event.Records.filter((record) => !failed.has(record.messageId));
  for (let start = 0; start < done.length; start += 10) {
    await client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: options.queueUrl,
        Entries: done.slice(start, start + 10).map((record, index) => ({ Id: String(index), ReceiptHandle: record.receiptHandle })),
      }),
    );
  }
  return Messages.length;
}

/** Polls until stopped, as a deployed event source mapping would, with `concurrency` batches in flight. */
export function startPolling(options: PollOptions): { stop: () => Promise<void> } {
  let running = true;
  const loop = async () => {
    while (running) {
      try {
        await pollOnce({ waitTimeSeconds: 1, ...options });
      } catch (error) {
        options.onError?.(error);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  };
  const loops = Array.from({ length: Math.max(1, options.concurrency ?? 1) }, loop);
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}
