import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SQSEvent } from 'aws-lambda';
import { startLocalRuntime, type LocalRuntime } from '../../infra/local/runtime';
import { sharedDynamoEndpoint } from '../support/emulators';
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
