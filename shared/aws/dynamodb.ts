import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { cachedClient } from './client-cache';

/**
 * Attempts the SDK makes of one request before its error reaches the code (its standard retry mode, with a
 * jittered backoff from 500 ms for throttling). A write still throttled after them fails its vehicle's messages,
 * which the input queue delivers again after its visibility timeout: retrying longer here would only hold the
 * invocation, and the vehicles' FIFO groups behind it, while the table's capacity scales up.
 */
export const DYNAMODB_MAX_ATTEMPTS = 3;

export const documentClient = cachedClient(() =>
  DynamoDBDocumentClient.from(new DynamoDBClient({ maxAttempts: DYNAMODB_MAX_ATTEMPTS }), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  }),
);
