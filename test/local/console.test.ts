import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { documentClient, sqsClient } from '../../shared/aws/clients';
import { applyLocalFunctionEnvironment } from '../../infra/local/function-environment';
import type { LocalRuntime } from '../../infra/local/runtime';
import { demoFleet } from '../../infra/local/simulator';
import { sharedDynamoEndpoint } from '../support/emulators';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(check: () => boolean, attempts = 200): Promise<boolean> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (check()) return true;
    await sleep(25);
  }
  return check();
}

/**
 * What a default (not --verbose) local run prints: fleetwatch's own lines (start-up, one per alert and per
 * delivery outcome) and errors, each Powertools line labelled with the function that logged it, and no
 * delivery told again for an alert settled before this run. Small handlers in place of the functions, using
 * the functions' logger, metrics and middleware.
 */
describe('local console without --verbose', () => {
  let runtime: LocalRuntime;
  const lines: string[] = [];
  const fleet = demoFleet(1);

  beforeAll(async () => {
    // as `npm start` does: the local environment first, then the modules that read it when they load
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', undefined);
    applyLocalFunctionEnvironment(false, false);
    const { startLocalRuntime } = await import('../../infra/local/runtime');
    runtime = await startLocalRuntime({
      dynamoEndpoint: sharedDynamoEndpoint(),
      prefix: `t-local-console-${process.pid}`,
      fleet,
      simulator: false,
      sweepIntervalMs: 15,
      log: (line) => lines.push(line),
      handlers: {
        evaluate: async () => ({ batchItemFailures: [] }),
        sweep: async () => undefined,
        api: async () => ({ statusCode: 200, body: '{}' }),
        // settles the alerts it is asked for, as the deliver function records them
        deliver: async (event: SQSEvent) => {
          for (const record of event.Records) {
            const { alertId } = JSON.parse(record.body) as { alertId: string };
            await documentClient()
              .send(
                new UpdateCommand({
                  TableName: process.env.ALERTS_TABLE,
                  Key: { alertId },
                  UpdateExpression: 'SET #status = :delivered, deliveries = :deliveries',
                  ConditionExpression: '#status = :pending',
                  ExpressionAttributeNames: { '#status': 'status' },
                  ExpressionAttributeValues: {
                    ':delivered': 'delivered',
                    ':pending': 'pending',
                    ':deliveries': { 'email:ops@fleetwatch.local': { status: 'sent', at: new Date().toISOString(), attempts: 1 } },
                  },
                }),
              )
              .catch(() => undefined);
          }
          return { batchItemFailures: [] };
        },
      },
    });
  });
  afterAll(async () => {
    await runtime?.stop();
    vi.unstubAllEnvs();
  });

  it('tells an alert and its delivery once, and nothing for an alert settled before this run', async () => {
    const alert = (alertId: string, status: 'pending' | 'delivered') => ({
      alertId,
      ruleId: 1,
      ruleType: 1,
      ruleName: 'Speeding over 90 km/h',
      vehicleId: fleet[0]!.vehicleId,
      parentId: runtime.demo.agentId,
      event: { kind: 'speeding', time: '2026-03-02T06:00:00Z', latitude: 0, longitude: 0, speed: 120, values: {} },
      createdAt: '2026-03-02T06:00:01Z',
      status,
      deliveries: status === 'delivered' ? { 'email:ops@fleetwatch.local': { status: 'sent', at: '2026-03-02T06:00:02Z', attempts: 1 } } : {},
      stored: true,
    });
    // an alert delivered by an earlier run, whose delivery request is received again after a restart
    await documentClient().send(new PutCommand({ TableName: process.env.ALERTS_TABLE, Item: alert('old-alert', 'delivered') }));
    await documentClient().send(new PutCommand({ TableName: process.env.ALERTS_TABLE, Item: alert('new-alert', 'pending') }));
    for (const alertId of ['old-alert', 'new-alert', 'new-alert']) {
      await sqsClient().send(new SendMessageCommand({ QueueUrl: runtime.emulators.queues.deliveries, MessageBody: JSON.stringify({ alertId }) }));
    }
    expect(await eventually(() => lines.some((line) => line.includes('DELIVERED'))), lines.join('\n')).toBe(true);
    await sleep(1500);
    const told = lines.filter((line) => /ALERT|DELIVERED|FAILED|PAGE/.test(line));
    expect(told).toHaveLength(3);
    expect(told[0]).toMatch(/^\d\d:\d\d:\d\d {2}ALERT {6}speeding/);
    // the first alert of the run is followed by its page
    expect(told[1]).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d {2}PAGE {7}${runtime.apiUrl}/alerts/acknowledge/\\S+ `));
    expect(told[2]).toMatch(/^\d\d:\d\d:\d\d {2}DELIVERED {2}speeding .* → email:ops@fleetwatch\.local sent$/);
    // everything else is the start-up line of the demo webhook receiver
    expect(lines.filter((line) => !told.includes(line)).map((line) => line.replace(/^\S+\s+/, ''))).toEqual([
      `Demo webhook receiver: ${runtime.webhookReceiverUrl} (alerts of the demo rules, signatures checked)`,
    ]);
  });
});

describe('function log lines of the local runtime', () => {
  const script = fileURLToPath(new URL('./support/concurrent-invocations.ts', import.meta.url));
  const { POWERTOOLS_LOG_LEVEL: _level, AWS_LAMBDA_MAX_CONCURRENCY: _concurrency, ...env } = process.env;
  // Powertools writes errors to stderr and the rest to stdout: the console shows both
  const run = (...args: string[]) => {
    const { stdout, stderr, status } = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { encoding: 'utf8', env });
    expect(status).toBe(0);
    return `${stdout}${stderr}`.split('\n').filter((line) => line.trim() !== '');
  };

  it('without --verbose: only errors, each labelled with the function that wrote it, however invocations overlap', () => {
    const printed = run();
    // no info, no warnings, no "No application metrics to publish" notice
    expect(printed.every((line) => line.startsWith('{"level":"ERROR"'))).toBe(true);
    const parsed = printed.map((line) => JSON.parse(line) as { message: string; function_name: string });
    expect(parsed.map((line) => line.message).sort()).toEqual(['project line', 'project line', 'sweep line', 'sweep line']);
    for (const line of parsed) expect(`${line.message}: ${line.function_name}`).toBe(`${line.message}: fleetwatch-${line.message.split(' ')[0]}`);
  });

  it('with --verbose: the info and warning lines too, labelled alike', () => {
    const parsed = run('--verbose')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: string; message: string; function_name: string });
    expect(parsed.filter((line) => line.level === 'INFO')).toHaveLength(4);
    for (const line of parsed.filter((entry) => /^(sweep|project) /.test(entry.message))) {
      expect(line.function_name).toBe(`fleetwatch-${line.message.split(' ')[0]}`);
    }
  });
});
