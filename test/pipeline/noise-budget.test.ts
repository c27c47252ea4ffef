import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import { createSweepHandler } from '../../functions/sweep/handler';
import { lambdaContext } from '../../infra/local/sqs-poller';
import { alertSchema } from '../../shared/schemas/alert';
import type { StoredRule } from '../../shared/schemas/notification';
import { readSuppressedRuns } from '../../shared/store/suppressed-log';
import { loadVehicleState } from '../../shared/store/vehicle-state-store';
import { SUPPRESSION_REASONS } from '../../shared/schemas/suppression';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { PARENT_ID, alertsInTable, invoke, putRule, sqsRecord, storeCircleZone, storedRule } from './support';

/**
 * The noise budget (cooldown, maxPerDay, repeat, notifyCleared) and the suppressed log through the evaluate and
 * sweep handlers, on DynamoDB Local and fauxqs.
 */
const at = (iso: string) => Date.parse(iso);
const rule = (overrides: Partial<StoredRule>) => storedRule({ expiresAt: '2027-01-01T00:00:00.000Z', timezone: 'Europe/Berlin', ...overrides });
const position = (vehicleId: number, deviceTime: number, speed: number, parameters?: Record<string, string>) => ({
  vehicleId,
  deviceTime: new Date(deviceTime).toISOString(),
  latitude: 55.75,
  longitude: 37.62,
  speed,
  ...(parameters ? { parameters } : {}),
});
const sweepAt = (now: number) => createSweepHandler({ clock: () => now, outboxAgeMs: 30 * 86_400_000 })({}, lambdaContext('sweep'));

describe('noise budget through evaluate and sweep', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startTestEmulators('pipeline-noise-budget');
  });
  afterAll(async () => emulators.stop());

  const kindsOf = async (ruleId: number) =>
    (await alertsInTable())
      .filter((alert) => alert.ruleId === ruleId)
      .map((item) => alertSchema.parse(item).event)
      .sort((a, b) => a.time.localeCompare(b.time) || a.kind.localeCompare(b.kind))
      .map((event) => [event.kind, event.time, event.values] as const);

  /** Sends messages one batch each, with the handler's clock just after the message. */
  const send = async (messages: ReturnType<typeof position>[]) => {
    let now = 0;
    const evaluate = createEvaluateHandler({ clock: () => now });
    for (const message of messages) {
      now = Date.parse(message.deviceTime) + 1000;
      expect((await invoke(evaluate, [sqsRecord(message)])).batchItemFailures).toEqual([]);
    }
  };

  // speeding episodes of two messages (minDuration 0 alerts on the first), ended by slowing (endDuration 0)
  const episodes = (vehicleId: number, starts: number[]) =>
    starts.flatMap((start) => [position(vehicleId, start, 120), position(vehicleId, start + 10_000, 40)]);
  const speeding = { limit: '90', minDuration: '0', endDuration: '0' };

  it('holds alerts within the cooldown, records them in the suppressed log, and alerts again after it', async () => {
    await putRule(rule({ id: 601, vehicleIds: [6001], settings: { ...speeding, cooldown: '600' } }));
    const t = at('2026-11-24T10:00:00Z');
    await send(episodes(6001, [t, t + 120_000, t + 240_000, t + 700_000]));
    const alerts = await kindsOf(601);
    expect(alerts.map(([kind, time]) => [kind, time])).toEqual([
      ['speeding', new Date(t).toISOString()],
      ['speeding', new Date(t + 700_000).toISOString()],
    ]);
    // the run of two cooldowns closed with the alert at +700 s and went to the log
    const runs = await readSuppressedRuns(6001, 601, t + 800_000);
    expect(runs).toEqual([[SUPPRESSION_REASONS.indexOf('cooldown'), t + 120_000, t + 240_000, 2]]);
  });

  it('caps alerts per local day with one notice, and counts afresh after local midnight', async () => {
    await putRule(rule({ id: 602, vehicleIds: [6002], settings: { ...speeding, maxPerDay: '2' } }));
    // 22:00Z is 23:00 in Berlin (UTC+1 in November): local midnight is at 23:00Z
    const t = at('2026-11-24T22:00:00Z');
    await send(episodes(6002, [t, t + 60_000, t + 120_000, t + 180_000, t + 3_660_000]));
    const alerts = await kindsOf(602);
    expect(alerts.map(([kind, time]) => [kind, time])).toEqual([
      ['speeding', new Date(t).toISOString()],
      ['speeding', new Date(t + 60_000).toISOString()],
      ['limitReached', new Date(t + 120_000).toISOString()],
      ['speeding', new Date(t + 3_660_000).toISOString()],
    ]);
    expect(alerts[2]![2]).toMatchObject({ maxPerDay: 2, heldKind: 'speeding', resumesAt: '2026-11-24T23:00:00.000Z' });
    // the notice's event and the one after it were held; the next day's alert closed that run
    expect(await readSuppressedRuns(6002, 602, t + 3_700_000)).toEqual([[SUPPRESSION_REASONS.indexOf('maxPerDay'), t + 120_000, t + 180_000, 2]]);
    expect((await loadVehicleState(6002)).state?.noise?.['602']).toMatchObject({ n: 1 });
  });

  it('reminds while an episode lasts, with its duration, never twice under redelivery, and clears it once over', async () => {
    await putRule(rule({ id: 603, vehicleIds: [6003], settings: { ...speeding, repeat: '5', notifyCleared: 'true' } }));
    const t = at('2026-11-24T12:00:00Z');
    const ride = Array.from({ length: 13 }, (_, minute) => position(6003, t + minute * 60_000, 120));
    await send([...ride, position(6003, t + 13 * 60_000, 40)]);
    // the whole ride delivered again, in one batch: every message is stale now
    let now = t + 14 * 60_000;
    const evaluate = createEvaluateHandler({ clock: () => now });
    expect(
      (
        await invoke(
          evaluate,
          ride.map((message) => sqsRecord(message)),
        )
      ).batchItemFailures,
    ).toEqual([]);
    now += 60_000;
    await send([position(6003, t + 20 * 60_000, 40)]);
    const alerts = await kindsOf(603);
    expect(alerts.map(([kind, time, values]) => [kind, time, values.durationMinutes ?? null])).toEqual([
      ['speeding', new Date(t).toISOString(), null],
      ['reminder', new Date(t + 5 * 60_000).toISOString(), 5],
      ['reminder', new Date(t + 10 * 60_000).toISOString(), 10],
      ['cleared', new Date(t + 13 * 60_000).toISOString(), 13],
    ]);
  });

  it('reminds of a lost connection from the sweep, and takes notifyRestored and notifyCleared alike', async () => {
    for (const [id, vehicleId, key] of [
      [604, 6004, 'notifyCleared'],
      [605, 6005, 'notifyRestored'],
    ] as const) {
      await putRule(rule({ id, type: 7, vehicleIds: [vehicleId], settings: { minutes: '10', repeat: '30', [key]: 'true' } }));
    }
    const t = at('2026-11-24T08:00:00Z');
    await send([position(6004, t, 0), position(6005, t, 0)]);
    for (const minutes of [11, 25, 41, 42, 75]) await sweepAt(t + minutes * 60_000);
    // the message after the restoring one: the episode ended with the rule's own message, nothing more is owed
    await send([position(6004, t + 80 * 60_000, 0), position(6005, t + 80 * 60_000, 0)]);
    await send([position(6004, t + 81 * 60_000, 0), position(6005, t + 81 * 60_000, 0)]);
    for (const id of [604, 605]) {
      const alerts = await kindsOf(id);
      // last seen is the message's arrival, a second after its device time
      const seen = t + 1000;
      expect(alerts.map(([kind, time]) => [kind, time])).toEqual([
        ['connectionLost', new Date(seen + 10 * 60_000).toISOString()],
        ['reminder', new Date(seen + 40 * 60_000).toISOString()],
        ['reminder', new Date(seen + 70 * 60_000).toISOString()],
        ['connectionRestored', new Date(t + 80 * 60_000).toISOString()],
      ]);
      expect(alerts[2]![2]).toMatchObject({ episodeKind: 'connectionLost', durationMinutes: 70 });
    }
  });

  it('clears a reported zone exit once the vehicle is back inside, and owes nothing after a reported entry', async () => {
    const zone = await storeCircleZone({ parentId: PARENT_ID, name: 'Depot', center: { latitude: 55.75, longitude: 37.62 }, radius: 500 });
    for (const [id, vehicleId, mode] of [
      [606, 6006, 'exit'],
      [607, 6007, 'both'],
    ] as const) {
      await putRule(rule({ id, type: 0, vehicleIds: [vehicleId], geoids: [zone.id], settings: { mode, margin: '0', notifyCleared: 'true' } }));
    }
    const t = at('2026-11-24T09:00:00Z');
    // inside, out at +1 min, back in at +3, out again at +5 and in at +6 (1.1 km north is outside the 500 m circle)
    const path = [55.75, 55.76, 55.76, 55.75, 55.75, 55.76, 55.75];
    for (const vehicleId of [6006, 6007]) {
      await send(path.map((latitude, minute) => ({ ...position(vehicleId, t + minute * 60_000, 30), latitude })));
    }
    const minute = (m: number) => new Date(t + m * 60_000).toISOString();
    expect((await kindsOf(606)).map(([kind, time]) => [kind, time])).toEqual([
      ['zoneExit', minute(1)],
      ['cleared', minute(3)],
      ['zoneExit', minute(5)],
      ['cleared', minute(6)],
    ]);
    const cleared = (await kindsOf(606))[1]!;
    expect(cleared[2]).toMatchObject({ episodeKind: 'zoneExit', episodeSince: minute(1), durationMinutes: 2 });
    // with entries reported, the entry is the message that the exit is over
    expect((await kindsOf(607)).map(([kind, time]) => [kind, time])).toEqual([
      ['zoneExit', minute(1)],
      ['zoneEntry', minute(3)],
      ['zoneExit', minute(5)],
      ['zoneEntry', minute(6)],
    ]);
    // back inside, the rule's state holds no exit and its budget no episode
    const stored = (await loadVehicleState(6006)).state!;
    expect(stored.rules['606']).not.toHaveProperty('exit');
    expect(stored.noise?.['606']?.e).toBeUndefined();
  });

  it('records episodes that ended before their minimum duration, up to the alert of one that lasted', async () => {
    await putRule(rule({ id: 608, vehicleIds: [6008], settings: { limit: '90', minDuration: '60', endDuration: '0' } }));
    const t = at('2026-11-24T14:00:00Z');
    // 30 s and 40 s over the limit, then 90 s
    const speeds: [number, number][] = [
      [0, 120],
      [30, 40],
      [100, 120],
      [140, 40],
      [200, 120],
      [260, 120],
      [290, 40],
    ];
    await send(speeds.map(([second, speed]) => position(6008, t + second * 1000, speed)));
    expect((await kindsOf(608)).map(([kind, time]) => [kind, time])).toEqual([['speeding', new Date(t + 260_000).toISOString()]]);
    // timed by the messages that ended them; the alert closed the run
    expect(await readSuppressedRuns(6008, 608, t + 300_000)).toEqual([[SUPPRESSION_REASONS.indexOf('belowMinDuration'), t + 30_000, t + 140_000, 2]]);
  });
});
