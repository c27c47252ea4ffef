import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { TestClock, login, ruleBody, seedTenants, session, depotZoneBody, typedApiClient, type JsonBody, type TypedApi } from './support';

describe('geozones', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  const clock = new TestClock();
  let api: TypedApi;
  const tokens = { root: '', child: '', sibling: '', readOnly: '' };
  // the bodies include shapes and fields the API must refuse or ignore: the API checks them, not the compiler
  const createZone = (token: string, body: object) => api.POST('/api/v3/gis', { headers: session(token), body: body as JsonBody<'createGeozone'> });
  const replaceZone = (token: string, body: object, headers: Record<string, string> = {}) =>
    api.PUT('/api/v3/gis', { headers: { ...session(token), ...headers }, body: body as JsonBody<'replaceGeozone'> });
  const readZone = (token: string, id: number) => api.GET('/api/v3/gis/{id}', { headers: session(token), params: { path: { id } } });
  const deleteZone = (token: string, id: number, headers: Record<string, string> = {}) =>
    api.DELETE('/api/v3/gis/{id}', { headers: { ...session(token), ...headers }, params: { path: { id } } });
  const findZones = (token: string, parentId: string) => api.POST('/api/v3/gis/find', { headers: session(token), body: { parentId } });

  beforeAll(async () => {
    emulators = await startTestEmulators('api-geozones');
    tenants = await seedTenants('zones');
    api = typedApiClient({ now: clock.now });
    for (const name of ['root', 'child', 'sibling', 'readOnly'] as const) tokens[name] = await login(api, tenants[name]);
  });
  afterAll(async () => emulators.stop());

  it('creates a polygon with computed area and perimeter, whatever the input says', async () => {
    const created = await createZone(tokens.root, { ...depotZoneBody(tenants.root.agentId), area: 1, perimetr: 1 });
    expect(created.response.status).toBe(200);
    // 0.01° × 0.01° at 55.7° N: about 627 m × 1112 m
    expect(created.data!.area).toBeGreaterThan(690_000);
    expect(created.data!.area).toBeLessThan(710_000);
    expect(created.data!.perimetr).toBeGreaterThan(3_450);
    expect(created.data!.perimetr).toBeLessThan(3_500);
    expect(created.data).toMatchObject({
      id: expect.any(Number),
      name: 'Depot',
      type: 'polygon',
      radius: null,
      createDate: new Date(clock.value).toISOString(),
    });
  });

  it('creates a circle: area πr², perimeter 2πr', async () => {
    const created = await createZone(tokens.root, {
      name: 'Yard',
      type: 'circle',
      parentId: tenants.root.agentId,
      radius: 100,
      geometry: { type: 'Point', coordinates: [37.6, 55.7] },
    });
    expect(created.response.status).toBe(200);
    expect(created.data!.area).toBeCloseTo(Math.PI * 100 * 100, 1);
    expect(created.data!.perimetr).toBeCloseTo(2 * Math.PI * 100, 1);
  });

  it('answers 400 for invalid geometry, 404 for a foreign client, 403 for read-only users', async () => {
    const open = await createZone(
      tokens.root,
      depotZoneBody(tenants.root.agentId, {
        geometry: {
          type: 'Polygon',
          coordinates: [
            [
              [0, 0],
              [1, 0],
              [1, 1],
              [0, 1],
            ],
          ],
        },
      }),
    );
    expect(open.response.status).toBe(400);
    expect(open.error?.issues?.[0]?.path).toMatch(/^geometry/);
    const circleWithoutRadius = await createZone(tokens.root, depotZoneBody(tenants.root.agentId, { type: 'circle' }));
    expect(circleWithoutRadius.response.status).toBe(400);
    expect((await createZone(tokens.root, depotZoneBody(tenants.sibling.agentId))).response.status).toBe(404);
    expect((await createZone(tokens.readOnly, depotZoneBody(tenants.root.agentId))).response.status).toBe(403);
  });

  it('answers 400 for a polygon across the antimeridian and for a circle across it or over a pole', async () => {
    const ring = [
      [179.5, 10],
      [-179.5, 10],
      [-179.5, 11],
      [179.5, 11],
      [179.5, 10],
    ];
    const across = await createZone(tokens.root, depotZoneBody(tenants.root.agentId, { geometry: { type: 'Polygon', coordinates: [ring] } }));
    expect(across.response.status).toBe(400);
    expect(across.error?.issues).toEqual([{ path: 'geometry.coordinates.0', message: expect.stringMatching(/antimeridian/) }]);
    const multi = await createZone(tokens.root, depotZoneBody(tenants.root.agentId, { geometry: { type: 'MultiPolygon', coordinates: [[ring]] } }));
    expect(multi.error?.issues).toEqual([{ path: 'geometry.coordinates.0.0', message: expect.stringMatching(/antimeridian/) }]);
    const circle = (lon: number, lat: number, radius: number) =>
      createZone(tokens.root, depotZoneBody(tenants.root.agentId, { type: 'circle', radius, geometry: { type: 'Point', coordinates: [lon, lat] } }));
    const dateLine = await circle(179.99, 0, 5_000);
    expect(dateLine.response.status).toBe(400);
    expect(dateLine.error?.issues).toEqual([{ path: 'radius', message: expect.stringMatching(/antimeridian/) }]);
    const pole = await circle(0, 89.99, 5_000);
    expect(pole.error?.issues).toEqual([{ path: 'radius', message: expect.stringMatching(/pole/) }]);
    // the same shapes clear of the line and the pole are fine
    expect((await circle(179.9, 0, 5_000)).response.status).toBe(200);
    expect((await circle(0, 89.9, 5_000)).response.status).toBe(200);
    const east = [
      [179, 10],
      [180, 10],
      [180, 11],
      [179, 11],
      [179, 10],
    ];
    const west = [
      [-180, 10],
      [-179, 10],
      [-179, 11],
      [-180, 11],
      [-180, 10],
    ];
    expect(
      (await createZone(tokens.root, depotZoneBody(tenants.root.agentId, { geometry: { type: 'MultiPolygon', coordinates: [[east], [west]] } })))
        .response.status,
    ).toBe(200);
  });

  it('stores every zone it accepts: coordinates rounded to 7 decimals, measures to 2, a radius of at least 1 m', async () => {
    // DynamoDB stores no number of magnitude below 1e-130
    const tiny = 1e-131;
    const ring = [
      [tiny, -tiny],
      [37.123456789, -tiny],
      [37.123456789, 0.01],
      [tiny, 0.01],
      [tiny, -tiny],
    ];
    const polygon = await createZone(tokens.root, depotZoneBody(tenants.root.agentId, { geometry: { type: 'Polygon', coordinates: [ring] } }));
    expect(polygon.response.status).toBe(200);
    const rounded = [
      [0, 0],
      [37.1234568, 0],
      [37.1234568, 0.01],
      [0, 0.01],
      [0, 0],
    ];
    expect(polygon.data!.geometry.coordinates).toEqual([rounded]);
    const read = await readZone(tokens.root, polygon.data!.id);
    expect(read.data!.geometry.coordinates).toEqual([rounded]);
    for (const measure of [read.data!.area, read.data!.perimetr]) expect(Math.round(measure * 100) / 100).toBe(measure);

    const circle = (radius: number, centre = [tiny, 55.7]) =>
      createZone(tokens.root, depotZoneBody(tenants.root.agentId, { type: 'circle', radius, geometry: { type: 'Point', coordinates: centre } }));
    for (const radius of [1e-300, 0.5]) {
      const refused = await circle(radius);
      expect(refused.response.status, String(radius)).toBe(400);
      expect(refused.error?.issues?.map((issue) => issue.path)).toEqual(['radius']);
    }
    const smallest = await circle(1);
    expect(smallest.response.status).toBe(200);
    expect(smallest.data!.geometry.coordinates).toEqual([0, 55.7]);
    expect(smallest.data).toMatchObject({ radius: 1, area: 3.14, perimetr: 6.28 });
  });

  it('lists the zones of a client and below with the platform fields', async () => {
    const childZone = (await createZone(tokens.child, depotZoneBody(tenants.child.agentId, { name: 'Child yard' }))).data!;
    const list = await findZones(tokens.root, tenants.root.agentId);
    expect(list.response.status).toBe(200);
    const entry = list.data!.find((zone) => zone.id === childZone.id);
    expect(entry).toEqual({
      id: childZone.id,
      name: 'Child yard',
      type: 'polygon',
      fname: null,
      parentId: tenants.child.agentId,
      radius: null,
      beginCalc: null,
      endCalc: null,
      description: 'main depot',
      area: childZone.area,
      perimetr: childZone.perimetr,
      createDate: childZone.createDate,
    });
    const fromChild = await findZones(tokens.child, tenants.child.agentId);
    expect(fromChild.data!.every((zone) => zone.parentId === tenants.child.agentId)).toBe(true);
    expect((await findZones(tokens.child, tenants.root.agentId)).response.status).toBe(404);
  });

  it('reads a zone with its geometry; 404 for unknown ids', async () => {
    const zone = (await createZone(tokens.root, depotZoneBody(tenants.root.agentId))).data!;
    const read = await readZone(tokens.readOnly, zone.id);
    expect(read.response.status).toBe(200);
    expect(read.data).toEqual(zone);
    expect((await readZone(tokens.root, 987654)).response.status).toBe(404);
    expect((await readZone(tokens.root, 0)).response.status).toBe(400);
  });

  it('replaces a zone, recomputing its measures and keeping its creation date', async () => {
    const zone = (await createZone(tokens.root, depotZoneBody(tenants.root.agentId))).data!;
    clock.advance(60_000);
    const replaced = await replaceZone(tokens.root, {
      id: zone.id,
      name: 'Big yard',
      type: 'circle',
      parentId: tenants.root.agentId,
      radius: 50,
      geometry: { type: 'Point', coordinates: [37.6, 55.7] },
    });
    expect(replaced.response.status).toBe(200);
    expect(replaced.data).toMatchObject({ id: zone.id, name: 'Big yard', description: '', createDate: zone.createDate });
    expect(replaced.data!.area).toBeCloseTo(Math.PI * 2_500, 1);
    expect((await readZone(tokens.root, zone.id)).data).toEqual(replaced.data);
    expect((await replaceZone(tokens.root, { ...depotZoneBody(tenants.root.agentId), id: 987654 })).response.status).toBe(404);
    expect((await replaceZone(tokens.root, { ...depotZoneBody(tenants.sibling.agentId), id: zone.id })).response.status).toBe(404);
    expect((await replaceZone(tokens.readOnly, { ...depotZoneBody(tenants.root.agentId), id: zone.id })).response.status).toBe(403);
  });

  it('versions zones: ETag on read and write, 409 for a stale version in the body or If-Match, one winner of two concurrent replaces', async () => {
    const created = await createZone(tokens.root, depotZoneBody(tenants.root.agentId));
    expect(created.data!.version).toBe(1);
    expect(created.response.headers.get('ETag')).toBe('"1"');
    const zone = created.data!;
    const { createDate: _createDate, area: _area, perimetr: _perimetr, ...body } = zone;
    const first = await replaceZone(tokens.root, { ...body, name: 'one' });
    expect(first.response.status).toBe(200);
    expect(first.data!.version).toBe(2);
    expect(first.response.headers.get('ETag')).toBe('"2"');
    expect((await readZone(tokens.root, zone.id)).response.headers.get('ETag')).toBe('"2"');

    const stale = await replaceZone(tokens.root, { ...body, name: 'two' });
    expect(stale.response.status).toBe(409);
    expect(stale.error?.message).toContain('version 2, not 1');
    const { version: _version, ...unversioned } = body;
    const staleHeader = await replaceZone(tokens.root, unversioned, { 'If-Match': '"1"' });
    expect(staleHeader.response.status).toBe(409);
    expect((await readZone(tokens.root, zone.id)).data!.name).toBe('one');

    const [a, b] = await Promise.all(['a', 'b'].map((name) => replaceZone(tokens.root, { ...unversioned, name, version: 2 })));
    expect([a!.response.status, b!.response.status].sort()).toEqual([200, 409]);
    const winner = a!.response.status === 200 ? 'a' : 'b';
    expect((await readZone(tokens.root, zone.id)).data).toMatchObject({ name: winner, version: 3 });

    expect((await deleteZone(tokens.root, zone.id, { 'If-Match': '"2"' })).response.status).toBe(409);
    expect((await deleteZone(tokens.root, zone.id, { 'If-Match': '"3"' })).response.status).toBe(200);
  });

  it('refuses to delete a zone a rule refers to (409), deletes it once the rule lets go', async () => {
    const zone = (await createZone(tokens.root, depotZoneBody(tenants.root.agentId))).data!;
    const rule = (
      await api.POST('/api/v3/notifications', {
        headers: session(tokens.root),
        body: ruleBody(tenants.root.agentId, { type: 0, geoids: [zone.id], settings: {} }) as JsonBody<'createNotificationRule'>,
      })
    ).data!;
    const refused = await deleteZone(tokens.root, zone.id);
    expect(refused.response.status).toBe(409);
    expect(refused.error?.message).toContain(`ids ${rule.id}`);
    const released = await api.PUT('/api/v3/notifications', {
      headers: session(tokens.root),
      body: { ...rule, type: 2, geoids: [], settings: { limit: '90' } },
    });
    expect(released.response.status).toBe(200);
    const deleted = await deleteZone(tokens.root, zone.id);
    expect(deleted.response.status).toBe(200);
    expect(deleted.data).toBe('Success');
    expect((await readZone(tokens.root, zone.id)).response.status).toBe(404);
    expect((await deleteZone(tokens.root, zone.id)).response.status).toBe(404);
  });

  it('answers 404 on every endpoint to a user of a sibling client, and 403 to read-only users on changes', async () => {
    const zone = (await createZone(tokens.child, depotZoneBody(tenants.child.agentId))).data!;
    const attempts = [
      await readZone(tokens.sibling, zone.id),
      await replaceZone(tokens.sibling, { ...depotZoneBody(tenants.sibling.agentId), id: zone.id }),
      await deleteZone(tokens.sibling, zone.id),
      await findZones(tokens.sibling, tenants.child.agentId),
    ];
    expect(attempts.map((attempt) => attempt.response.status)).toEqual([404, 404, 404, 404]);
    expect((await deleteZone(tokens.readOnly, zone.id)).response.status).toBe(403);
    expect((await readZone(tokens.child, zone.id)).response.status).toBe(200);
  });
});
