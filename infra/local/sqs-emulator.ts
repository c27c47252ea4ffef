import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback stand-in for Amazon SQS that speaks the AWS JSON 1.0 protocol of the SDK v3 SQS client.
 * No maintained JavaScript emulator speaks that protocol, so this one covers what fleetwatch uses:
 * standard and FIFO queues (message groups, deduplication), visibility timeouts, message attributes,
 * receive counts and redrive to a dead-letter queue.
 */

interface StoredMessage {
  messageId: string;
  body: string;
  md5: string;
  attributes: Record<string, MessageAttribute>;
  groupId?: string;
  deduplicationId?: string;
  sentAt: number;
  receiveCount: number;
  firstReceivedAt?: number;
  invisibleUntil: number;
  receiptHandle?: string;
}

interface MessageAttribute {
  DataType: string;
  StringValue?: string;
  BinaryValue?: string;
}

interface Queue {
  name: string;
  url: string;
  arn: string;
  fifo: boolean;
  contentBasedDeduplication: boolean;
  visibilityTimeoutSeconds: number;
  redrive?: { deadLetterTargetArn: string; maxReceiveCount: number };
  messages: StoredMessage[];
  deduplication: Map<string, { messageId: string; at: number }>;
  attributes: Record<string, string>;
}

const DEDUPLICATION_WINDOW_MS = 5 * 60_000;
/** SQS's limit for one message and for one SendMessageBatch request. */
const MAX_MESSAGE_BYTES = 262_144;
const ACCOUNT = '000000000000';
const REGION = 'us-east-1';

class SqsError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class SqsEmulator {
  private readonly queues = new Map<string, Queue>();
  private server: Server | undefined;
  private baseUrl = '';

  /** Starts listening on loopback; port 0 picks a free port. Returns the endpoint URL. */
  async start(port = 0): Promise<string> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    const address = this.server.address() as AddressInfo;
    this.baseUrl = `http://127.0.0.1:${address.port}`;
    return this.baseUrl;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = undefined;
  }

  get endpoint(): string {
    return this.baseUrl;
  }

  /** Messages currently in a queue, visible or not; for tests and the local inspector. */
  peek(queueName: string): ReadonlyArray<Readonly<StoredMessage>> {
    return this.queues.get(queueName)?.messages ?? [];
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const target = String(request.headers['x-amz-target'] ?? '');
    const action = target.startsWith('AmazonSQS.') ? target.slice('AmazonSQS.'.length) : '';
    let body = '';
    for await (const chunk of request) body += chunk;
    try {
      const input = body ? (JSON.parse(body) as Record<string, unknown>) : {};
      const output = await this.dispatch(action, input);
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(JSON.stringify(output));
    } catch (error) {
      const sqsError = error instanceof SqsError ? error : new SqsError('InternalError', (error as Error).message);
      response.writeHead(400, {
        'content-type': 'application/x-amz-json-1.0',
        'x-amzn-query-error': `AWS.SimpleQueueService.${sqsError.code};Sender`,
      });
      response.end(JSON.stringify({ __type: `com.amazonaws.sqs#${sqsError.code}`, message: sqsError.message }));
    }
  }

  private async dispatch(action: string, input: Record<string, unknown>): Promise<unknown> {
    switch (action) {
      case 'CreateQueue':
        return this.createQueue(input);
      case 'GetQueueUrl':
        return { QueueUrl: this.queueByName(String(input.QueueName)).url };
      case 'ListQueues':
        return { QueueUrls: [...this.queues.values()].map((queue) => queue.url) };
      case 'GetQueueAttributes':
        return { Attributes: this.attributesOf(this.queueByUrl(input.QueueUrl)) };
      case 'SendMessage':
        return this.send(this.queueByUrl(input.QueueUrl), input);
      case 'SendMessageBatch':
        return this.sendBatch(this.queueByUrl(input.QueueUrl), input);
      case 'ReceiveMessage':
        return this.receive(this.queueByUrl(input.QueueUrl), input);
      case 'DeleteMessage':
        this.deleteByHandle(this.queueByUrl(input.QueueUrl), String(input.ReceiptHandle));
        return {};
      case 'DeleteMessageBatch':
        return this.deleteBatch(this.queueByUrl(input.QueueUrl), input);
      case 'ChangeMessageVisibility':
        this.changeVisibility(this.queueByUrl(input.QueueUrl), String(input.ReceiptHandle), Number(input.VisibilityTimeout));
        return {};
      case 'PurgeQueue':
        this.queueByUrl(input.QueueUrl).messages = [];
        return {};
      default:
        throw new SqsError('UnsupportedOperation', `${action || 'request without X-Amz-Target'} is not supported by the emulator`);
    }
  }

  private createQueue(input: Record<string, unknown>): { QueueUrl: string } {
    const name = String(input.QueueName ?? '');
    if (!/^[\w-]{1,80}(\.fifo)?$/.test(name)) throw new SqsError('InvalidParameterValue', `invalid queue name ${name}`);
    const existing = this.queues.get(name);
    if (existing) return { QueueUrl: existing.url };
    const attributes = (input.Attributes ?? {}) as Record<string, string>;
    const fifo = name.endsWith('.fifo');
    const redrivePolicy = attributes.RedrivePolicy ? (JSON.parse(attributes.RedrivePolicy) as Record<string, unknown>) : undefined;
    const queue: Queue = {
      name,
      url: `${this.baseUrl}/${ACCOUNT}/${name}`,
      arn: `arn:aws:sqs:${REGION}:${ACCOUNT}:${name}`,
      fifo,
      contentBasedDeduplication: attributes.ContentBasedDeduplication === 'true',
      visibilityTimeoutSeconds: Number(attributes.VisibilityTimeout ?? 30),
      redrive: redrivePolicy
        ? { deadLetterTargetArn: String(redrivePolicy.deadLetterTargetArn), maxReceiveCount: Number(redrivePolicy.maxReceiveCount) }
        : undefined,
      messages: [],
      deduplication: new Map(),
      attributes: { ...attributes, QueueArn: `arn:aws:sqs:${REGION}:${ACCOUNT}:${name}` },
    };
    this.queues.set(name, queue);
    return { QueueUrl: queue.url };
  }

  private queueByName(name: string): Queue {
    const queue = this.queues.get(name);
    if (!queue) throw new SqsError('QueueDoesNotExist', `queue ${name} does not exist`);
    return queue;
  }

  private queueByUrl(url: unknown): Queue {
    const name = String(url ?? '').split('/').pop() ?? '';
    return this.queueByName(name);
  }

  private queueByArn(arn: string): Queue {
    return this.queueByName(arn.split(':').pop() ?? '');
  }

  private attributesOf(queue: Queue): Record<string, string> {
    const now = Date.now();
    const visible = queue.messages.filter((message) => message.invisibleUntil <= now).length;
    return {
      ...queue.attributes,
      ApproximateNumberOfMessages: String(visible),
      ApproximateNumberOfMessagesNotVisible: String(queue.messages.length - visible),
      VisibilityTimeout: String(queue.visibilityTimeoutSeconds),
      FifoQueue: String(queue.fifo),
    };
  }

  private send(queue: Queue, input: Record<string, unknown>): Record<string, string> {
    const body = String(input.MessageBody ?? '');
    if (!body) throw new SqsError('MissingParameter', 'MessageBody is required');
    if (messageBytes(input) > MAX_MESSAGE_BYTES) throw new SqsError('InvalidParameterValue', 'message (body and attributes) longer than 256 KiB');
    const groupId = input.MessageGroupId === undefined ? undefined : String(input.MessageGroupId);
    let deduplicationId = input.MessageDeduplicationId === undefined ? undefined : String(input.MessageDeduplicationId);
    if (queue.fifo) {
      if (!groupId) throw new SqsError('MissingParameter', 'MessageGroupId is required for FIFO queues');
      if (!deduplicationId && queue.contentBasedDeduplication) deduplicationId = sha256(body);
      if (!deduplicationId) throw new SqsError('InvalidParameterValue', 'MessageDeduplicationId is required (no content-based deduplication)');
    }
    const md5 = md5Hex(body);
    const now = Date.now();
    if (deduplicationId) {
      const seen = queue.deduplication.get(deduplicationId);
      if (seen && now - seen.at < DEDUPLICATION_WINDOW_MS) return { MessageId: seen.messageId, MD5OfMessageBody: md5 };
    }
    const message: StoredMessage = {
      messageId: randomUUID(),
      body,
      md5,
      attributes: (input.MessageAttributes ?? {}) as Record<string, MessageAttribute>,
      groupId,
      deduplicationId,
      sentAt: now,
      receiveCount: 0,
      invisibleUntil: now + Number(input.DelaySeconds ?? 0) * 1000,
    };
    queue.messages.push(message);
    if (deduplicationId) queue.deduplication.set(deduplicationId, { messageId: message.messageId, at: now });
    return { MessageId: message.messageId, MD5OfMessageBody: md5 };
  }

  private sendBatch(queue: Queue, input: Record<string, unknown>): unknown {
    const entries = (input.Entries ?? []) as Array<Record<string, unknown>>;
    if (entries.length === 0 || entries.length > 10) throw new SqsError('TooManyEntriesInBatchRequest', 'a batch holds 1 to 10 entries');
    const batchBytes = entries.reduce((sum, entry) => sum + messageBytes(entry), 0);
    if (batchBytes > MAX_MESSAGE_BYTES) {
      throw new SqsError('BatchRequestTooLong', `Batch requests cannot be longer than ${MAX_MESSAGE_BYTES} bytes (${batchBytes})`);
    }
    const Successful: unknown[] = [];
    const Failed: unknown[] = [];
    for (const entry of entries) {
      try {
        Successful.push({ Id: entry.Id, ...this.send(queue, entry) });
      } catch (error) {
        const code = error instanceof SqsError ? error.code : 'InternalError';
        Failed.push({ Id: entry.Id, Code: code, Message: (error as Error).message, SenderFault: true });
      }
    }
    return { Successful, Failed };
  }

  private async receive(queue: Queue, input: Record<string, unknown>): Promise<unknown> {
    const max = Math.min(Math.max(Number(input.MaxNumberOfMessages ?? 1), 1), 10);
    const visibility = Number(input.VisibilityTimeout ?? queue.visibilityTimeoutSeconds);
    const waitUntil = Date.now() + Math.min(Number(input.WaitTimeSeconds ?? 0), 20) * 1000;
    for (;;) {
      const taken = this.take(queue, max, visibility);
      if (taken.length > 0 || Date.now() >= waitUntil || !this.server) {
        return {
          Messages: taken.map((message) => ({
            MessageId: message.messageId,
            ReceiptHandle: message.receiptHandle,
            MD5OfBody: message.md5,
            Body: message.body,
            Attributes: {
              ApproximateReceiveCount: String(message.receiveCount),
              SentTimestamp: String(message.sentAt),
              ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt ?? message.sentAt),
              ...(message.groupId ? { MessageGroupId: message.groupId } : {}),
              ...(message.deduplicationId ? { MessageDeduplicationId: message.deduplicationId } : {}),
            },
            MessageAttributes: message.attributes,
          })),
        };
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Picks visible messages; in a FIFO queue a group with a message in flight is held back, preserving order. */
  private take(queue: Queue, max: number, visibilitySeconds: number): StoredMessage[] {
    const now = Date.now();
    const blockedGroups = new Set<string>();
    const taken: StoredMessage[] = [];
    for (const message of [...queue.messages]) {
      if (taken.length >= max) break;
      const inFlight = message.invisibleUntil > now;
      if (queue.fifo && message.groupId) {
        if (blockedGroups.has(message.groupId)) continue;
        if (inFlight) {
          // a group's earlier message still in flight holds the rest of the group back
          blockedGroups.add(message.groupId);
          continue;
        }
      } else if (inFlight) {
        continue;
      }
      if (queue.redrive && message.receiveCount >= queue.redrive.maxReceiveCount) {
        this.moveToDeadLetter(queue, message);
        continue;
      }
      message.receiveCount += 1;
      message.firstReceivedAt ??= now;
      message.invisibleUntil = now + visibilitySeconds * 1000;
      message.receiptHandle = randomUUID();
      taken.push(message);
    }
    return taken;
  }

  private moveToDeadLetter(queue: Queue, message: StoredMessage): void {
    queue.messages = queue.messages.filter((candidate) => candidate !== message);
    const deadLetter = this.queueByArn(queue.redrive!.deadLetterTargetArn);
    deadLetter.messages.push({ ...message, receiveCount: 0, invisibleUntil: 0, receiptHandle: undefined });
  }

  private deleteByHandle(queue: Queue, receiptHandle: string): void {
    const index = queue.messages.findIndex((message) => message.receiptHandle === receiptHandle);
    if (index === -1) throw new SqsError('ReceiptHandleIsInvalid', 'unknown receipt handle');
    queue.messages.splice(index, 1);
  }

  private deleteBatch(queue: Queue, input: Record<string, unknown>): unknown {
    const entries = (input.Entries ?? []) as Array<Record<string, unknown>>;
    const Successful: unknown[] = [];
    const Failed: unknown[] = [];
    for (const entry of entries) {
      try {
        this.deleteByHandle(queue, String(entry.ReceiptHandle));
        Successful.push({ Id: entry.Id });
      } catch (error) {
        Failed.push({ Id: entry.Id, Code: (error as SqsError).code, Message: (error as Error).message, SenderFault: true });
      }
    }
    return { Successful, Failed };
  }

  private changeVisibility(queue: Queue, receiptHandle: string, seconds: number): void {
    const message = queue.messages.find((candidate) => candidate.receiptHandle === receiptHandle);
    if (!message) throw new SqsError('ReceiptHandleIsInvalid', 'unknown receipt handle');
    message.invisibleUntil = Date.now() + seconds * 1000;
  }
}

/** Body plus attribute names, types and values, as SQS counts a message's size. */
function messageBytes(input: Record<string, unknown>): number {
  const attributes = (input.MessageAttributes ?? {}) as Record<string, MessageAttribute>;
  let bytes = Buffer.byteLength(String(input.MessageBody ?? ''));
  for (const [name, value] of Object.entries(attributes)) {
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value.DataType ?? '') + Buffer.byteLength(value.StringValue ?? value.BinaryValue ?? '');
  }
  return bytes;
}

function md5Hex(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
