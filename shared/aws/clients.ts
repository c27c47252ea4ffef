import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';

/**
 * One client of each kind per process, created on first use so that the endpoint environment
 * (AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_SQS, ...) set by the local runtime or a test is honoured.
 */
let dynamo: DynamoDBDocumentClient | undefined;
let sqs: SQSClient | undefined;
let ses: SESv2Client | undefined;
let sns: SNSClient | undefined;

export function documentClient(): DynamoDBDocumentClient {
  dynamo ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return dynamo;
}

export function sqsClient(): SQSClient {
  sqs ??= new SQSClient({});
  return sqs;
}

export function sesClient(): SESv2Client {
  ses ??= new SESv2Client({});
  return ses;
}

export function snsClient(): SNSClient {
  sns ??= new SNSClient({});
  return sns;
}

/** Forget cached clients, so the next call reads the environment again (used when emulators restart). */
export function resetClients(): void {
  dynamo = undefined;
  sqs = undefined;
  ses = undefined;
  sns = undefined;
}
