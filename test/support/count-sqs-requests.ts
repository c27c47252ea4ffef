import { SQSClient } from '@aws-sdk/client-sqs';

/**
 * Counts the SQS requests a piece of code makes, by queue: every SQS client of the process (the functions' own
 * and the test's) sends through SQSClient.prototype.send, which this wraps until detached.
 */
export interface SqsRequestCounter {
  /** Requests naming the queue, by command (`SendMessageBatch`, `ReceiveMessage`, …). */
  byCommand(queueUrl: string): Record<string, number>;
  requests(queueUrl: string): number;
  reset(): void;
  detach(): void;
}

type Send = (this: SQSClient, command: { input?: { QueueUrl?: string }; constructor: { name: string } }, ...rest: unknown[]) => Promise<unknown>;

export function countSqsRequests(): SqsRequestCounter {
  const prototype = SQSClient.prototype as unknown as { send: Send };
  const original = prototype.send;
  let counts = new Map<string, Record<string, number>>();
  prototype.send = function (command, ...rest) {
    const queue = command.input?.QueueUrl ?? '';
    const name = command.constructor.name.replace(/Command$/, '');
    const row = counts.get(queue) ?? {};
    row[name] = (row[name] ?? 0) + 1;
    counts.set(queue, row);
    return original.call(this, command, ...rest);
  };
  return {
    byCommand: (queueUrl) => ({ ...counts.get(queueUrl) }),
    requests: (queueUrl) => Object.values(counts.get(queueUrl) ?? {}).reduce((sum, count) => sum + count, 0),
    reset: () => {
      counts = new Map();
    },
    detach: () => {
      prototype.send = original;
    },
  };
}
