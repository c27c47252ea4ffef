import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import { createSweepHandler } from '../../functions/sweep/handler';
import { lambdaContext } from '../../infra/local/sqs-poller';
import type { Emulators } from '../../infra/local/emulators';
import { resourcesConfig } from '../../shared/config';
import { SILENCE_CACHE_MS } from '../../shared/pipeline/silence-cache';
import { alertSchema, deliveryRequestSchema, type Alert } from '../../shared/schemas/alert';
import type { StoredRule } from '../../shared/schemas/notification';
import { createSilence, endSilence, newSilenceId } from '../../shared/store/silences-store';
import { loadVehicleState } from '../../shared/store/vehicle-state-store';
import { startTestEmulators } from '../support/emulators';
import { offset } from '../rules/fixtures';
import { PARENT_ID, alertsInTable, drainQueue, invoke, putRule, sqsRecord, storeCircleZone, storedRule } from './support';

/**
 * Maintenance silences through the evaluate and sweep handlers on DynamoDB Local and fauxqs: what they hold back
 * and keep in the history, and the one `afterSilence` alert of an episode that outlasts its silence, under
 * redelivery and a doubled sweep.
 */
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const MINUTE = 60_000;
const DEPOT = { latitude: 55.75, longitude: 37.62 };
const rule = (overrides: Partial<StoredRule>) => storedRule({ expiresAt: '2027-01-01T00:00:00.000Z', stored: true, ...overrides });
const position = (vehicleId: number, deviceTime: number, speed: number, where = DEPOT) => ({
  vehicleId,
  deviceTime: iso(deviceTime),
  latitude: where.latitude,
  longitude: where.longitude,
  speed,
});
const sweepAt = (now: number) => createSweepHandler({ clock: () => now, outboxAgeMs: 30 * 86_400_000 })({}, lambdaContext('sweep'));

async function silence(fields: { vehicleIds?: number[]; ruleIds?: number[]; from: number; to: number }) {
  const id = newSilenceId(PARENT_ID);
  await createSilence(
    {
      id,
      parentId: PARENT_ID,
      vehicleIds: fields.vehicleIds ?? [],
      ruleIds: fields.ruleIds ?? [],
      geozoneIds: [],
      from: iso(fields.from),
      to: iso(fields.to),
      reason: 'in the workshop',
      schedule: null,
      timezone: 0,
      createdAt: iso(fields.from),
      createdBy: 'dispatcher',
      via: 'api',
      endedAt: null,
      endedBy: null,
    },
    100,
  );
  return id;
}

describe('maintenance silences through evaluate and sweep', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startTestEmulators('pipeline-silences');
  });
  afterAll(async () => emulators.stop());

  const alertsOf = async (ruleId: number): Promise<Alert[]> =>
    (await alertsInTable())
      .filter((item) => item.ruleId === ruleId)
      .map((item) => alertSchema.parse(item))
      .sort((a, b) => a.event.time.localeCompare(b.event.time) || a.vehicleId - b.vehicleId);
  /** The delivery requests on the queue for alerts of the rule (the sweep's outbox may re-enqueue other tests' alerts). */
  const enqueued = async (ruleId: number) => {
    const ids = new Set((await alertsOf(ruleId)).map((alert) => alert.alertId));
    return (await drainQueue(resourcesConfig().DELIVERIES_QUEUE_URL))
      .map((message) => deliveryRequestSchema.parse(JSON.parse(message.Body ?? '')).alertId)
      .filter((alertId) => ids.has(alertId));
  };

  it('holds back exactly the silenced vehicle, keeps its event in the history as silenced, and delivers the other', async () => {
    await putRule(rule({ id: 701, vehicleIds: [7001, 7002], settings: { limit: '90', minDuration: '0' } }));
    const t = at('2026-11-24T10:00:00Z');
    const silenceId = await silence({ vehicleIds: [7001], from: t - MINUTE, to: t + 60 * MINUTE });
    let now = t;
    const evaluate = createEvaluateHandler({ clock: () => now });
    for (const second of [0, 10]) {
      now = t + second * 1000 + 1000;
      const records = [7001, 7002].map((vehicleId) => sqsRecord(position(vehicleId, t + second * 1000, second === 0 ? 40 : 120)));
      expect((await invoke(evaluate, records)).batchItemFailures).toEqual([]);
    }
    const alerts = await alertsOf(701);
    expect(alerts.map((alert) => [alert.vehicleId, alert.event.kind, alert.silenced?.silenceId ?? null, alert.state, alert.status])).toEqual([
      [7001, 'speeding', silenceId, 'closed', 'delivered'],
      [7002, 'speeding', null, 'open', 'pending'],
    ]);
    const silenced = (await alertsInTable()).find((item) => item.alertId === alerts[0]!.alertId)!;
    expect(silenced.outbox).toBeUndefined();
    expect(silenced.dueAt).toBeUndefined();
    expect(await enqueued(701)).toEqual([alerts[1]!.alertId]);
    // the run of the rule's suppressed log names the silence
    const noise = (await loadVehicleState(7001)).state?.noise?.['701'];
    expect(noise?.s?.[4]).toBe(silenceId);
  });

  it('takes a silence made after the cache read at most SILENCE_CACHE_MS later', async () => {
    await putRule(rule({ id: 702, vehicleIds: [7004], settings: { limit: '90', minDuration: '0', endDuration: '0' } }));
    const t = at('2026-11-24T11:00:00Z');
    let now = t;
    const evaluate = createEvaluateHandler({ clock: () => now });
    const send = async (deviceTime: number, speed: number) => {
      now = deviceTime + 1000;
      expect((await invoke(evaluate, [sqsRecord(position(7004, deviceTime, speed))])).batchItemFailures).toEqual([]);
    };
    await send(t, 40);
    await silence({ vehicleIds: [7004], from: t, to: t + 60 * MINUTE });
    // the container read the client's silences (none) a second ago: this episode still goes out
    await send(t + 5_000, 120);
    await send(t + 10_000, 40);
    await send(t + SILENCE_CACHE_MS + 10_000, 120);
    const alerts = await alertsOf(702);
    expect(alerts.map((alert) => [alert.event.time, alert.silenced === undefined])).toEqual([
      [iso(t + 5_000), true],
      [iso(t + SILENCE_CACHE_MS + 10_000), false],
    ]);
  });

  it('raises a connection still lost when the silence ends once, marked afterSilence, under a doubled sweep', async () => {
    await putRule(rule({ id: 703, type: 7, vehicleIds: [7003], settings: { minutes: '30' }, toClient: true }));
    const t = at('2026-11-24T12:00:00Z');
    const silenceId = await silence({ vehicleIds: [7003], from: t, to: t + 120 * MINUTE });
    const evaluate = createEvaluateHandler({ clock: () => t + 1000 });
    expect((await invoke(evaluate, [sqsRecord(position(7003, t, 0))])).batchItemFailures).toEqual([]);
    for (const minutes of [31, 45, 60, 90, 110]) await sweepAt(t + minutes * MINUTE);
    expect((await alertsOf(703)).map((alert) => [alert.event.kind, alert.silenced?.silenceId])).toEqual([['connectionLost', silenceId]]);
    expect(await enqueued(703)).toEqual([]);
    // two sweeps at once when the silence has ended, then a third: one alert
    const end = t + 120 * MINUTE;
    await Promise.all([sweepAt(end + MINUTE), sweepAt(end + MINUTE)]);
    await sweepAt(end + 2 * MINUTE);
    const alerts = await alertsOf(703);
    expect(
      alerts.map((alert) => [alert.event.kind, alert.event.time, alert.afterSilence ?? false, alert.event.values.afterSilence ?? false]),
    ).toEqual([
      ['connectionLost', iso(t + 1000 + 30 * MINUTE), false, false],
      ['connectionLost', iso(end), true, true],
    ]);
    expect(await enqueued(703)).toEqual([alerts[1]!.alertId]);
  });

  it('raises a vehicle still outside its zone once when a message finds the silence over, under redelivery', async () => {
    const depot = await storeCircleZone({ parentId: PARENT_ID, name: 'Depot', center: DEPOT, radius: 300 });
    await putRule(rule({ id: 704, type: 0, vehicleIds: [7005], geoids: [depot.id], settings: { mode: 'exit' } }));
    const t = at('2026-11-24T14:00:00Z');
    await silence({ ruleIds: [704], from: t, to: t + 60 * MINUTE });
    const away = offset(DEPOT.latitude, DEPOT.longitude, 0, 2_000);
    const outside = { latitude: away.lat, longitude: away.lon };
    let now = t;
    const evaluate = createEvaluateHandler({ clock: () => now });
    for (const [seconds, where] of [
      [0, DEPOT],
      [60, outside],
      [1800, outside],
    ] as const) {
      now = t + seconds * 1000 + 1000;
      expect((await invoke(evaluate, [sqsRecord(position(7005, t + seconds * 1000, 30, where))])).batchItemFailures).toEqual([]);
    }
    await enqueued(704);
    // the first message after the end, delivered twice in one batch, then again on its own, and by two containers at once
    const after = position(7005, t + 61 * MINUTE, 30, outside);
    now = t + 61 * MINUTE + 1000;
    const records = [sqsRecord(after, 'after-1'), sqsRecord(after, 'after-2')];
    expect((await invoke(evaluate, records)).batchItemFailures).toEqual([]);
    await Promise.all([invoke(evaluate, [sqsRecord(after, 'after-1')]), invoke(createEvaluateHandler({ clock: () => now }), [sqsRecord(after)])]);
    const alerts = await alertsOf(704);
    expect(alerts.map((alert) => [alert.event.kind, alert.event.time, alert.afterSilence ?? false, alert.silenced === undefined])).toEqual([
      ['zoneExit', iso(t + 60_000), false, false],
      ['zoneExit', iso(t + 61 * MINUTE), true, true],
    ]);
    expect(await enqueued(704)).toEqual([alerts[1]!.alertId]);
  });

  it('frees an episode within the recheck when its silence is ended early', async () => {
    await putRule(rule({ id: 705, type: 7, vehicleIds: [7006], settings: { minutes: '30' } }));
    const t = at('2026-11-24T16:00:00Z');
    const silenceId = await silence({ vehicleIds: [7006], from: t, to: t + 24 * 60 * MINUTE });
    expect((await invoke(createEvaluateHandler({ clock: () => t + 1000 }), [sqsRecord(position(7006, t, 0))])).batchItemFailures).toEqual([]);
    await sweepAt(t + 31 * MINUTE);
    await endSilence(silenceId, 'dispatcher', t + 35 * MINUTE);
    for (let minutes = 36; minutes <= 45; minutes++) await sweepAt(t + minutes * MINUTE);
    const alerts = await alertsOf(705);
    expect(alerts.map((alert) => [alert.event.time, alert.afterSilence ?? false])).toEqual([
      [iso(t + 1000 + 30 * MINUTE), false],
      [iso(t + 1000 + 40 * MINUTE), true],
    ]);
  });
});
