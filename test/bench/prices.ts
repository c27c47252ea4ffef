/**
 * AWS list prices the cost model uses: region us-east-1 (N. Virginia), on-demand, no free tier, as published
 * on the services' pricing pages in January 2025 (DynamoDB on-demand after its November 2024 reduction).
 * Change them here, and only here, for another region or date.
 */
export const PRICES = {
  region: 'us-east-1',
  asOf: '2025-01',
  /** SQS FIFO: per request (each 64 KB chunk of a request counts as one). */
  sqsFifoPerRequest: 0.5 / 1_000_000,
  /** Lambda, arm64. */
  lambdaPerInvocation: 0.2 / 1_000_000,
  lambdaPerGbSecond: 0.0000133334,
  /** DynamoDB on-demand. */
  dynamoPerReadUnit: 0.125 / 1_000_000,
  dynamoPerWriteUnit: 0.625 / 1_000_000,
  /** CloudWatch Logs, standard class, ingestion. */
  logsPerGb: 0.5,
} as const;
