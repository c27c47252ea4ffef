import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/clients';
import type { Geozone } from '../../shared/schemas/geozone';
import { buildVisitItem, visitsTable } from '../../shared/store/visits-store';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { TestClock, login, seedTenants, session, typedApiClient, type JsonBody, type TypedApi } from './support';
import { storeCircleZone } from '../pipeline/support';

/** POST /api/v3/gis/intersections/{vehicles,geozones} over visits stored as evaluation stores them. */
const day = '2026-02-10';
const time = (hhmmss: string) => `${day}T${hhmmss}.000Z`;
const WINDOW = { startDate: time('09:00:00'), endDate: time('12:00:00') };
const P1 = { latitude: 55.7, longitude: 37.6 };
/** About 44.5 m north of P1. */
const P2 = { latitude: 55.7004, longitude: 37.6 };

describe('geozone intersections API', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let api: TypedApi;
  const tokens = { root: '', child: '', sibling: '' };
  const zones = {} as Record<'root' | 'child' | 'sibling', Geozone>;

  async function visit(vehicleId: number, zone: Geozone, start: string, end?: string, distance?: number, entry = P1, exit = P1) {
    const record = {
      zoneId: zone.id,
      startDate: start,
      entry,
      ...(end ? { endDate: end, exit, duration: (Date.parse(end) - Date.parse(start)) / 1000, distance } : {}),
    };
    await documentClient().send(new PutCommand({ TableName: visitsTable(), Item: buildVisitItem(vehicleId, record, Date.parse(start)) }));
  }

  // the bodies include ones the API must refuse: the API checks them, not the compiler
  const post = (token: string, kind: 'vehicles' | 'geozones', body: object) => {
    const init = { headers: session(token), body: { ...WINDOW, ...body } as JsonBody<'findVisitsOfVehicles' | 'findVisitsOfGeozones'> };
    return kind === 'vehicles' ? api.POST('/api/v3/gis/intersections/vehicles', init) : api.POST('/api/v3/gis/intersections/geozones', init);
  };
  const starts = (result: { data?: { startDate: string }[] }) => result.data!.map((row) => row.startDate.slice(11, 19));

  beforeAll(async () => {
    emulators = await startTestEmulators('api-intersections');
    tenants = await seedTenants('intersections');
    api = typedApiClient({ now: new TestClock(Date.parse(time('12:30:00'))).now });
    for (const name of ['root', 'child', 'sibling'] as const) {
      tokens[name] = await login(api, tenants[name]);
      zones[name] = await storeCircleZone({
        parentId: tenants[name].agentId,
        name: `${name} yard`,
        center: { latitude: 55.7, longitude: 37.6 },
        radius: 159,
        createDate: time('00:00:00'),
      });
    }
    // vehicle 101 (root)
    await visit(101, zones.root, '2026-02-10T08:00:00.000Z', '2026-02-10T08:30:00.000Z', 900); // ended before the window
    await visit(101, zones.child, time('08:00:00'), time('09:30:00'), 600); // overlaps the window's start
    await visit(101, zones.root, time('10:00:00'), time('10:10:00'), 800, P2, P1);
    await visit(101, zones.root, time('10:12:00'), time('10:20:00'), 100, P2, P1); // 120 s and 44.5 m after the previous
    await visit(101, zones.root, time('11:00:00'), time('11:00:30'), 10, { latitude: 55.701, longitude: 37.6 }); // 30 s, 40 min and 111 m after
    await visit(101, zones.sibling, time('10:30:00'), time('10:40:00'), 700); // a zone of another tenant
    await visit(101, zones.child, time('11:30:00')); // still inside
    await visit(101, zones.root, time('12:00:00'), time('12:10:00'), 800); // starts at the window's end
    // vehicle 202 (sibling) in root's zone
    await visit(202, zones.root, time('10:05:00'), time('10:06:00'), 100);
  });
  afterAll(async () => emulators.stop());

  it('answers the visits of the vehicles, overlapping the window, in the fields of the platform', async () => {
    const response = await post(tokens.root, 'vehicles', { ids: [101] });
    expect(response.response.status).toBe(200);
    expect(starts(response)).toEqual(['08:00:00', '10:00:00', '10:12:00', '11:00:00', '11:30:00']);
    expect(response.data![1]).toEqual({
      geozoneId: zones.root.id,
      geozoneName: 'root yard',
      startDate: time('10:00:00'),
      endDate: time('10:10:00'),
      duration: 600,
      vehicleId: 101,
      vehicleName: 'Truck 101',
    });
    // an open visit: endDate null, duration counted up to endDate of the query
    expect(response.data![4]).toMatchObject({ geozoneId: zones.child.id, endDate: null, duration: 1800 });
  });

  it('answers the visits of the zones, only by vehicles of the scope', async () => {
    const response = await post(tokens.root, 'geozones', { ids: [zones.root.id] });
    expect(response.response.status).toBe(200);
    expect(response.data?.map((row) => row.vehicleId)).toEqual([101, 101, 101]);
    expect(starts(response)).toEqual(['10:00:00', '10:12:00', '11:00:00']);
    // the sibling sees its own zone, but not root's vehicle in it, nor root's zone
    expect((await post(tokens.sibling, 'geozones', { ids: [zones.sibling.id] })).data).toEqual([]);
  });

  it("answers 404 alike for unknown ids and other tenants' vehicles and zones", async () => {
    const foreignVehicle = await post(tokens.root, 'vehicles', { ids: [101, 202] });
    const unknownVehicle = await post(tokens.root, 'vehicles', { ids: [101, 999] });
    expect(foreignVehicle.response.status).toBe(404);
    expect(unknownVehicle.response.status).toBe(404);
    expect(foreignVehicle.error?.message).toBe('vehicle 202 not found');
    expect(unknownVehicle.error?.message).toBe('vehicle 999 not found');
    expect((await post(tokens.child, 'vehicles', { ids: [101] })).response.status).toBe(404);
    expect((await post(tokens.root, 'geozones', { ids: [zones.sibling.id] })).response.status).toBe(404);
    expect((await post(tokens.root, 'geozones', { ids: [987_654] })).response.status).toBe(404);
    expect((await post(tokens.child, 'geozones', { ids: [zones.root.id] })).response.status).toBe(404);
  });

  it('merges by time (s) and by distance (m), both when both are given', async () => {
    const merged = await post(tokens.root, 'geozones', { ids: [zones.root.id], byTime: 180 });
    expect(starts(merged)).toEqual(['10:00:00', '11:00:00']);
    expect(merged.data![0]).toMatchObject({ endDate: time('10:20:00'), duration: 1200 });
    expect(starts(await post(tokens.root, 'geozones', { ids: [zones.root.id], byTime: 120 }))).toEqual(['10:00:00', '10:12:00', '11:00:00']);
    expect(starts(await post(tokens.root, 'geozones', { ids: [zones.root.id], byDist: 50 }))).toEqual(['10:00:00', '11:00:00']);
    expect(starts(await post(tokens.root, 'geozones', { ids: [zones.root.id], byDist: 40 }))).toEqual(['10:00:00', '10:12:00', '11:00:00']);
    expect(starts(await post(tokens.root, 'geozones', { ids: [zones.root.id], byTime: 180, byDist: 40 }))).toEqual([
      '10:00:00',
      '10:12:00',
      '11:00:00',
    ]);
  });

  it('filters by duration (s) and by half the perimeter', async () => {
    expect(starts(await post(tokens.root, 'vehicles', { ids: [101], filterByTime: 60 }))).toEqual(['08:00:00', '10:00:00', '10:12:00', '11:30:00']);
    expect(starts(await post(tokens.root, 'vehicles', { ids: [101], filterByTime: 1801 }))).toEqual(['08:00:00']);
    // distances 600, 800, 100, 10 m against half of 1,000 m; the open visit is kept
    expect(starts(await post(tokens.root, 'vehicles', { ids: [101], filterByHalfPerimeter: true }))).toEqual(['08:00:00', '10:00:00', '11:30:00']);
    // merged first (800 + 100 m), then filtered
    expect(starts(await post(tokens.root, 'geozones', { ids: [zones.root.id], byTime: 180, filterByHalfPerimeter: true }))).toEqual(['10:00:00']);
  });

  it('refuses malformed requests with 400 and the issues', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ids: [101], endDate: WINDOW.startDate }, 'endDate'],
      [{ ids: [101], endDate: '2026-03-14T09:00:00.000Z' }, 'endDate'],
      [{ ids: [] }, 'ids'],
      [{ ids: Array.from({ length: 101 }, (_, index) => index + 1) }, 'ids'],
      [{ ids: [1.5] }, 'ids.0'],
      [{ ids: [101], byTime: -1 }, 'byTime'],
      [{ ids: [101], byDist: '50' }, 'byDist'],
      [{ ids: [101], filterByTime: -5 }, 'filterByTime'],
      [{ ids: [101], filterByHalfPerimeter: 'yes' }, 'filterByHalfPerimeter'],
      [{ ids: [101], startDate: 'yesterday' }, 'startDate'],
    ];
    for (const [body, path] of cases) {
      const response = await post(tokens.root, 'vehicles', body);
      expect(response.response.status, JSON.stringify(body)).toBe(400);
      expect(
        response.error?.issues?.map((issue) => issue.path),
        JSON.stringify(body),
      ).toContain(path);
    }
  });
});
