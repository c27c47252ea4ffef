import { join } from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import sesServerModule from 'aws-ses-v2-local';
import { startFauxqs, type FauxqsServer } from 'fauxqs';
import { startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local';
import { exportToFunctions, localAwsConfig } from './start-config';
import { resetClients, sqsClient } from '../../shared/aws/clients';
import { createTables } from '../../shared/store/create-tables';

// Node's own ESM loader (tsx, npm start) hands over this CommonJS package's module.exports, whose `default`
// is the function; vitest unwraps it already.
const sesServer = (sesServerModule as unknown as { default?: typeof sesServerModule }).default ?? sesServerModule;

/**
 * The stand-ins that let fleetwatch run on one machine: Amazon's DynamoDB Local, fauxqs for SQS and
 * aws-ses-v2-local for SES. Starting them points the AWS SDK at them through the standard
 * AWS_ENDPOINT_URL_<SERVICE> variables, creates the tables and queues, and exports their names and URLs the
 * way the CDK stack does for deployed functions. The handlers themselves take no local-only code path.
 */
export interface EmulatorOptions {
  /** Folder for local data (DynamoDB in `dynamodb/`, SQS in `sqs/`); everything in memory when omitted. */
  dataDir?: string;
  /** A DynamoDB Local already running (shared by several test files); started here when omitted. */
  dynamoEndpoint?: string;
  dynamoPort?: number;
  sesPort?: number;
  sqsPort?: number;
  /** Prefix of table and queue names, so that parallel test files do not share state. */
  prefix?: string;
  /**
   * DynamoDB Local deletes items whose time to live has passed, by the machine's clock. Tests whose clocks run
   * in the past turn it off, or their sessions and alerts would vanish mid-test. On by default.
   */
  timeToLive?: boolean;
}

export interface Emulators {
  dynamoEndpoint: string;
  sesEndpoint: string;
  sqsEndpoint: string;
  /** The fauxqs server: queue inspection without receiving, for the console and tests. */
  sqs: FauxqsServer;
  queues: { input: string; inputDlq: string; deliveries: string; deliveriesDlq: string };
  env: Record<string, string>;
  /**
   * Stops one emulator as an outage would, keeping its port and data folder; `resume` starts it again on both,
   * with the data it had. Needs `dataDir` (and, for DynamoDB, a DynamoDB Local started here).
   */
  pause(service: RestartableService): Promise<void>;
  resume(service: RestartableService): Promise<void>;
  stop(): Promise<void>;
}

export type RestartableService = 'dynamodb' | 'sqs';

async function close(server: Server): Promise<void> {
  server.closeAllConnections?.();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

export async function startEmulators(options: EmulatorOptions = {}): Promise<Emulators> {
  const prefix = options.prefix ?? 'fleetwatch';
  const started: Array<() => Promise<void>> = [];
  const stopStarted = async () => {
    for (const stop of started.splice(0).reverse()) await stop().catch(() => undefined);
  };
  try {
    let dynamoEndpoint = options.dynamoEndpoint;
    const dynamoDataDir = options.dataDir ? join(options.dataDir, 'dynamodb') : undefined;
    let dynamo: DynamoDbLocal | undefined;
    if (!dynamoEndpoint) {
      dynamo = await startDynamoDbLocal({ port: options.dynamoPort, dataDir: dynamoDataDir });
      started.push(() => dynamo?.stop() ?? Promise.resolve());
      dynamoEndpoint = dynamo.endpoint;
    }
    const ses = await sesServer({ host: '127.0.0.1', port: options.sesPort ?? 0 });
    if (!ses.listening) await new Promise((resolve) => ses.once('listening', resolve));
    started.push(() => close(ses));
    const sesPort = (ses.address() as AddressInfo).port;
    const startSqs = (port: number) => startFauxqs({ port, logger: false, ...(options.dataDir ? { dataDir: join(options.dataDir, 'sqs') } : {}) });
    let sqs: FauxqsServer | undefined = await startSqs(options.sqsPort ?? 0);
    const sqsPort = sqs.port;
    const sqsAddress = sqs.address;
    started.push(() => sqs?.stop() ?? Promise.resolve());

    const endpoints = {
      AWS_REGION: localAwsConfig().AWS_REGION,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
      AWS_ENDPOINT_URL_SESV2: `http://127.0.0.1:${sesPort}`,
      AWS_ENDPOINT_URL_SQS: sqsAddress,
    };
    const tables = {
      RULES_TABLE: `${prefix}-rules`,
      VEHICLE_STATE_TABLE: `${prefix}-vehicle-state`,
      ALERTS_TABLE: `${prefix}-alerts`,
      DIRECTORY_TABLE: `${prefix}-directory`,
      GEOZONES_TABLE: `${prefix}-geozones`,
    };
    exportToFunctions({ ...endpoints, ...tables, AWS_PROFILE: undefined });
    resetClients();

    await createTables(new DynamoDBClient({}), undefined, { timeToLive: options.timeToLive ?? true });
    const queues = await createQueues(prefix, sqs.port);
    const env = {
      ...endpoints,
      ...tables,
      DELIVERIES_QUEUE_URL: queues.deliveries,
      INPUT_DLQ_URL: queues.inputDlq,
      DELIVERIES_DLQ_URL: queues.deliveriesDlq,
    };
    exportToFunctions(env);

    const dynamoPort = dynamo?.port;
    const requireDataDir = (service: RestartableService) => {
      if (!options.dataDir) throw new Error(`${service} can only be restarted with its data when a dataDir is given`);
      if (service === 'dynamodb' && dynamoPort === undefined) throw new Error('DynamoDB Local was not started here');
    };
    return {
      dynamoEndpoint,
      sesEndpoint: endpoints.AWS_ENDPOINT_URL_SESV2,
      sqsEndpoint: sqsAddress,
      get sqs() {
        if (!sqs) throw new Error('fauxqs is paused');
        return sqs;
      },
      queues,
      env,
      async pause(service) {
        requireDataDir(service);
        if (service === 'dynamodb') {
          await dynamo?.stop();
          dynamo = undefined;
        } else {
          await sqs?.stop();
          sqs = undefined;
        }
      },
      async resume(service) {
        requireDataDir(service);
        if (service === 'dynamodb') dynamo ??= await startDynamoDbLocal({ port: dynamoPort, dataDir: dynamoDataDir });
        else sqs ??= await startSqs(sqsPort);
      },
      async stop() {
        await stopStarted();
        resetClients();
      },
    };
  } catch (error) {
    await stopStarted();
    throw error;
  }
}

/**
 * Creates the queues, or finds them in fauxqs's data folder. A queue kept from an earlier run answers with the
 * URL it was created with, port included; fauxqs finds queues by region and name whatever the port, so the
 * URL is given the port in use now, which is the one the console prints and a user's curl needs.
 */
async function createQueues(prefix: string, port: number): Promise<Emulators['queues']> {
  const client = sqsClient();
  const create = async (name: string, attributes: Record<string, string> = {}) => {
    const url = new URL((await client.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }))).QueueUrl!);
    url.port = String(port);
    return url.toString();
  };
  const arnOf = (name: string) => `arn:aws:sqs:us-east-1:000000000000:${name}`;
  const inputDlq = await create(`${prefix}-messages-dlq.fifo`, { FifoQueue: 'true' });
  const input = await create(`${prefix}-messages.fifo`, {
    FifoQueue: 'true',
    ContentBasedDeduplication: 'true',
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: arnOf(`${prefix}-messages-dlq.fifo`), maxReceiveCount: 5 }),
  });
  const deliveriesDlq = await create(`${prefix}-deliveries-dlq`);
  const deliveries = await create(`${prefix}-deliveries`, {
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: arnOf(`${prefix}-deliveries-dlq`), maxReceiveCount: 5 }),
  });
  return { input, inputDlq, deliveries, deliveriesDlq };
}
