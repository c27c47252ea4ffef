import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import type { Emulators } from '../../infra/local/emulators';
import { bumpZoneSet, loadVehicleStates, loadVehicleState } from '../../shared/store/vehicle-state-store';
import { RuleCache } from '../../shared/pipeline/rule-cache';
import { resourcesConfig } from '../../shared/config';
import { countDynamoRequests } from '../support/count-requests';
import { queryVisits } from '../../shared/store/visits-store';
import { startTestEmulators } from '../support/emulators';
import { alertsInTable, invoke, registerVehicles, sqsRecord, storeCircleZone, T0, terminalMessage } from './support';

/** The visit journal through the real evaluate handler on DynamoDB Local: vehicles without any rule. */
const CLIENT_A = '1a2b3c4d-0000-4000-8000-00000000000a';
const CLIENT_B = '1a2b3c4d-0000-4000-8000-00000000000b';
const OUTSIDE = { latitude: 55.7, longitude: 37.5 };
const IN_A = { latitude: 55.75, longitude: 37.62 };
const IN_B = { latitude: 55.75, longitude: 37.7 };

function zoneOf(parentId: string, name: string, center: { latitude: number; longitude: number }) {
  return storeCircleZone({ parentId, name, center, radius: 300 });
}

const visitsOf = (vehicleId: number) => queryVisits({ kind: 'vehicle', vehicleId }, '2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z');
const at = (vehicleId: number, second: number, where: { latitude: number; longitude: number }, parameters: Record<string, string> = {}) =>
  sqsRecord(terminalMessage(vehicleId, second, 40, { ...where, parameters }));

describe('visit journal in evaluate', () => {
  let emulators: Emulators;
  let zoneA: { id: number };
  let zoneB: { id: number };
  const handler = createEvaluateHandler({ clock: () => T0 + 3_600_000 });

  beforeAll(async () => {
    emulators = await startTestEmulators('pipeline-visits');
    zoneA = await zoneOf(CLIENT_A, 'Depot A', IN_A);
    zoneB = await zoneOf(CLIENT_B, 'Depot B', IN_B);
  });
  afterAll(async () => emulators.stop());

  it('records an open visit at the entry and completes it at the exit, for a vehicle no rule watches', async () => {
    await registerVehicles([7001], [CLIENT_A]);
    const entering = [at(7001, 0, OUTSIDE), at(7001, 30, IN_A, { mileage: '1000.0' })];
    expect(await invoke(handler, entering)).toEqual({ batchItemFailures: [] });
    let visits = await visitsOf(7001);
    expect(visits).toHaveLength(1);
    expect(visits[0]).toMatchObject({ zoneId: zoneA.id, startDate: new Date(T0 + 30_000).toISOString(), entryLatitude: IN_A.latitude });
    expect(visits[0]!.endDate).toBeUndefined();
    expect((await loadVehicleState(7001)).state?.visits?.open[String(zoneA.id)]).toMatchObject({ mileage: 1000 });

    // the same batch again: no second visit, nothing changed
    expect(await invoke(handler, entering)).toEqual({ batchItemFailures: [] });
    expect(await visitsOf(7001)).toEqual(visits);

    // inside zone B's place, which belongs to another client: nothing recorded for it
    const leaving = [
      at(7001, 90, IN_A, { mileage: '1000.2' }),
      at(7001, 150, IN_B, { mileage: '1005.2' }),
      at(7001, 200, OUTSIDE, { mileage: '1010' }),
    ];
    expect(await invoke(handler, leaving)).toEqual({ batchItemFailures: [] });
    visits = await visitsOf(7001);
    expect(visits).toHaveLength(1);
    expect(visits[0]).toMatchObject({
      zoneId: zoneA.id,
      endDate: new Date(T0 + 150_000).toISOString(),
      duration: 120,
      // odometer difference from entry to exit, km → m
      distance: 5200,
      exitLatitude: IN_B.latitude,
    });
    expect((await loadVehicleState(7001)).state?.visits).toBeUndefined();
    expect((await alertsInTable()).filter((alert) => alert.vehicleId === 7001)).toEqual([]);
  });

  it('measures the path through the stored positions when there is no odometer', async () => {
    await registerVehicles([7002], [CLIENT_A]);
    await invoke(handler, [at(7002, 0, OUTSIDE), at(7002, 10, IN_A)]);
    await invoke(handler, [at(7002, 20, { latitude: 55.751, longitude: 37.62 }), at(7002, 30, OUTSIDE)]);
    const [visit] = await visitsOf(7002);
    expect(visit?.endDate).toBe(new Date(T0 + 30_000).toISOString());
    // the position at 20 s was not stored (no write worth it), so the path is entry → exit: a lower bound
    const direct =
      6_371_008.8 *
      Math.acos(
        Math.sin((55.75 * Math.PI) / 180) * Math.sin((55.7 * Math.PI) / 180) +
          Math.cos((55.75 * Math.PI) / 180) * Math.cos((55.7 * Math.PI) / 180) * Math.cos((0.12 * Math.PI) / 180),
      );
    expect(visit?.distance).toBeCloseTo(direct, -1);
  });

  it('writes nothing for a vehicle that stays out of its owners zones', async () => {
    await registerVehicles([7003], [CLIENT_A]);
    const before = await loadVehicleState(7003);
    await invoke(handler, [at(7003, 0, OUTSIDE), at(7003, 30, IN_B), at(7003, 60, OUTSIDE)]);
    const after = await loadVehicleState(7003);
    expect(after.version).toBe(before.version);
    expect(await visitsOf(7003)).toEqual([]);
  });

  it("switches to the new owner's zones when the vehicle moves to another client", async () => {
    await registerVehicles([7004], [CLIENT_A]);
    await invoke(handler, [at(7004, 0, OUTSIDE)]);
    await registerVehicles([7004], [CLIENT_B]);
    await invoke(handler, [at(7004, 30, IN_A), at(7004, 60, OUTSIDE), at(7004, 90, IN_B)]);
    const visits = await visitsOf(7004);
    expect(visits.map((visit) => visit.zoneId)).toEqual([zoneB.id]);
    expect(visits[0]).toMatchObject({ startDate: new Date(T0 + 90_000).toISOString() });
  });

  it('journals the zones of the clients above the owner too', async () => {
    await registerVehicles([7005], [CLIENT_B, CLIENT_A]);
    await invoke(handler, [at(7005, 0, IN_A), at(7005, 30, IN_B)]);
    const visits = await visitsOf(7005);
    expect(visits.map((visit) => [visit.zoneId, visit.endDate !== undefined])).toEqual([
      [zoneA.id, true],
      [zoneB.id, false],
    ]);
  });

  it("reads a client's zones once per zone-set version, and only for messages (the sweep never queries them)", async () => {
    await registerVehicles([7006, 7007], [CLIENT_A]);
    const loaded = await loadVehicleStates([7006, 7007], { consistent: true });
    const cache = new RuleCache();
    const counter = countDynamoRequests();
    // the client's maintenance silences are read too, once for the three calls (a Query of the directory)
    const geozoneRequests = () =>
      Object.fromEntries(Object.entries(counter.byTable()).filter(([key]) => !key.endsWith(` ${resourcesConfig().DIRECTORY_TABLE}`)));
    try {
      expect((await cache.resolve(loaded, T0)).get(7006)?.journal).toBeUndefined();
      expect(geozoneRequests()).toEqual({});
      const first = await cache.resolve(loaded, T0, { journal: true });
      expect(first.get(7006)?.journal?.zoneIds).toEqual([zoneA.id]);
      const zoneQuery = `Query ${resourcesConfig().GEOZONES_TABLE}`;
      expect(geozoneRequests()).toEqual({ [zoneQuery]: 1 });
      // the zone came with the Query: a rule using it needs no read by id, and a second batch reads nothing
      await cache.resolve(loaded, T0, { journal: true });
      expect(geozoneRequests()).toEqual({ [zoneQuery]: 1 });
      expect(counter.forTable(resourcesConfig().GEOZONES_TABLE)).toBe(1);
      expect(counter.forTable(resourcesConfig().DIRECTORY_TABLE)).toBe(1);
    } finally {
      counter.detach();
    }
  });

  it('moves a zone-set version only forward, and only for a client of the chain', async () => {
    await registerVehicles([7008], [CLIENT_A]);
    const stamped = (await loadVehicleState(7008)).projection.zoneSets![CLIENT_A]!;
    expect(await bumpZoneSet(7008, CLIENT_A, stamped - 1)).toBe(false);
    expect(await bumpZoneSet(7008, CLIENT_B, stamped + 10)).toBe(false);
    expect(await bumpZoneSet(7008, CLIENT_A, stamped + 10)).toBe(true);
    const item = await loadVehicleState(7008);
    expect(item.projection.zoneSets).toEqual({ [CLIENT_A]: stamped + 10 });
  });
});
