import { SQSClient } from '@aws-sdk/client-sqs';
import { cachedClient } from './client-cache';
import { SQS_CLIENT_CONFIG } from './sqs';

/**
 * Every client at once, for tests and the local runtime. Function code imports the module of each service it
 * uses (`./dynamodb`, `./sqs`, `./ses`, `./sns`), so that its bundle loads no SDK client it does not need.
 */
export { documentClient } from './dynamodb';
export { sesClient } from './ses';
export { snsClient } from './sns';
export { resetClients } from './client-cache';

export const sqsClient = cachedClient(() => new SQSClient(SQS_CLIENT_CONFIG));
