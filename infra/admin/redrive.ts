import { DeleteMessageCommand, GetQueueUrlCommand, ReceiveMessageCommand, SendMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { sqsClient } from '../../shared/aws/clients';
import { adminConfig } from './admin-config';

/**
 * Moves what waits on a dead-letter queue back to the queue it came from, one message at a time: sent first,
 * deleted from the DLQ after, so that an interruption can only leave a message in both places, never in
 * neither. On the FIFO input queue the redriven copy keeps its message group (the vehicle) and gets a
 * deduplication id derived from the DLQ message, so running the command twice sends it once. The `reason`
 * attribute stays behind. Works the same on AWS and against the local emulators.
 */
export type RedriveTarget = 'input' | 'deliveries';

interface QueuePair {
  source: string;
  deadLetters: string;
  fifo: boolean;
}

/** Local queue names, as `npm start` creates them; on AWS the URLs come from the stack outputs. */
const LOCAL_NAMES: Record<RedriveTarget, { source: string; deadLetters: string }> = {
  input: { source: 'fleetwatch-messages.fifo', deadLetters: 'fleetwatch-messages-dlq.fifo' },
  deliveries: { source: 'fleetwatch-deliveries', deadLetters: 'fleetwatch-deliveries-dlq' },
};
type QueueVariable = 'INPUT_QUEUE_URL' | 'INPUT_DLQ_URL' | 'DELIVERIES_QUEUE_URL' | 'DELIVERIES_DLQ_URL';

const ENV_NAMES: Record<RedriveTarget, { source: QueueVariable; deadLetters: QueueVariable }> = {
  input: { source: 'INPUT_QUEUE_URL', deadLetters: 'INPUT_DLQ_URL' },
  deliveries: { source: 'DELIVERIES_QUEUE_URL', deadLetters: 'DELIVERIES_DLQ_URL' },
};

async function queueUrl(envName: QueueVariable, localName: string): Promise<string> {
  const fromEnv = adminConfig()[envName];
  if (fromEnv) return fromEnv;
  const { QueueUrl } = await sqsClient().send(new GetQueueUrlCommand({ QueueName: localName }));
  if (!QueueUrl) throw new Error(`queue ${localName} not found; set ${envName}`);
  return QueueUrl;
}

async function queuesOf(target: RedriveTarget): Promise<QueuePair> {
  return {
    source: await queueUrl(ENV_NAMES[target].source, LOCAL_NAMES[target].source),
    deadLetters: await queueUrl(ENV_NAMES[target].deadLetters, LOCAL_NAMES[target].deadLetters),
    fifo: target === 'input',
  };
}

function redrivenCopy(message: Message, queues: QueuePair) {
  const { reason: _reason, ...attributes } = message.MessageAttributes ?? {};
  return new SendMessageCommand({
    QueueUrl: queues.source,
    MessageBody: message.Body ?? '',
    ...(Object.keys(attributes).length > 0 ? { MessageAttributes: attributes } : {}),
    ...(queues.fifo
      ? {
          MessageGroupId: message.Attributes?.MessageGroupId ?? 'redriven',
          MessageDeduplicationId: `redrive-${message.MessageId}`,
        }
      : {}),
  });
}

export async function redrive(
  target: RedriveTarget,
  limit = Number.POSITIVE_INFINITY,
): Promise<{ target: RedriveTarget; moved: number; from: string; to: string }> {
  const queues = await queuesOf(target);
  let moved = 0;
  while (moved < limit) {
    const { Messages = [] } = await sqsClient().send(
      new ReceiveMessageCommand({
        QueueUrl: queues.deadLetters,
        MaxNumberOfMessages: Math.min(10, limit - moved),
        VisibilityTimeout: 60,
        WaitTimeSeconds: 1,
        MessageSystemAttributeNames: ['MessageGroupId'],
        MessageAttributeNames: ['All'],
      }),
    );
    if (Messages.length === 0) break;
    for (const message of Messages) {
      await sqsClient().send(redrivenCopy(message, queues));
      await sqsClient().send(new DeleteMessageCommand({ QueueUrl: queues.deadLetters, ReceiptHandle: message.ReceiptHandle }));
      moved += 1;
    }
  }
  return { target, moved, from: queues.deadLetters, to: queues.source };
}
