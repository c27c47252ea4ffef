import type * as SqsSdkModule from '@aws-sdk/client-sqs';
import type {
  SendMessageBatchCommandInput,
  SendMessageBatchCommandOutput,
  SendMessageCommandInput,
  SendMessageCommandOutput,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { cachedClient } from './client-cache';

/**
 * The SQS calls the functions make. The SDK is loaded on first use, not at cold start: most evaluate batches
 * raise no alert and reject no message, so most containers never need it.
 */
type SqsSdk = typeof SqsSdkModule;
let sdk: Promise<SqsSdk> | undefined;
const loadSdk = (): Promise<SqsSdk> => (sdk ??= import('@aws-sdk/client-sqs'));

/**
 * Requests go to the configured endpoint, never to the host named inside a queue URL: on AWS both are the
 * same, and a local endpoint (AWS_ENDPOINT_URL_SQS) hands out URLs whose host only it can serve.
 */
export const SQS_CLIENT_CONFIG = { useQueueUrlAsEndpoint: false } as const;

const client = cachedClient(async (): Promise<SQSClient> => new (await loadSdk()).SQSClient(SQS_CLIENT_CONFIG));

export async function sendMessageBatch(input: SendMessageBatchCommandInput): Promise<SendMessageBatchCommandOutput> {
  const { SendMessageBatchCommand } = await loadSdk();
  return (await client()).send(new SendMessageBatchCommand(input));
}

export async function sendMessage(input: SendMessageCommandInput): Promise<SendMessageCommandOutput> {
  const { SendMessageCommand } = await loadSdk();
  return (await client()).send(new SendMessageCommand(input));
}

export async function changeMessageVisibility(input: SqsSdkModule.ChangeMessageVisibilityCommandInput): Promise<void> {
  const { ChangeMessageVisibilityCommand } = await loadSdk();
  await (await client()).send(new ChangeMessageVisibilityCommand(input));
}
