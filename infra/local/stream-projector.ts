import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
} from '@aws-sdk/client-dynamodb-streams';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { resourcesConfig } from '../../shared/config';
import { invoke } from './invocation';
import { localAwsConfig } from './start-config';

/**
 * Plays the DynamoDB Streams event source mapping of the project function on one machine: polls the rules
 * and geozones tables' streams in DynamoDB Local (DescribeStream, GetShardIterator, GetRecords) and hands each
 * batch of records, in order, to the same handler that runs on AWS. A record the handler reports as failed is
 * handed over again (with the records after it) on the next round, as Lambda does.
 */
export type StreamHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse | void>;

export interface StreamProjector {
  /** Resolves once every record written so far has been handed to the handler and accepted. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export interface StreamProjectorOptions {
  /** The project function's handler; functions/project/handler.ts when omitted. */
  handler?: StreamHandler;
  pollIntervalMs?: number;
  onError?: (error: unknown) => void;
}

interface ShardCursor {
  iterator: string | undefined;
  /** Records received but not yet accepted by the handler. */
  pending: _Record[];
  done: boolean;
}

const endpoint = () => {
  const aws = localAwsConfig();
  return aws.AWS_ENDPOINT_URL_DYNAMODB_STREAMS ?? aws.AWS_ENDPOINT_URL_DYNAMODB;
};

function lambdaContext(): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'fleetwatch-project',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:fleetwatch-project',
    memoryLimitInMB: '512',
    awsRequestId: crypto.randomUUID(),
    logGroupName: '/aws/lambda/fleetwatch-project',
    logStreamName: 'local',
    getRemainingTimeInMillis: () => 120_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/**
 * A GetRecords record as the event source mapping hands it to Lambda: with the stream's ARN, and with each
 * empty map attribute as `{ M: {} }` (the SDK's streams client deserializes an empty map to a bare `{}`).
 */
function toLambdaRecord(record: _Record, streamArn: string): DynamoDBRecord {
  const value = (attribute: unknown): unknown => {
    if (attribute === null || typeof attribute !== 'object') return attribute;
    const entries = Object.entries(attribute);
    if (entries.length === 0) return { M: {} };
    const [[type, inner]] = entries as [[string, unknown]];
    if (type === 'M') return { M: image(inner as Record<string, unknown>) };
    if (type === 'L') return { L: (inner as unknown[]).map(value) };
    return attribute;
  };
  const image = (item: Record<string, unknown> | undefined) =>
    item === undefined ? undefined : Object.fromEntries(Object.entries(item).map(([name, attribute]) => [name, value(attribute)]));
  const dynamodb = record.dynamodb ?? {};
  return {
    ...record,
    eventSourceARN: streamArn,
    dynamodb: {
      ...dynamodb,
      ApproximateCreationDateTime: dynamodb.ApproximateCreationDateTime ? dynamodb.ApproximateCreationDateTime.getTime() / 1000 : undefined,
      Keys: image(dynamodb.Keys),
      NewImage: image(dynamodb.NewImage),
      OldImage: image(dynamodb.OldImage),
    },
  } as unknown as DynamoDBRecord;
}

export async function startStreamProjector(options: StreamProjectorOptions = {}): Promise<StreamProjector> {
  const handler = options.handler ?? (await import('../../functions/project/handler')).handler;
  const streams = new DynamoDBStreamsClient({ endpoint: endpoint() });
  const streamArns = await tableStreamArns();
  const cursors = new Map<string, ShardCursor>();
  const waiters = idleWaiters();
  let stopped = false;

  /** One round over every stream; whether any records came (or failed, which is tried again at once). */
  async function pollRound(): Promise<boolean> {
    let busy = false;
    try {
      for (const streamArn of streamArns) busy = (await pollStream(streams, streamArn, cursors, handler)) || busy;
    } catch (error) {
      busy = true;
      options.onError?.(error);
    }
    return busy;
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      const started = waiters.roundStarts();
      if (await pollRound()) continue;
      waiters.quietRound(started);
      await new Promise((resolve) => setTimeout(resolve, options.pollIntervalMs ?? 200));
    }
  }
  const rounds = loop();

  return {
    idle: waiters.wait,
    async stop() {
      stopped = true;
      await rounds;
      waiters.releaseAll();
      streams.destroy();
    },
  };
}

/** Callers of idle(), with the round they asked in: only a quiet round started after that answers them. */
function idleWaiters() {
  let waiters: Array<{ after: number; resolve: () => void }> = [];
  let rounds = 0;
  return {
    roundStarts: () => ++rounds,
    wait: () => new Promise<void>((resolve) => waiters.push({ after: rounds, resolve })),
    quietRound(started: number): void {
      const release = waiters.filter((waiter) => waiter.after < started);
      waiters = waiters.filter((waiter) => waiter.after >= started);
      for (const waiter of release) waiter.resolve();
    },
    releaseAll(): void {
      for (const waiter of waiters.splice(0)) waiter.resolve();
    },
  };
}

/** The streams of the rules and geozones tables. */
async function tableStreamArns(): Promise<string[]> {
  const dynamo = new DynamoDBClient({});
  const { RULES_TABLE, GEOZONES_TABLE } = resourcesConfig();
  const streamArns: string[] = [];
  try {
    for (const TableName of [RULES_TABLE, GEOZONES_TABLE]) {
      const { Table } = await dynamo.send(new DescribeTableCommand({ TableName }));
      if (!Table?.LatestStreamArn) throw new Error(`table ${TableName} has no stream`);
      streamArns.push(Table.LatestStreamArn);
    }
  } finally {
    dynamo.destroy();
  }
  return streamArns;
}

/** One round over a stream's shards: reads each open shard and hands its records over. Returns whether any came. */
async function pollStream(
  streams: DynamoDBStreamsClient,
  streamArn: string,
  cursors: Map<string, ShardCursor>,
  handler: StreamHandler,
): Promise<boolean> {
  let busy = false;
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  for (const shard of StreamDescription?.Shards ?? []) {
    const key = `${streamArn}|${shard.ShardId}`;
    const kept = cursors.get(key);
    if (kept?.done) continue;
    const cursor = await readShard(streams, streamArn, shard.ShardId!, kept);
    if (!cursor) {
      cursors.delete(key);
      continue;
    }
    cursors.set(key, cursor);
    if (cursor.pending.length > 0) {
      busy = true;
      await handOver(handler, streamArn, cursor);
    }
    if (cursor.pending.length === 0 && !cursor.iterator) cursor.done = true;
  }
  return busy;
}

async function openShard(streams: DynamoDBStreamsClient, streamArn: string, shardId: string): Promise<ShardCursor> {
  const { ShardIterator } = await streams.send(
    new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }),
  );
  return { iterator: ShardIterator, pending: [], done: false };
}

/**
 * The shard's cursor with its next records pending, unless records are still pending from a failed hand-over;
 * undefined when the shard has nothing to read yet.
 */
async function readShard(
  streams: DynamoDBStreamsClient,
  streamArn: string,
  shardId: string,
  kept: ShardCursor | undefined,
): Promise<ShardCursor | undefined> {
  let cursor = kept ?? (await openShard(streams, streamArn, shardId));
  if (cursor.pending.length > 0 || !cursor.iterator) return cursor;
  // DynamoDB Local answers an iterator taken while the shard had no record with TrimmedDataAccessException,
  // even once records have come: a kept iterator is replaced at once, so that a record written before
  // idle() was called is never missed by the round that answers it; a shard still empty waits a round
  let output = await readRecords(streams, cursor.iterator);
  if (!output && kept) {
    cursor = await openShard(streams, streamArn, shardId);
    output = cursor.iterator ? await readRecords(streams, cursor.iterator) : undefined;
  }
  if (!output) return undefined;
  cursor.pending = output.Records ?? [];
  cursor.iterator = output.NextShardIterator;
  return cursor;
}

/** The next records of a shard, or undefined when DynamoDB Local calls the iterator trimmed. */
async function readRecords(streams: DynamoDBStreamsClient, iterator: string) {
  try {
    return await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 100 }));
  } catch (error) {
    if ((error as Error).name !== 'TrimmedDataAccessException') throw error;
    return undefined;
  }
}

/** Hands the pending records to the handler; the first it reports failed stays pending, with those after it. */
async function handOver(handler: StreamHandler, streamArn: string, cursor: ShardCursor): Promise<void> {
  const records = cursor.pending.map((record) => toLambdaRecord(record, streamArn));
  const context = lambdaContext();
  const response = await invoke(context, () => handler({ Records: records }, context));
  const failed = response?.batchItemFailures?.[0]?.itemIdentifier;
  const failedAt = failed === undefined ? -1 : cursor.pending.findIndex((record) => record.dynamodb?.SequenceNumber === failed);
  cursor.pending = failedAt < 0 ? [] : cursor.pending.slice(failedAt);
}
