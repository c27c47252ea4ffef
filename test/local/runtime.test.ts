import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { SQSEvent } from 'aws-lambda';
import { startLocalRuntime, type LocalRuntime } from '../../infra/local/runtime';
import { sharedDynamoEndpoint } from '../support/emulators';
import { checkPorts, readSettings } from '../../infra/local/start';
import { demoFleet } from '../../infra/local/simulator';
import { parseTerminalMessage, type TerminalMessage } from '../../shared/schemas/terminal-message';

async function eventually(check: () => boolean, attempts = 200): Promise<boolean> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return check();
}

/**
 * The wiring of the local runtime, with small fake handlers in place of the functions (the real ones are
 * exercised end to end in start-up.test.ts): queue → evaluate, schedule → sweep, HTTP → api/telegram,
 * simulator → queue, and a clean stop.
 */
describe('local runtime wiring', () => {
  let runtime: LocalRuntime;
  const fleet = demoFleet(2);
  const evaluated: TerminalMessage[] = [];
  const groups: Array<string | undefined> = [];
  let sweeps = 0;
  const sweepEvents: string[] = [];
  let now = Date.parse('2026-03-02T06:00:00.000Z');

  beforeAll(async () => {
    runtime = await startLocalRuntime({
      dynamoEndpoint: sharedDynamoEndpoint(),
      prefix: `t-local-wiring-${process.pid}`,
      fleet,
      simulator: { now: () => now },
      sweepIntervalMs: 40,
      telegram: { botToken: '123:local', webhookSecret: 'local-secret' },
      log: () => undefined,
      handlers: {
        evaluate: async (event: SQSEvent) => {
          for (const record of event.Records) {
            const parsed = parseTerminalMessage(record.body, now);
            if (parsed.ok) evaluated.push(parsed.message);
            groups.push(record.attributes.MessageGroupId);
          }
          return { batchItemFailures: [] };
        },
        deliver: async () => ({ batchItemFailures: [] }),
        sweep: async (event) => {
          sweepEvents.push(event['detail-type']);
          sweeps += 1;
        },
        api: async (event, context) => ({ statusCode: 200, body: JSON.stringify({ path: event.rawPath, functionName: context.functionName }) }),
        telegram: async (event) => ({ statusCode: 200, body: JSON.stringify({ telegram: event.body ?? null }) }),
      },
    });
  });
  afterAll(async () => runtime?.stop());

  it('feeds simulated messages, one per vehicle per simulated second, to the evaluate handler', async () => {
    expect(await eventually(() => evaluated.length >= fleet.length)).toBe(true);
    now += 3_000;
    expect(await eventually(() => evaluated.length >= 4 * fleet.length)).toBe(true);
    const seconds = new Set(evaluated.map((message) => message.deviceTime));
    expect(seconds.size).toBe(4);
    expect(new Set(evaluated.map((message) => message.vehicleId))).toEqual(new Set(fleet.map((vehicle) => vehicle.vehicleId)));
    expect(groups.every((group, index) => group === String(evaluated[index]!.vehicleId))).toBe(true);
  });

  it('runs the sweep on start and then on its schedule', async () => {
    expect(await eventually(() => sweeps >= 3)).toBe(true);
    expect(new Set(sweepEvents)).toEqual(new Set(['Scheduled Event']));
  });

  it('routes /api/v3/* to the API handler and POST /telegram/webhook to the Telegram handler', async () => {
    const api = await fetch(`${runtime.apiUrl}/gis/find`, { method: 'POST', body: '{}' });
    expect(await api.json()).toEqual({ path: '/api/v3/gis/find', functionName: 'fleetwatch-api' });
    expect(runtime.telegramWebhookUrl).toBe(runtime.apiUrl.replace('/api/v3', '/telegram/webhook'));
    const telegram = await fetch(runtime.telegramWebhookUrl!, { method: 'POST', body: '{"update_id":1}' });
    expect(await telegram.json()).toEqual({ telegram: '{"update_id":1}' });
    expect((await fetch(runtime.apiUrl.replace('/api/v3', '/other'))).status).toBe(404);
  });

  it('stops everything it started', async () => {
    const apiUrl = runtime.apiUrl;
    const sqsEndpoint = runtime.emulators.sqsEndpoint;
    await runtime.stop();
    const sweepsAtStop = sweeps;
    await expect(fetch(`${apiUrl}/auth/check`)).rejects.toThrow();
    await expect(fetch(sqsEndpoint)).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(sweeps).toBe(sweepsAtStop);
  });
});

describe('npm start settings', () => {
  it('defaults to the documented ports, the simulator on and three vehicles', () => {
    expect(readSettings([], {})).toEqual({
      reset: false,
      simulator: true,
      vehicles: 3,
      verbose: false,
      help: false,
      telegramFake: true,
      telegram: null,
      ports: { api: 3000, ses: 8005, dynamo: 8000, sqs: 9324, telegramFake: 8081 },
    });
  });

  it('turns Telegram on with a bot token, generating a webhook secret when none is given', () => {
    const generated = readSettings([], { FLEETWATCH_TELEGRAM_BOT_TOKEN: '1:abc' }).telegram;
    expect(generated).toMatchObject({ botToken: '1:abc', webhookSecretGiven: false });
    expect(generated!.webhookSecret.length).toBeGreaterThanOrEqual(32);
    expect(readSettings([], { FLEETWATCH_TELEGRAM_BOT_TOKEN: '1:abc', FLEETWATCH_TELEGRAM_WEBHOOK_SECRET: 'mine' }).telegram).toEqual({
      botToken: '1:abc',
      webhookSecret: 'mine',
      webhookSecretGiven: true,
    });
  });

  it('reads switches from the command line and the environment, the command line first', () => {
    const settings = readSettings(['--reset', '--no-simulator', '--vehicles', '7', '--verbose'], {
      FLEETWATCH_API_PORT: '3100',
      FLEETWATCH_VEHICLES: '2',
    });
    expect(settings).toMatchObject({ reset: true, simulator: false, vehicles: 7, verbose: true, ports: { api: 3100 } });
    expect(readSettings([], { FLEETWATCH_RESET: '1', FLEETWATCH_SIMULATOR: '0', FLEETWATCH_VEHICLES: '2' })).toMatchObject({
      reset: true,
      simulator: false,
      vehicles: 2,
    });
  });

  it('refuses unknown options and bad numbers with a message naming them', () => {
    expect(() => readSettings(['--vehicles', 'many'], {})).toThrow(/--vehicles must be a whole number/);
    expect(() => readSettings([], { FLEETWATCH_SES_PORT: '70000' })).toThrow(/FLEETWATCH_SES_PORT must be a whole number/);
    expect(() => readSettings(['--turbo'], {})).toThrow(/turbo/);
  });

  describe('with a port taken', () => {
    let blocker: Server;
    let taken: number;
    beforeAll(async () => {
      blocker = createServer();
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      taken = (blocker.address() as AddressInfo).port;
    });
    afterAll(async () => new Promise<void>((resolve) => blocker.close(() => resolve())));

    it('names the port and the variable that moves it', async () => {
      const free = await new Promise<number>((resolve) => {
        const probe = createServer().listen(0, '127.0.0.1', () => {
          const port = (probe.address() as AddressInfo).port;
          probe.close(() => resolve(port));
        });
      });
      const problems = await checkPorts({ api: free, ses: taken, dynamo: free, sqs: free, telegramFake: free });
      expect(problems).toEqual([`port ${taken} (SES) is already in use: stop what uses it, or choose another port with FLEETWATCH_SES_PORT=<port>`]);
    });
  });
});
