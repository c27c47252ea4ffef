import { PRICES } from './prices';

/**
 * What 1,000 vehicles cost for a month (30 days) when each reports once every 30 s and the producer sends in
 * batches of 10: SQS FIFO send, receive and delete requests; evaluate invocations and GB-seconds (measured
 * handler time × configured memory); DynamoDB read and write units (measured); the sweep's invocations; and the
 * CloudWatch Logs bytes actually written (measured). The functions log at system level WARN (the stack test holds
 * it), so Lambda writes no START/END/REPORT lines of its own.
 */
export const VEHICLES = 1_000;
export const MESSAGE_INTERVAL_S = 30;
export const MONTH_S = 30 * 86_400;
export const FIFO_BATCH = 10;

export interface MeasuredEvaluate {
  /** DynamoDB units per message, reads and writes. */
  readUnitsPerMessage: number;
  writeUnitsPerMessage: number;
  /** Handler time of one batch of 10, ms. */
  msPerInvocation: number;
  /** Bytes the handler logged per invocation (log lines and EMF metrics). */
  logBytesPerInvocation: number;
  memoryMb: number;
}

export interface MeasuredSweep {
  unitsPerRun: { read: number; write: number };
  msPerRun: number;
  logBytesPerRun: number;
  memoryMb: number;
}

export interface CostBreakdown {
  messages: number;
  sqs: number;
  evaluateLambda: number;
  dynamo: number;
  sweep: number;
  logs: number;
  total: number;
  /** The SQS requests alone: no design can cost less than carrying the messages. */
  sqsFloor: number;
  overFloor: number;
}

export function monthlyCost(evaluate: MeasuredEvaluate, sweep: MeasuredSweep): CostBreakdown {
  const messages = (VEHICLES * MONTH_S) / MESSAGE_INTERVAL_S;
  const batches = messages / FIFO_BATCH;
  // producer SendMessageBatch, Lambda's ReceiveMessage and DeleteMessageBatch: one request each per 10 messages
  const sqs = 3 * batches * PRICES.sqsFifoPerRequest;
  const evaluateLambda =
    batches * PRICES.lambdaPerInvocation + batches * (evaluate.msPerInvocation / 1000) * (evaluate.memoryMb / 1024) * PRICES.lambdaPerGbSecond;
  const dynamo = messages * (evaluate.readUnitsPerMessage * PRICES.dynamoPerReadUnit + evaluate.writeUnitsPerMessage * PRICES.dynamoPerWriteUnit);
  const sweepRuns = MONTH_S / 60;
  const sweepCost =
    sweepRuns *
    (PRICES.lambdaPerInvocation +
      (sweep.msPerRun / 1000) * (sweep.memoryMb / 1024) * PRICES.lambdaPerGbSecond +
      sweep.unitsPerRun.read * PRICES.dynamoPerReadUnit +
      sweep.unitsPerRun.write * PRICES.dynamoPerWriteUnit);
  const logBytes = batches * evaluate.logBytesPerInvocation + sweepRuns * sweep.logBytesPerRun;
  const logs = (logBytes / 1024 ** 3) * PRICES.logsPerGb;
  const total = sqs + evaluateLambda + dynamo + sweepCost + logs;
  return { messages, sqs, evaluateLambda, dynamo, sweep: sweepCost, logs, total, sqsFloor: sqs, overFloor: total / sqs };
}
