import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import { createSweepHandler } from '../../functions/sweep/handler';
import { vehiclesFallingSilent } from '../../shared/store/vehicle-state-store';
import { lambdaContext } from '../../infra/local/sqs-poller';
import { alertSchema } from '../../shared/schemas/alert';
import type { StoredRule } from '../../shared/schemas/notification';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { alertsInTable, drainQueue, invoke, putRule, sqsRecord, storedRule } from './support';

/**
 * Rules with office hours (Mon-Fri 08:00-18:00, Europe/Berlin: 07:00Z-17:00Z in November) through the evaluate
 * and sweep handlers, on DynamoDB Local and fauxqs. 2026-11-23 is a Monday.
 */
const at = (iso: string) => Date.parse(iso);
const office = (overrides: Partial<StoredRule>) =>
  storedRule({
    timezone: 'Europe/Berlin',
    expiresAt: '2027-01-01T00:00:00.000Z',
    ...overrides,
    settings: { schedule: 'Mon-Fri 08:00-18:00', ...overrides.settings },
  });
const position = (vehicleId: number, deviceTime: number, speed: number) => ({
  vehicleId,
  deviceTime: new Date(deviceTime).toISOString(),
  latitude: 55.75,
  longitude: 37.62,
  speed,
});
// alerts nobody delivers here stay pending: the outbox would enqueue them again, which is not what is looked at
const sweepAt = (now: number) => createSweepHandler({ clock: () => now, outboxAgeMs: 30 * 86_400_000 })({}, lambdaContext('sweep'));

async function silentAtOf(vehicleId: number): Promise<number | undefined> {
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: resourcesConfig().VEHICLE_STATE_TABLE, Key: { vehicleId }, ConsistentRead: true }),
  );
  return Item?.silentAt as number | undefined;
}

describe('schedules through evaluate and sweep', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startTestEmulators('pipeline-schedules');
  });
  afterAll(async () => emulators.stop());

  const alertsOf = async (ruleId: number) =>
    (await alertsInTable()).filter((alert) => alert.ruleId === ruleId).map((item) => alertSchema.parse(item));

  it('raises one alert for a speeding from 17:59 that lasts 3 minutes, and none for one at night', async () => {
    await putRule(office({ id: 501, vehicleIds: [5001], settings: { limit: '90', minDuration: '10' } }));
    let now = 0;
    const evaluate = createEvaluateHandler({ clock: () => now });
    // one message every 10 s, in batches of up to 10 as the FIFO trigger hands them over
    const ride = async (from: string, seconds: number) => {
      for (let batch = 0; batch <= seconds; batch += 100) {
        const records = [];
        for (let second = batch; second < Math.min(batch + 100, seconds + 1); second += 10)
          records.push(sqsRecord(position(5001, at(from) + second * 1000, 120)));
        now = at(from) + Math.min(batch + 100, seconds) * 1000 + 1000;
        expect((await invoke(evaluate, records)).batchItemFailures).toEqual([]);
      }
    };
    await ride('2026-11-23T16:59:00Z', 180);
    const evening = await alertsOf(501);
    expect(evening.map((alert) => [alert.event.kind, alert.event.time])).toEqual([['speeding', '2026-11-23T16:59:10.000Z']]);

    // a pause ends the episode (maxGap 300 s); the next one is at 21:00 local
    await ride('2026-11-23T20:00:00Z', 300);
    expect(await alertsOf(501)).toHaveLength(1);
    await drainQueue(emulators.queues.deliveries);
  });

  it('reports a connection lost after the close when the schedule opens, once, if it is still lost', async () => {
    await putRule(office({ id: 502, type: 7, name: 'silent in office hours', vehicleIds: [5002, 5003], settings: { minutes: '30' } }));
    let now = at('2026-11-23T16:50:00Z');
    const evaluate = createEvaluateHandler({ clock: () => now });
    // both last heard at 17:50 local: lost at 18:20, after the close
    await invoke(evaluate, [sqsRecord(position(5002, now, 0)), sqsRecord(position(5003, now, 0))]);
    const opening = at('2026-11-24T07:00:00Z');
    const deadline = await silentAtOf(5002);
    // the sweep is asked to look at the vehicle when the schedule opens (plus one heartbeat), not all night
    expect(deadline).toBeGreaterThanOrEqual(opening);
    expect(deadline).toBeLessThanOrEqual(opening + 10 * 60_000);
    expect((await vehiclesFallingSilent(at('2026-11-24T06:59:00Z'))).map((vehicle) => vehicle.vehicleId)).not.toContain(5002);

    for (const time of ['2026-11-23T17:25:00Z', '2026-11-23T23:00:00Z']) await sweepAt(at(time));
    expect(await alertsOf(502)).toEqual([]);

    // 5003 is heard again at 07:55 local, before the opening
    now = at('2026-11-24T06:55:00Z');
    await invoke(evaluate, [sqsRecord(position(5003, now, 0))]);

    for (const minutes of [0, 5, 10, 11]) await sweepAt(deadline! + minutes * 60_000);
    const alerts = await alertsOf(502);
    expect(alerts.map((alert) => [alert.vehicleId, alert.event.kind, alert.event.time, alert.event.values.lastSeenAt])).toEqual([
      [5002, 'connectionLost', '2026-11-24T07:00:00.000Z', '2026-11-23T16:50:00.000Z'],
    ]);
    const requests = (await drainQueue(emulators.queues.deliveries)).map((request) => JSON.parse(request.Body!).alertId);
    expect(requests).toEqual([alerts[0]!.alertId]);
  });
});
