/**
 * AWS list prices the cost model uses: region us-east-1 (N. Virginia), no free tier, no reserved capacity, as
 * published on the services' pricing pages in January 2025 (DynamoDB on-demand after its November 2024
 * reduction). Change them here, and only here, for another region or date.
 */
export const PRICES = {
  region: 'us-east-1',
  asOf: '2025-01',
  /** SQS FIFO: per request (each 64 KB chunk of a request counts as one). */
  sqsFifoPerRequest: 0.5 / 1_000_000,
  /** SQS standard (the deliveries queue): per request. */
  sqsStandardPerRequest: 0.4 / 1_000_000,
  /** Lambda, arm64. */
  lambdaPerInvocation: 0.2 / 1_000_000,
  lambdaPerGbSecond: 0.0000133334,
  /** DynamoDB on-demand. */
  dynamoPerReadUnit: 0.125 / 1_000_000,
  dynamoPerWriteUnit: 0.625 / 1_000_000,
  /** DynamoDB provisioned capacity, per capacity unit and hour. */
  dynamoPerWcuHour: 0.00065,
  dynamoPerRcuHour: 0.00013,
  /** CloudWatch Logs, standard class, ingestion. */
  logsPerGb: 0.5,
  /** SES outbound e-mail, per message sent to one recipient. */
  sesPerEmail: 0.1 / 1_000,
  /** CloudWatch: a standard-resolution alarm, per metric it reads and month. */
  alarmPerMetricMonth: 0.1,
  dashboardPerMonth: 3,
  /** A custom metric (one name and dimension set), per month, first 10,000 metrics. */
  customMetricPerMonth: 0.3,
  /** GetMetricStatistics and the other metric-reading API requests. */
  metricApiPerRequest: 0.01 / 1_000,
  /** KMS customer managed key, per month (its requests are priced apart). */
  kmsKeyPerMonth: 1,
  /** Secrets Manager, per secret and month (its API calls are priced apart). */
  secretPerMonth: 0.4,
} as const;
