/**
 * Every client at once, for tests and the local runtime. Function code imports the one module per service it
 * uses (`./dynamodb`, `./sqs`, `./ses`, `./sns`), so that its bundle loads no SDK client it does not need.
 */
export { documentClient } from './dynamodb';
export { sqsClient } from './sqs';
export { sesClient } from './ses';
export { snsClient } from './sns';
export { resetClients } from './client-cache';
