import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import { createSweepHandler } from '../../functions/sweep/handler';
import { lambdaContext } from '../../infra/local/sqs-poller';
import { SUPPRESSION_REASONS } from '../../shared/schemas/suppression';
import { openRun } from '../../shared/pipeline/noise-budget';
import { alertSchema } from '../../shared/schemas/alert';
import type { StoredRule } from '../../shared/schemas/notification';
import { readSuppressedRuns } from '../../shared/store/suppressed-log';
import { loadVehicleState } from '../../shared/store/vehicle-state-store';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { alertsInTable, invoke, putRule, sqsRecord, storedRule } from './support';

/**
 * The age of a message (settings.maxEventAge, else MAX_EVENT_AGE_SECONDS) through the evaluate and sweep handlers,
 * on DynamoDB Local and fauxqs: a terminal's black box, the readings it stored while out of coverage, arrives
 * late but in order; its events are logged as tooOld, its readings still move the rules' state.
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const TOO_OLD = SUPPRESSION_REASONS.indexOf('tooOld');
const rule = (overrides: Partial<StoredRule>) => storedRule({ expiresAt: '2027-01-01T00:00:00.000Z', ...overrides });
const speeding = { limit: '90', minDuration: '10' };
const position = (vehicleId: number, deviceTime: number, speed: number) => ({
  vehicleId,
  deviceTime: new Date(deviceTime).toISOString(),
  latitude: 55.75,
  longitude: 37.62,
  speed,
});
type Position = ReturnType<typeof position>;

/** Readings every 30 s from `start` for `minutes`, at 120 km/h within the episodes ([from, to) minutes), else 50. */
const blackBox = (vehicleId: number, start: number, minutes: number, episodes: [number, number][]): Position[] =>
  Array.from({ length: minutes * 2 }, (_, index) => {
    const minute = index / 2;
    return position(vehicleId, start + index * 30_000, episodes.some(([from, to]) => minute >= from && minute < to) ? 120 : 50);
  });

type Evaluate = ReturnType<typeof createEvaluateHandler>;

/** The messages in FIFO batches of 10, as the input queue hands one vehicle's backlog to evaluate. */
const deliver = async (evaluate: Evaluate, messages: readonly Position[]) => {
  for (let index = 0; index < messages.length; index += 10) {
    const batch = messages.slice(index, index + 10).map((message) => sqsRecord(message));
    expect((await invoke(evaluate, batch)).batchItemFailures).toEqual([]);
  }
};

/** Current readings, each evaluated a second after it was read. */
const live = async (messages: readonly Position[], overrides: Parameters<typeof createEvaluateHandler>[0] = {}) => {
  for (const message of messages) {
    await deliver(createEvaluateHandler({ clock: () => Date.parse(message.deviceTime) + 1000, ...overrides }), [message]);
  }
};

const alertsOf = async (ruleId: number) =>
  (await alertsInTable())
    .filter((alert) => alert.ruleId === ruleId)
    .map((item) => alertSchema.parse(item).event)
    .sort((a, b) => a.time.localeCompare(b.time))
    .map((event) => [event.kind, event.time] as const);

const openRunOf = async (vehicleId: number, ruleId: number) => openRun((await loadVehicleState(vehicleId)).state?.noise?.[String(ruleId)]);

describe('the age of a message through evaluate', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startTestEmulators('pipeline-event-age');
  });
  afterAll(async () => emulators.stop());
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  const t = Date.parse('2026-11-24T10:00:00Z');
  /** When the black box of two hours (t to t + 2 h) arrives: 10 s after its last reading would have been sent. */
  const arrival = t + 2 * HOUR + 10_000;
  const dumpAt = (vehicleId: number, episodes: [number, number][]) => blackBox(vehicleId, t, 120, episodes);

  it('raises nothing from a two-hour black box, logs its events as tooOld with their age, and raises the next current episode', async () => {
    await putRule(rule({ id: 901, vehicleIds: [9001], settings: speeding }));
    await deliver(
      createEvaluateHandler({ clock: () => arrival }),
      dumpAt(9001, [
        [30, 40],
        [90, 95],
      ]),
    );
    expect(await alertsOf(901)).toEqual([]);
    const run = await openRunOf(9001, 901);
    expect(run).toMatchObject({ reason: 'tooOld', count: 2 });
    // the older of the two: the first episode's, confirmed at 30:30
    expect(run?.age).toBe((arrival - (t + 30 * MINUTE + 30_000)) / 1000);
    // the state moved on with the readings: the vehicle's clock is the black box's last reading
    expect((await loadVehicleState(9001)).state?.lastDeviceTime).toBe(new Date(t + 2 * HOUR - 30_000).toISOString());

    const now = t + 2 * HOUR + 20_000;
    await live([position(9001, now, 120), position(9001, now + 15_000, 120)]);
    expect(await alertsOf(901)).toEqual([['speeding', new Date(now + 15_000).toISOString()]]);
    // the alert closed the run of tooOld: it is in the rule's suppressed log
    expect(await readSuppressedRuns(9001, 901, now + MINUTE)).toEqual([[TOO_OLD, run!.first, run!.last, 2, run!.age]]);
  });

  it('does not raise an episode the black box already showed when current readings continue it, and raises the next one', async () => {
    await putRule(rule({ id: 902, vehicleIds: [9002], settings: speeding }));
    // speeding through the black box's last twenty minutes (it began too long ago), and on after it
    await deliver(createEvaluateHandler({ clock: () => arrival }), dumpAt(9002, [[100, 120]]));
    const now = t + 2 * HOUR;
    await live([position(9002, now, 120), position(9002, now + 30_000, 120), position(9002, now + 60_000, 120)]);
    expect(await alertsOf(902)).toEqual([]);
    expect(await openRunOf(9002, 902)).toMatchObject({ reason: 'tooOld', count: 1 });
    // slow for a minute, then a new episode
    const later = now + 5 * MINUTE;
    await live([
      position(9002, now + 90_000, 40),
      position(9002, now + 120_000, 40),
      position(9002, now + 150_000, 40),
      position(9002, later, 120),
      position(9002, later + 15_000, 120),
    ]);
    expect(await alertsOf(902)).toEqual([['speeding', new Date(later + 15_000).toISOString()]]);
  });

  it('ages nothing with maxEventAge 0', async () => {
    // two rules on one vehicle: one ages nothing, the other by the deployment's default
    await putRule(rule({ id: 903, vehicleIds: [9003], settings: { ...speeding, maxEventAge: '0' } }));
    await putRule(rule({ id: 913, vehicleIds: [9003], settings: speeding }));
    await deliver(
      createEvaluateHandler({ clock: () => arrival }),
      dumpAt(9003, [
        [30, 40],
        [90, 95],
      ]),
    );
    expect(await alertsOf(903)).toEqual([
      ['speeding', new Date(t + 30 * MINUTE + 30_000).toISOString()],
      ['speeding', new Date(t + 90 * MINUTE + 30_000).toISOString()],
    ]);
    expect(await openRunOf(9003, 903)).toBeUndefined();
    expect(await alertsOf(913)).toEqual([]);
  });

  it("applies the deployment's default (MAX_EVENT_AGE_SECONDS) where a rule sets no maxEventAge, and a rule's own where it does", async () => {
    // a black box of 30 minutes, arriving 40 minutes after it began: its episode is read about half an hour late
    const dump = (vehicleId: number) => blackBox(vehicleId, t, 30, [[5, 10]]);
    const late = t + 40 * MINUTE;
    await putRule(rule({ id: 904, vehicleIds: [9004], settings: speeding }));
    await putRule(rule({ id: 905, vehicleIds: [9005], settings: speeding }));
    await putRule(rule({ id: 906, vehicleIds: [9006], settings: { ...speeding, maxEventAge: '3600' } }));
    await putRule(rule({ id: 907, vehicleIds: [9007], settings: { ...speeding, maxEventAge: '600' } }));

    // unset: 900 s
    await deliver(createEvaluateHandler({ clock: () => late }), [...dump(9004), ...dump(9006)]);
    vi.stubEnv('MAX_EVENT_AGE_SECONDS', '3600');
    await deliver(createEvaluateHandler({ clock: () => late }), [...dump(9005), ...dump(9007)]);

    const episode = [['speeding', new Date(t + 5 * MINUTE + 30_000).toISOString()]];
    expect(await alertsOf(904)).toEqual([]);
    expect(await openRunOf(9004, 904)).toMatchObject({ reason: 'tooOld', count: 1, age: (late - (t + 5 * MINUTE + 30_000)) / 1000 });
    expect(await alertsOf(905)).toEqual(episode);
    expect(await alertsOf(906)).toEqual(episode);
    expect(await alertsOf(907)).toEqual([]);
    expect(await openRunOf(9007, 907)).toMatchObject({ reason: 'tooOld', count: 1 });
  });

  it('spends no noise budget on a tooOld event', async () => {
    await putRule(rule({ id: 908, vehicleIds: [9008], settings: { ...speeding, maxPerDay: '1', cooldown: '86400' } }));
    await deliver(createEvaluateHandler({ clock: () => arrival }), dumpAt(9008, [[30, 40]]));
    const now = t + 2 * HOUR + 20_000;
    await live([position(9008, now, 120), position(9008, now + 15_000, 120)]);
    // neither the day's one alert nor the cooldown went to the black box's episode
    expect(await alertsOf(908)).toEqual([['speeding', new Date(now + 15_000).toISOString()]]);
  });

  it('raises nothing from late messages delivered again, and the current episode once', async () => {
    await putRule(rule({ id: 909, vehicleIds: [9009], settings: speeding }));
    const dump = dumpAt(9009, [
      [30, 40],
      [90, 95],
    ]);
    await deliver(createEvaluateHandler({ clock: () => arrival }), dump);
    // the queue hands the whole backlog out again, later: older still, and no longer newer than the vehicle's clock
    await deliver(createEvaluateHandler({ clock: () => arrival + 5 * MINUTE }), dump);
    expect(await alertsOf(909)).toEqual([]);
    const now = t + 2 * HOUR + 20_000;
    const current = [position(9009, now, 120), position(9009, now + 15_000, 120)];
    await live(current);
    await deliver(createEvaluateHandler({ clock: () => now + MINUTE }), current);
    expect(await alertsOf(909)).toEqual([['speeding', new Date(now + 15_000).toISOString()]]);
    // each of the two old events was logged once
    const runs = await readSuppressedRuns(9009, 909, now + 2 * MINUTE);
    expect(runs.filter(([code]) => code === TOO_OLD).map(([, , , count]) => count)).toEqual([2]);
  });

  it('never ages connection loss: the sweep reports it late, and a black box that ends the silence restores it', async () => {
    await putRule(rule({ id: 910, type: 7, vehicleIds: [9010], settings: { minutes: '10', notifyRestored: 'true' } }));
    await putRule(rule({ id: 920, vehicleIds: [9010], settings: speeding }));
    await live([position(9010, t, 0)]);
    // the sweep first runs an hour later (an outage of its own): the loss is 50 minutes old when raised
    await createSweepHandler({ clock: () => t + HOUR, outboxAgeMs: 30 * 86_400_000 })({}, lambdaContext('sweep'));
    // back in coverage two hours later, with the readings of the dead zone
    await deliver(createEvaluateHandler({ clock: () => arrival }), blackBox(9010, t + MINUTE, 60, [[10, 20]]));
    // timed by the black box's first reading, before the loss was counted
    expect(await alertsOf(910)).toEqual([
      ['connectionRestored', new Date(t + MINUTE).toISOString()],
      ['connectionLost', new Date(t + 1000 + 10 * MINUTE).toISOString()],
    ]);
    // the speeding the same black box showed is too old
    expect(await alertsOf(920)).toEqual([]);
    expect(await openRunOf(9010, 920)).toMatchObject({ reason: 'tooOld', count: 1 });
  });
});
