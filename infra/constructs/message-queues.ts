import { Duration, Stack } from 'aws-cdk-lib';
import { DeduplicationScope, FifoThroughputLimit, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface MessageQueuesProps {
  /** Timeout of the function consuming the input queue; the visibility timeout is six times it. */
  evaluateTimeout: Duration;
  /** Timeout of the function consuming the deliveries queue; the visibility timeout is six times it. */
  deliverTimeout: Duration;
}

/** Receives before a message is moved to its dead-letter queue. */
export const MAX_RECEIVE_COUNT = 5;
/** Six times the consumer's timeout, as Lambda's SQS event source recommends, so batching and retries never overlap. */
const VISIBILITY_FACTOR = 6;
const DLQ_RETENTION = Duration.days(14);

/**
 * The input FIFO queue of terminal messages (one message group per vehicle, so each vehicle's messages are
 * evaluated in order) and the deliveries queue of alerts to send, each with its dead-letter queue.
 */
export class MessageQueues extends Construct {
  readonly input: Queue;
  readonly inputDeadLetters: Queue;
  readonly deliveries: Queue;
  readonly deliveryDeadLetters: Queue;

  constructor(scope: Construct, id: string, props: MessageQueuesProps) {
    super(scope, id);
    const prefix = Stack.of(this).stackName;
    const common = { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true } as const;

    this.inputDeadLetters = new Queue(this, 'InputDeadLetterQueue', {
      ...common,
      queueName: `${prefix}-messages-dlq.fifo`,
      fifo: true,
      contentBasedDeduplication: true,
      retentionPeriod: DLQ_RETENTION,
    });
    this.input = new Queue(this, 'InputQueue', {
      ...common,
      queueName: `${prefix}-messages.fifo`,
      fifo: true,
      contentBasedDeduplication: true,
      // High-throughput FIFO: ordering and deduplication per vehicle are all fleetwatch needs.
      deduplicationScope: DeduplicationScope.MESSAGE_GROUP,
      fifoThroughputLimit: FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
      visibilityTimeout: Duration.seconds(props.evaluateTimeout.toSeconds() * VISIBILITY_FACTOR),
      deadLetterQueue: { queue: this.inputDeadLetters, maxReceiveCount: MAX_RECEIVE_COUNT },
    });

    this.deliveryDeadLetters = new Queue(this, 'DeliveryDeadLetterQueue', {
      ...common,
      queueName: `${prefix}-deliveries-dlq`,
      retentionPeriod: DLQ_RETENTION,
    });
    this.deliveries = new Queue(this, 'DeliveryQueue', {
      ...common,
      queueName: `${prefix}-deliveries`,
      visibilityTimeout: Duration.seconds(props.deliverTimeout.toSeconds() * VISIBILITY_FACTOR),
      deadLetterQueue: { queue: this.deliveryDeadLetters, maxReceiveCount: MAX_RECEIVE_COUNT },
    });
  }
}
