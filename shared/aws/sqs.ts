import { SQSClient } from '@aws-sdk/client-sqs';
import { cachedClient } from './client-cache';

// Requests go to the configured endpoint, never to the host named inside a queue URL: on AWS both are the
// same, and a local endpoint (AWS_ENDPOINT_URL_SQS) hands out URLs whose host only it can serve.
export const sqsClient = cachedClient(() => new SQSClient({ useQueueUrlAsEndpoint: false }));
