import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { sqsClient } from '../../shared/aws/clients';
import { startEmulators } from '../../infra/local/emulators';
import { startLocalRuntime, type LocalRuntime } from '../../infra/local/runtime';
import { demoFleet } from '../../infra/local/simulator';
import { sharedDynamoEndpoint } from '../support/emulators';

/** An address of this machine other than loopback, if it has one. */
function outsideAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry && entry.family === 'IPv4' && !entry.internal)?.address;
}

function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('local listeners', () => {
  let runtime: LocalRuntime;
  beforeAll(async () => {
    runtime = await startLocalRuntime({
      dynamoEndpoint: sharedDynamoEndpoint(),
      prefix: `t-local-listeners-${process.pid}`,
      fleet: demoFleet(1),
      simulator: false,
      telegramFake: true,
      log: () => undefined,
      handlers: { evaluate: async () => ({ batchItemFailures: [] }), deliver: async () => ({ batchItemFailures: [] }), sweep: async () => undefined },
    });
  });
  afterAll(async () => runtime?.stop());

  it('binds every listener it controls to 127.0.0.1: HTTP API, SES, webhook receiver, Telegram fake', async () => {
    const urls = [runtime.apiUrl, runtime.emulators.sesEndpoint, runtime.webhookReceiverUrl, runtime.telegramFake!.url].map((url) => new URL(url));
    for (const url of urls) {
      expect(url.hostname).toBe('127.0.0.1');
      expect(await accepts('127.0.0.1', Number(url.port))).toBe(true);
    }
    const outside = outsideAddress();
    if (!outside) return; // a machine with loopback only: nothing else to reach them from
    for (const url of urls)
      expect(`${url.host} reachable on ${outside}: ${await accepts(outside, Number(url.port))}`).toBe(`${url.host} reachable on ${outside}: false`);
  });
});

describe('queue URLs after a port change', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fleetwatch-queue-port-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('name the port in use, not the one the queues were created on', async () => {
    const options = { dataDir, dynamoEndpoint: sharedDynamoEndpoint(), prefix: `t-local-qport-${process.pid}` };
    const first = await startEmulators(options);
    const firstPort = new URL(first.sqsEndpoint).port;
    await first.stop();
    const second = await startEmulators(options);
    try {
      const port = new URL(second.sqsEndpoint).port;
      expect(port).not.toBe(firstPort);
      for (const url of Object.values(second.queues)) expect(new URL(url).port).toBe(port);
      // and the URL works
      const { Attributes } = await sqsClient().send(new GetQueueAttributesCommand({ QueueUrl: second.queues.input, AttributeNames: ['FifoQueue'] }));
      expect(Attributes?.FifoQueue).toBe('true');
    } finally {
      await second.stop();
    }
  });
});
