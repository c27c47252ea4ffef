import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { sqsClient } from '../../shared/aws/clients';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import { createSweepHandler } from '../../functions/sweep/handler';
import { readInputBacklog, silenceCertainAsOf, type InputBacklog } from '../../shared/sweep/backlog-hold';
import { lambdaContext } from '../../infra/local/sqs-poller';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { alertsInTable, drainQueue, invoke, putRule, sqsRecord, storedRule, T0, terminalMessage } from './support';

// CloudWatch has no local emulator: the metric read is replaced by a stub in the reader's test below.
const metric = vi.hoisted(() => ({ latestMetricMaximum: vi.fn<(query: unknown) => Promise<number | null>>() }));
vi.mock('../../shared/aws/cloudwatch', () => metric);

const MINUTE = 60_000;

describe('connection loss while the input queue lags: the decision', () => {
  it('judges silences as of the oldest waiting message, holds everything when the lag is unknown, and nothing when unmonitored', () => {
    const now = T0 + 60 * MINUTE;
    expect(silenceCertainAsOf(now, { kind: 'measured', oldestMessageAgeMs: 0 })).toBe(now);
    expect(silenceCertainAsOf(now, { kind: 'measured', oldestMessageAgeMs: 10 * MINUTE })).toBe(now - 10 * MINUTE);
    expect(silenceCertainAsOf(now, { kind: 'unavailable', reason: 'throttled' })).toBeNull();
    expect(silenceCertainAsOf(now, { kind: 'unmonitored' })).toBe(now);
  });
});

describe('connection loss while the input queue lags: the signal', () => {
  beforeEach(() => metric.latestMetricMaximum.mockReset());

  it("reads the input queue's ApproximateAgeOfOldestMessage (seconds) from CloudWatch", async () => {
    metric.latestMetricMaximum.mockResolvedValue(600);
    expect(await readInputBacklog(T0, 'fleetwatch-input.fifo')).toEqual({ kind: 'measured', oldestMessageAgeMs: 600_000 });
    expect(metric.latestMetricMaximum).toHaveBeenCalledWith(
      expect.objectContaining({
        namespace: 'AWS/SQS',
        metricName: 'ApproximateAgeOfOldestMessage',
        dimensions: [{ Name: 'QueueName', Value: 'fleetwatch-input.fifo' }],
        now: T0,
      }),
    );
  });

  it('is unavailable when CloudWatch has no datapoint or fails, and unmonitored without a queue name', async () => {
    metric.latestMetricMaximum.mockResolvedValueOnce(null);
    expect((await readInputBacklog(T0, 'q.fifo')).kind).toBe('unavailable');
    metric.latestMetricMaximum.mockRejectedValueOnce(new Error('Throttling'));
    expect(await readInputBacklog(T0, 'q.fifo')).toEqual({ kind: 'unavailable', reason: expect.stringContaining('Throttling') });
    expect(await readInputBacklog(T0, '')).toEqual({ kind: 'unmonitored' });
    expect(metric.latestMetricMaximum).toHaveBeenCalledTimes(2);
  });
});

describe('connection loss while the input queue lags: the sweep', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startTestEmulators('pipeline-backlog-hold');
  });
  afterAll(async () => emulators.stop());

  it('cannot read the age of the oldest message from the queue itself: SQS (and the emulator) has no such attribute', async () => {
    const { Attributes = {} } = await sqsClient().send(new GetQueueAttributesCommand({ QueueUrl: emulators.queues.input, AttributeNames: ['All'] }));
    expect(Attributes).toHaveProperty('ApproximateNumberOfMessages');
    expect(Attributes).not.toHaveProperty('ApproximateAgeOfOldestMessage');
  });

  it('holds connectionLost for a fleet whose messages wait in a lagging queue, raises it for vehicles silent beyond doubt, and only for the truly silent once the queue catches up', async () => {
    const fleet = Array.from({ length: 20 }, (_, index) => 961 + index);
    const longSilent = 990;
    await putRule(
      storedRule({
        id: 61,
        type: 7,
        name: 'Silent for 5 minutes',
        vehicleIds: [...fleet, longSilent],
        settings: { minutes: '5', notifyRestored: 'true' },
      }),
    );
    // an hour before, vehicle 990 was last heard from; at T0 every vehicle of the fleet reported
    await invoke(createEvaluateHandler({ clock: () => T0 - 60 * MINUTE }), [sqsRecord(terminalMessage(longSilent, -3600, 30))]);
    await invoke(
      createEvaluateHandler({ clock: () => T0 }),
      fleet.map((vehicleId) => sqsRecord(terminalMessage(vehicleId, 0, 30))),
    );

    // Evaluate stops at T0 + 1 min; the fleet keeps reporting, into the queue. At T0 + 12 min the oldest waiting
    // message is 11 minutes old (a simulated backlog: the signal the deployed sweep reads from CloudWatch).
    let backlog: InputBacklog = { kind: 'measured', oldestMessageAgeMs: 11 * MINUTE };
    const sweep = (now: number) => createSweepHandler({ clock: () => now, readBacklog: async () => backlog })({}, lambdaContext('sweep'));
    for (const minute of [8, 10, 12]) {
      const report = await sweep(T0 + minute * MINUTE);
      expect(report.connectionLossAsOf).toBe(new Date(T0 + (minute - 11) * MINUTE).toISOString());
    }
    const lost = async () => (await alertsInTable()).filter((alert) => (alert.event as { kind: string }).kind === 'connectionLost');
    expect((await lost()).map((alert) => alert.vehicleId)).toEqual([longSilent]);

    // Evaluate catches up: the first half of the fleet had been reporting all along, the second half really fell silent at T0.
    const reporting = fleet.slice(0, 10);
    const evaluate = createEvaluateHandler({ clock: () => T0 + 13 * MINUTE });
    for (const second of [120, 300, 480, 660]) {
      await invoke(
        evaluate,
        reporting.map((vehicleId) => sqsRecord(terminalMessage(vehicleId, second, 30, { serverTime: new Date(T0 + second * 1000).toISOString() }))),
      );
    }
    backlog = { kind: 'measured', oldestMessageAgeMs: 0 };
    await sweep(T0 + 13 * MINUTE);
    await sweep(T0 + 14 * MINUTE);
    const alerts = await alertsInTable();
    expect((await lost()).map((alert) => alert.vehicleId).sort()).toEqual([...fleet.slice(10), longSilent].sort());
    expect(alerts.filter((alert) => (alert.event as { kind: string }).kind === 'connectionRestored')).toEqual([]);
    await drainQueue(emulators.queues.deliveries);
  });

  it('holds every connectionLost while the lag cannot be read', async () => {
    await putRule(storedRule({ id: 62, type: 7, name: 'Silent for 1 minute', vehicleIds: [999], settings: { minutes: '1' } }));
    await invoke(createEvaluateHandler({ clock: () => T0 }), [sqsRecord(terminalMessage(999, 0, 30))]);
    const sweep = createSweepHandler({
      clock: () => T0 + 30 * MINUTE,
      readBacklog: async () => ({ kind: 'unavailable', reason: 'CloudWatch throttled' }),
    });
    const report = await sweep({}, lambdaContext('sweep'));
    expect(report.connectionLossAsOf).toBeNull();
    expect((await alertsInTable()).filter((alert) => alert.vehicleId === 999)).toEqual([]);
  });
});
