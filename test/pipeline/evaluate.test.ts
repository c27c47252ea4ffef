import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resourcesConfig } from '../../shared/config';
import { MESSAGE_LIMITS } from '../../shared/schemas/terminal-message';
import { loadVehicleState } from '../../shared/store/vehicle-state-store';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import { createSweepHandler } from '../../functions/sweep/handler';
import { lambdaContext } from '../../infra/local/sqs-poller';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { countDynamoRequests } from '../support/count-requests';
import { alertsInTable, drainQueue, invoke, putRule, sqsRecord, storedRule, T0, terminalMessage } from './support';

const PANIC_RULE = storedRule({ id: 2, type: 6, name: 'Panic button', vehicleIds: [60], settings: { parameter: 'panic' } });

const SPEEDING_RULE = storedRule({
  id: 1,
  vehicleIds: Array.from({ length: 50 }, (_, index) => index + 1),
  settings: { limit: '90', minDuration: '10', endMargin: '5', endDuration: '30' },
});

/** Two speeding episodes: 10 s–30 s and 90 s–100 s, separated by 40 s of slow driving. */
const TWO_EPISODES: [number, number][] = [
  [0, 50],
  [10, 100],
  [20, 110],
  [30, 120],
  [40, 50],
  [80, 50],
  [90, 100],
  [100, 105],
];

async function stateOf(vehicleId: number) {
  return (await loadVehicleState(vehicleId)).state;
}

async function alertsOf(vehicleId: number) {
  return (await alertsInTable()).filter((alert) => alert.vehicleId === vehicleId);
}

/** The tables the rule cache reads, apart from the vehicles' items: rules by id, and each client's silences. */
const cacheTables = () => [resourcesConfig().RULES_TABLE, resourcesConfig().DIRECTORY_TABLE];

describe('evaluate function', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startTestEmulators('pipeline-evaluate');
    await putRule(SPEEDING_RULE);
    await putRule(PANIC_RULE);
  });
  afterAll(async () => emulators.stop());

  it('raises exactly one alert per speeding episode, and nothing more when the batch is delivered again', async () => {
    const now = T0 + 200_000;
    const handler = createEvaluateHandler({ clock: () => now });
    const records = TWO_EPISODES.map(([second, speed]) => sqsRecord(terminalMessage(1, second, speed)));

    expect(await invoke(handler, records)).toEqual({ batchItemFailures: [] });
    const alerts = await alertsOf(1);
    expect(alerts).toHaveLength(2);
    expect(alerts.map((alert) => (alert.event as { time: string }).time).sort()).toEqual([
      new Date(T0 + 20_000).toISOString(),
      new Date(T0 + 100_000).toISOString(),
    ]);
    for (const alert of alerts) {
      expect(alert).toMatchObject({
        ruleId: 1,
        vehicleId: 1,
        status: 'pending',
        outbox: expect.stringMatching(/^pending#\d+$/),
        ruleName: 'Speeding over 90',
      });
      expect(alert.timeKey).toBe(`${(alert.event as { time: string }).time}#${String(alert.alertId)}`);
    }
    expect(alerts.map((alert) => alert.timeKey).sort()).toEqual(
      [...alerts]
        .sort((a, b) => String(a.timeKey).localeCompare(String(b.timeKey)))
        .map((alert, index) => `${new Date(T0 + [20_000, 100_000][index]!).toISOString()}#${String(alert.alertId)}`),
    );
    const requests = await drainQueue(emulators.queues.deliveries);
    expect(requests.map((request) => JSON.parse(request.Body!).alertId).sort()).toEqual(alerts.map((alert) => alert.alertId).sort());

    // the same batch again (a redelivery after a lost acknowledgement), even in another order
    expect(await invoke(handler, [...records].reverse())).toEqual({ batchItemFailures: [] });
    expect(await alertsOf(1)).toHaveLength(2);
    expect(await drainQueue(emulators.queues.deliveries)).toHaveLength(0);
  });

  it('processes messages of one vehicle in device-time order whatever the order in the batch', async () => {
    const now = T0 + 200_000;
    const handler = createEvaluateHandler({ clock: () => now });
    const records = TWO_EPISODES.map(([second, speed]) => sqsRecord(terminalMessage(2, second, speed))).reverse();
    expect(await invoke(handler, records)).toEqual({ batchItemFailures: [] });
    expect(await alertsOf(2)).toHaveLength(2);
    expect(await stateOf(2)).toMatchObject({ lastDeviceTime: new Date(T0 + 100_000).toISOString() });
    await drainQueue(emulators.queues.deliveries);
  });

  it('moves malformed messages to the input DLQ with their reason, and processes the rest', async () => {
    const now = T0 + 200_000;
    const handler = createEvaluateHandler({ clock: () => now });
    const good = sqsRecord(terminalMessage(3, 10, 40));
    const tooManyParameters = Object.fromEntries(Array.from({ length: MESSAGE_LIMITS.maxParameters + 1 }, (_, index) => [`p${index}`, index]));
    const bad = {
      badJson: sqsRecord('{"vehicleId": 3, "deviceTime": '),
      missingField: sqsRecord({ vehicleId: 3, deviceTime: new Date(T0).toISOString(), longitude: 37.6, speed: 10 }),
      notANumber: sqsRecord(`{"vehicleId":3,"deviceTime":"${new Date(T0).toISOString()}","latitude":NaN,"longitude":37.6,"speed":10}`),
      outOfRange: sqsRecord(terminalMessage(3, 5, 10, { latitude: 95 })),
      future: sqsRecord(terminalMessage(3, 200 + 3_600, 10)),
      oversized: sqsRecord(terminalMessage(3, 6, 10, { parameters: tooManyParameters })),
      // a stamp names a message the producer sent: one from the future was never accepted
      futureStamp: sqsRecord(terminalMessage(3, 7, 10, { previousDeviceTime: new Date(T0 + (200 + 3_600) * 1000).toISOString() })),
      unreadableStamp: sqsRecord(terminalMessage(3, 8, 10, { previousDeviceTime: 'yesterday' })),
    };

    const response = await invoke(handler, [
      bad.badJson,
      good,
      bad.missingField,
      bad.notANumber,
      bad.outOfRange,
      bad.future,
      bad.oversized,
      bad.futureStamp,
      bad.unreadableStamp,
    ]);
    expect(response).toEqual({ batchItemFailures: [] });

    const rejected = await drainQueue(emulators.queues.inputDlq);
    const reasonOf = (record: { messageId: string }) => {
      const message = rejected.find((entry) => entry.MessageAttributes?.sourceMessageId?.StringValue === record.messageId);
      return message?.MessageAttributes?.reason?.StringValue;
    };
    expect(rejected).toHaveLength(8);
    expect(reasonOf(bad.badJson)).toMatch(/malformed JSON/);
    expect(reasonOf(bad.missingField)).toMatch(/^latitude: /);
    expect(reasonOf(bad.notANumber)).toMatch(/malformed JSON/);
    expect(reasonOf(bad.outOfRange)).toMatch(/latitude/);
    expect(reasonOf(bad.future)).toMatch(/future/);
    expect(reasonOf(bad.oversized)).toMatch(/parameters/);
    expect(reasonOf(bad.futureStamp)).toMatch(/^previousDeviceTime: .* in the future/);
    expect(reasonOf(bad.unreadableStamp)).toMatch(/^previousDeviceTime: /);
    // the body travels unchanged, so the message can be repaired and replayed
    expect(rejected.map((message) => message.Body)).toContain(bad.badJson.body);

    expect(await stateOf(3)).toMatchObject({ vehicleId: 3, lastDeviceTime: new Date(T0 + 10_000).toISOString() });
  });

  it('reports only the rejected message as failed when the DLQ itself cannot take it', async () => {
    const now = T0 + 200_000;
    const handler = createEvaluateHandler({ clock: () => now });
    const good = sqsRecord(terminalMessage(4, 10, 40));
    const bad = sqsRecord('not json');
    const dlq = process.env.INPUT_DLQ_URL!;
    vi.stubEnv('INPUT_DLQ_URL', `${dlq}-missing`);
    try {
      expect(await invoke(handler, [good, bad])).toEqual({ batchItemFailures: [{ itemIdentifier: bad.messageId }] });
    } finally {
      vi.unstubAllEnvs();
    }
    expect(await stateOf(4)).toMatchObject({ lastDeviceTime: new Date(T0 + 10_000).toISOString() });
  });

  it('never rolls state back for stale messages, and with the coalesced clock stores a heartbeat once per interval', async () => {
    let now = T0 + 200_000;
    const handler = createEvaluateHandler({ clock: () => now, vehicleClock: 'coalesced' });
    await invoke(handler, [sqsRecord(terminalMessage(5, 100, 50))]);
    const before = await stateOf(5);
    expect(before).toMatchObject({ lastDeviceTime: new Date(T0 + 100_000).toISOString() });
    const version = Number(before!.version);

    const counter = countDynamoRequests();
    const stateTable = resourcesConfig().VEHICLE_STATE_TABLE;
    // reads of rules by id (on the rules table) and of a client's maintenance silences (at most one Query of the
    // directory per client every SILENCE_CACHE_MS) are the rule cache's business, not the state's
    const stateRequests = () =>
      Object.fromEntries(Object.entries(counter.byTable()).filter(([key]) => !cacheTables().some((table) => key.endsWith(` ${table}`))));
    try {
      // older than the state's last device time: fast enough to speed, but it cannot change anything
      const stale = TWO_EPISODES.map(([second, speed]) => sqsRecord(terminalMessage(5, second - 20, speed)));
      expect(await invoke(handler, stale)).toEqual({ batchItemFailures: [] });
      expect(await stateOf(5)).toEqual(before);
      expect(await alertsOf(5)).toHaveLength(0);

      // newer, but changes only last-seen and position: coalesced, no write within the heartbeat interval
      counter.reset();
      now += 30_000;
      expect(await invoke(handler, [sqsRecord(terminalMessage(5, 130, 40))])).toEqual({ batchItemFailures: [] });
      expect(stateRequests()).toEqual({ [`BatchGetItem ${stateTable}`]: 1 });
      expect(await stateOf(5)).toEqual(before);

      // under rules without a connection-loss limit, the heartbeat is stored once ten minutes have passed
      counter.reset();
      now += 540_000;
      await invoke(handler, [sqsRecord(terminalMessage(5, 670, 40))]);
      expect(stateRequests()).toEqual({ [`BatchGetItem ${stateTable}`]: 1 });
      counter.reset();
      now += 40_000;
      await invoke(handler, [sqsRecord(terminalMessage(5, 710, 40))]);
      expect(stateRequests()).toEqual({ [`BatchGetItem ${stateTable}`]: 1, [`PutItem ${stateTable}`]: 1 });
      expect(await stateOf(5)).toMatchObject({ version: version + 1, lastDeviceTime: new Date(T0 + 710_000).toISOString() });
    } finally {
      counter.detach();
    }
  });

  it('with the exact clock (the default), writes each message that moves the clock and nothing for a stale one', async () => {
    let now = T0 + 200_000;
    const handler = createEvaluateHandler({ clock: () => now });
    await invoke(handler, [sqsRecord(terminalMessage(8, 100, 50))]);
    const version = Number((await stateOf(8))!.version);
    const counter = countDynamoRequests();
    const stateTable = resourcesConfig().VEHICLE_STATE_TABLE;
    const stateRequests = () =>
      Object.fromEntries(Object.entries(counter.byTable()).filter(([key]) => !cacheTables().some((table) => key.endsWith(` ${table}`))));
    try {
      counter.reset();
      expect(
        await invoke(
          handler,
          TWO_EPISODES.map(([second, speed]) => sqsRecord(terminalMessage(8, second - 20, speed))),
        ),
      ).toEqual({ batchItemFailures: [] });
      expect(stateRequests()).toEqual({ [`BatchGetItem ${stateTable}`]: 1 });
      for (const second of [130, 160]) {
        counter.reset();
        now += 30_000;
        await invoke(handler, [sqsRecord(terminalMessage(8, second, 40))]);
        expect(stateRequests()).toEqual({ [`BatchGetItem ${stateTable}`]: 1, [`PutItem ${stateTable}`]: 1 });
      }
      expect(await stateOf(8)).toMatchObject({ version: version + 2, lastDeviceTime: new Date(T0 + 160_000).toISOString() });
      expect(await alertsOf(8)).toHaveLength(0);
    } finally {
      counter.detach();
    }
  });

  it('re-enqueues an alert committed before a crash, through the sweep outbox, exactly once', async () => {
    const now = T0 + 200_000;
    const handler = createEvaluateHandler({ clock: () => now });
    const deliveries = process.env.DELIVERIES_QUEUE_URL!;
    vi.stubEnv('DELIVERIES_QUEUE_URL', `${deliveries}-unreachable`);
    try {
      const records = TWO_EPISODES.slice(0, 3).map(([second, speed]) => sqsRecord(terminalMessage(6, second, speed)));
      expect(await invoke(handler, records)).toEqual({ batchItemFailures: [] });
    } finally {
      vi.unstubAllEnvs();
    }
    const [alert] = await alertsOf(6);
    expect(alert).toMatchObject({ status: 'pending', outbox: expect.stringMatching(/^pending#\d+$/) });
    expect(await drainQueue(deliveries)).toHaveLength(0);

    const sweepAt = (at: number) => createSweepHandler({ clock: () => at })({}, lambdaContext('sweep'));
    // too young for the outbox: the first delivery attempt may still be under way
    await sweepAt(now + 60_000);
    expect(await drainQueue(deliveries)).toHaveLength(0);

    // (alerts of the other tests are pending too, since no deliver function runs here)
    const requestsFor = async (alertId: string) => (await drainQueue(deliveries)).filter((request) => JSON.parse(request.Body!).alertId === alertId);
    await sweepAt(now + 180_000);
    expect(await requestsFor(String(alert!.alertId))).toHaveLength(1);

    // the next sweeps, while the delivery is still pending, do not send it again straight away
    await sweepAt(now + 200_000);
    await sweepAt(now + 240_000);
    expect(await drainQueue(deliveries)).toHaveLength(0);
  });

  it('gives up on an alert the deliver function never settles, after a bounded number of re-enqueues', async () => {
    const now = T0 + 200_000;
    const handler = createEvaluateHandler({ clock: () => now });
    const records = TWO_EPISODES.slice(0, 3).map(([second, speed]) => sqsRecord(terminalMessage(7, second, speed)));
    await invoke(handler, records);
    const [alert] = await alertsOf(7);
    const deliveries = process.env.DELIVERIES_QUEUE_URL!;
    const timesEnqueued = async () => (await drainQueue(deliveries)).filter((request) => JSON.parse(request.Body!).alertId === alert!.alertId).length;
    expect(await timesEnqueued()).toBe(1);

    // nobody delivers: the outbox enqueues it again every 2 minutes, 10 times, then marks it failed
    let enqueued = 0;
    let abandoned: string[] = [];
    for (let round = 1; round <= 12; round++) {
      const report = await createSweepHandler({ clock: () => now + round * 150_000 })({}, lambdaContext('sweep'));
      enqueued += await timesEnqueued();
      abandoned = abandoned.concat(report.abandoned);
    }
    expect(enqueued).toBe(10);
    expect(abandoned).toContain(alert!.alertId);
    const [after] = await alertsOf(7);
    expect(after).toMatchObject({ status: 'failed' });
    expect(after!.outbox).toBeUndefined();
  });

  it('alerts once on a late panic message, and not again when it is delivered again', async () => {
    const now = T0 + 200_000;
    const handler = createEvaluateHandler({ clock: () => now });
    await invoke(handler, [sqsRecord(terminalMessage(60, 100, 0, { parameters: { panic: 0 } }))]);
    const before = await stateOf(60);

    // pressed at 50 s, arriving after the 100 s message: stale for state, but a press is never dropped
    const late = sqsRecord(terminalMessage(60, 50, 0, { parameters: { panic: 1 } }));
    expect(await invoke(handler, [late])).toEqual({ batchItemFailures: [] });
    const alerts = await alertsOf(60);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ ruleId: 2, event: { kind: 'panic', time: new Date(T0 + 50_000).toISOString() } });
    // the vehicle's clock and position stay where the newer message put them; the rule remembers the late press
    const remembered = await stateOf(60);
    expect(remembered).toMatchObject({ lastDeviceTime: before!.lastDeviceTime, lastPosition: before!.lastPosition });
    expect(remembered!.rules['2']).toEqual({ pressedSince: null, presses: [], latePresses: [[T0 + 50_000, T0 + 50_000]] });
    expect((await drainQueue(emulators.queues.deliveries)).map((request) => JSON.parse(request.Body!).alertId)).toEqual([alerts[0]!.alertId]);

    expect(await invoke(handler, [late])).toEqual({ batchItemFailures: [] });
    expect(await alertsOf(60)).toHaveLength(1);
    expect(await stateOf(60)).toEqual(remembered);
    expect(await drainQueue(emulators.queues.deliveries)).toHaveLength(0);
  });

  it('keys an alert by its UTC time, whatever offset the device time carries', async () => {
    const handler = createEvaluateHandler({ clock: () => T0 + 200_000 });
    /** The device time of T0 + seconds, written as Moscow time (+03:00). */
    const moscow = (seconds: number) => new Date(T0 + seconds * 1000 + 3 * 3_600_000).toISOString().replace('.000Z', '+03:00');
    expect(moscow(20)).toBe('2026-03-01T03:00:20+03:00');
    const records = TWO_EPISODES.map(([second, speed]) => sqsRecord(terminalMessage(7, second, speed, { deviceTime: moscow(second) })));
    expect(await invoke(handler, records)).toEqual({ batchItemFailures: [] });
    const alerts = (await alertsOf(7)).sort((a, b) => String(a.timeKey).localeCompare(String(b.timeKey)));
    expect(alerts.map((alert) => alert.timeKey)).toEqual([
      `2026-03-01T00:00:20.000Z#${String(alerts[0]!.alertId)}`,
      `2026-03-01T00:01:40.000Z#${String(alerts[1]!.alertId)}`,
    ]);
    expect(alerts.map((alert) => (alert.event as { time: string }).time)).toEqual(['2026-03-01T00:00:20.000Z', '2026-03-01T00:01:40.000Z']);
    expect((await stateOf(7))?.lastDeviceTime).toBe('2026-03-01T00:01:40.000Z');
  });
});
