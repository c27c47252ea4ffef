import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import { sqsClient } from '../../shared/aws/clients';

/**
 * Lets the waits a function puts on a queue's messages (ChangeMessageVisibility: the deliver function's retries
 * of up to 15 minutes) pass in a test's simulated time rather than in real time: each such call is noted with the
 * simulated time its wait ends, and the message is hidden for an hour of real time instead; `release` makes
 * visible again what is due by the clock. Every SQS client of the process sends through SQSClient.prototype.send,
 * which this wraps until detached. The queue itself is the real emulator's.
 */
export interface QueueDelays {
  /** Makes the messages whose wait has ended by the clock visible again; returns how many. */
  release(): Promise<number>;
  /** When the waits noted and not released yet end (simulated epoch ms), soonest first. */
  pending(): number[];
  /** The waits noted so far, in seconds, as the function asked for them. */
  asked(): number[];
  /** Whether the message received with this receipt handle waits, noted and not released yet. */
  holds(receiptHandle: string): boolean;
  detach(): void;
}

/** Real seconds a delayed message stays hidden until released. */
const HIDDEN_SECONDS = 3_600;

type Send = (this: SQSClient, command: { input?: Record<string, unknown>; constructor: { name: string } }, ...rest: unknown[]) => Promise<unknown>;

export function holdQueueDelays(queueUrl: string, clock: () => number): QueueDelays {
  const prototype = SQSClient.prototype as unknown as { send: Send };
  const original = prototype.send;
  let held: { receiptHandle: string; dueAt: number }[] = [];
  const asked: number[] = [];
  prototype.send = function (command, ...rest) {
    const input = command.input ?? {};
    const seconds = Number(input.VisibilityTimeout);
    if (command.constructor.name === 'ChangeMessageVisibilityCommand' && input.QueueUrl === queueUrl && seconds > 0) {
      asked.push(seconds);
      held.push({ receiptHandle: String(input.ReceiptHandle), dueAt: clock() + seconds * 1000 });
      input.VisibilityTimeout = HIDDEN_SECONDS;
    }
    return original.call(this, command, ...rest);
  };
  return {
    async release() {
      const due = held.filter((entry) => entry.dueAt <= clock());
      for (const entry of due) {
        try {
          await sqsClient().send(
            new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: entry.receiptHandle, VisibilityTimeout: 0 }),
          );
        } catch (error) {
          // a message deleted meanwhile (a later receive settled it) has nothing left to release; with the queue
          // unreachable, what is left waits for the next call
          if ((error as Error).name !== 'ReceiptHandleIsInvalid' && (error as Error).name !== 'MessageNotInflight') throw error;
        }
        held = held.filter((other) => other !== entry);
      }
      return due.length;
    },
    pending: () => held.map((entry) => entry.dueAt).sort((a, b) => a - b),
    asked: () => [...asked],
    holds: (receiptHandle) => held.some((entry) => entry.receiptHandle === receiptHandle),
    detach: () => {
      prototype.send = original;
    },
  };
}
