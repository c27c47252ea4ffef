import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { TestClock, apiClient, login, ruleBody, seedTenants, squareZone, type Api } from './support';

describe('geozones', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  const clock = new TestClock();
  let api: Api;
  const tokens = { root: '', child: '', sibling: '', readOnly: '' };
  const createZone = (token: string, body: Record<string, unknown>) => api({ method: 'POST', path: '/api/v3/gis', token, body });

  beforeAll(async () => {
    emulators = await startTestEmulators('api-geozones');
    tenants = await seedTenants('zones');
    api = apiClient({ now: clock.now });
    for (const name of ['root', 'child', 'sibling', 'readOnly'] as const) tokens[name] = await login(api, tenants[name]);
  });
  afterAll(async () => emulators.stop());

  it('creates a polygon with computed area and perimeter, whatever the input says', async () => {
    const response = await createZone(tokens.root, { ...squareZone(tenants.root.agentId), area: 1, perimetr: 1 });
    expect(response.status).toBe(200);
    // 0.01° × 0.01° at 55.7° N: about 627 m × 1112 m
    expect(response.body.area).toBeGreaterThan(690_000);
    expect(response.body.area).toBeLessThan(710_000);
    expect(response.body.perimetr).toBeGreaterThan(3_450);
    expect(response.body.perimetr).toBeLessThan(3_500);
    expect(response.body).toMatchObject({
      id: expect.any(Number),
      name: 'Depot',
      type: 'polygon',
      radius: null,
      createDate: new Date(clock.value).toISOString(),
    });
  });

  it('creates a circle: area πr², perimeter 2πr', async () => {
    const response = await createZone(tokens.root, {
      name: 'Yard',
      type: 'circle',
      parentId: tenants.root.agentId,
      radius: 100,
      geometry: { type: 'Point', coordinates: [37.6, 55.7] },
    });
    expect(response.status).toBe(200);
    expect(response.body.area).toBeCloseTo(Math.PI * 100 * 100, 1);
    expect(response.body.perimetr).toBeCloseTo(2 * Math.PI * 100, 1);
  });

  it('answers 400 for invalid geometry, 404 for a foreign client, 403 for read-only users', async () => {
    const open = await createZone(
      tokens.root,
      squareZone(tenants.root.agentId, {
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
    expect(open.status).toBe(400);
    expect(open.body.issues[0].path).toMatch(/^geometry/);
    const circleWithoutRadius = await createZone(tokens.root, squareZone(tenants.root.agentId, { type: 'circle' }));
    expect(circleWithoutRadius.status).toBe(400);
    expect((await createZone(tokens.root, squareZone(tenants.sibling.agentId))).status).toBe(404);
    expect((await createZone(tokens.readOnly, squareZone(tenants.root.agentId))).status).toBe(403);
  });

  it('answers 400 for a polygon across the antimeridian and for a circle across it or over a pole', async () => {
    const ring = [
      [179.5, 10],
      [-179.5, 10],
      [-179.5, 11],
      [179.5, 11],
      [179.5, 10],
    ];
    const across = await createZone(tokens.root, squareZone(tenants.root.agentId, { geometry: { type: 'Polygon', coordinates: [ring] } }));
    expect(across.status).toBe(400);
    expect(across.body.issues).toEqual([{ path: 'geometry.coordinates.0', message: expect.stringMatching(/antimeridian/) }]);
    const multi = await createZone(tokens.root, squareZone(tenants.root.agentId, { geometry: { type: 'MultiPolygon', coordinates: [[ring]] } }));
    expect(multi.body.issues).toEqual([{ path: 'geometry.coordinates.0.0', message: expect.stringMatching(/antimeridian/) }]);
    const circle = (lon: number, lat: number, radius: number) =>
      createZone(tokens.root, squareZone(tenants.root.agentId, { type: 'circle', radius, geometry: { type: 'Point', coordinates: [lon, lat] } }));
    const dateLine = await circle(179.99, 0, 5_000);
    expect(dateLine.status).toBe(400);
    expect(dateLine.body.issues).toEqual([{ path: 'radius', message: expect.stringMatching(/antimeridian/) }]);
    const pole = await circle(0, 89.99, 5_000);
    expect(pole.body.issues).toEqual([{ path: 'radius', message: expect.stringMatching(/pole/) }]);
    // the same shapes clear of the line and the pole are fine
    expect((await circle(179.9, 0, 5_000)).status).toBe(200);
    expect((await circle(0, 89.9, 5_000)).status).toBe(200);
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
      (await createZone(tokens.root, squareZone(tenants.root.agentId, { geometry: { type: 'MultiPolygon', coordinates: [[east], [west]] } }))).status,
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
    const polygon = await createZone(tokens.root, squareZone(tenants.root.agentId, { geometry: { type: 'Polygon', coordinates: [ring] } }));
    expect(polygon.status).toBe(200);
    const rounded = [
      [0, 0],
      [37.1234568, 0],
      [37.1234568, 0.01],
      [0, 0.01],
      [0, 0],
    ];
    expect(polygon.body.geometry.coordinates).toEqual([rounded]);
    const read = await api({ method: 'GET', path: `/api/v3/gis/${polygon.body.id}`, token: tokens.root });
    expect(read.body.geometry.coordinates).toEqual([rounded]);
    for (const measure of [read.body.area, read.body.perimetr]) expect(Math.round(measure * 100) / 100).toBe(measure);

    const circle = (radius: number, centre = [tiny, 55.7]) =>
      createZone(tokens.root, squareZone(tenants.root.agentId, { type: 'circle', radius, geometry: { type: 'Point', coordinates: centre } }));
    for (const radius of [1e-300, 0.5]) {
      const refused = await circle(radius);
      expect(refused.status, String(radius)).toBe(400);
      expect(refused.body.issues.map((issue: { path: string }) => issue.path)).toEqual(['radius']);
    }
    const smallest = await circle(1);
    expect(smallest.status).toBe(200);
    expect(smallest.body.geometry.coordinates).toEqual([0, 55.7]);
    expect(smallest.body).toMatchObject({ radius: 1, area: 3.14, perimetr: 6.28 });
  });

  it('lists the zones of a client and below with the platform fields', async () => {
    const childZone = (await createZone(tokens.child, squareZone(tenants.child.agentId, { name: 'Child yard' }))).body;
    const list = await api({ method: 'POST', path: '/api/v3/gis/find', token: tokens.root, body: { parentId: tenants.root.agentId } });
    expect(list.status).toBe(200);
    const entry = list.body.find((zone: { id: number }) => zone.id === childZone.id);
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
    const fromChild = await api({ method: 'POST', path: '/api/v3/gis/find', token: tokens.child, body: { parentId: tenants.child.agentId } });
    expect(fromChild.body.every((zone: { parentId: string }) => zone.parentId === tenants.child.agentId)).toBe(true);
    expect((await api({ method: 'POST', path: '/api/v3/gis/find', token: tokens.child, body: { parentId: tenants.root.agentId } })).status).toBe(404);
  });

  it('reads a zone with its geometry; 404 for unknown ids', async () => {
    const zone = (await createZone(tokens.root, squareZone(tenants.root.agentId))).body;
    const read = await api({ method: 'GET', path: `/api/v3/gis/${zone.id}`, token: tokens.readOnly });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(zone);
    expect((await api({ method: 'GET', path: '/api/v3/gis/987654', token: tokens.root })).status).toBe(404);
    expect((await api({ method: 'GET', path: '/api/v3/gis/0', token: tokens.root })).status).toBe(400);
  });

  it('replaces a zone, recomputing its measures and keeping its creation date', async () => {
    const zone = (await createZone(tokens.root, squareZone(tenants.root.agentId))).body;
    clock.advance(60_000);
    const replaced = await api({
      method: 'PUT',
      path: '/api/v3/gis',
      token: tokens.root,
      body: {
        id: zone.id,
        name: 'Big yard',
        type: 'circle',
        parentId: tenants.root.agentId,
        radius: 50,
        geometry: { type: 'Point', coordinates: [37.6, 55.7] },
      },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ id: zone.id, name: 'Big yard', description: '', createDate: zone.createDate });
    expect(replaced.body.area).toBeCloseTo(Math.PI * 2_500, 1);
    expect((await api({ method: 'GET', path: `/api/v3/gis/${zone.id}`, token: tokens.root })).body).toEqual(replaced.body);
    expect(
      (await api({ method: 'PUT', path: '/api/v3/gis', token: tokens.root, body: { ...squareZone(tenants.root.agentId), id: 987654 } })).status,
    ).toBe(404);
    expect(
      (await api({ method: 'PUT', path: '/api/v3/gis', token: tokens.root, body: { ...squareZone(tenants.sibling.agentId), id: zone.id } })).status,
    ).toBe(404);
    expect(
      (await api({ method: 'PUT', path: '/api/v3/gis', token: tokens.readOnly, body: { ...squareZone(tenants.root.agentId), id: zone.id } })).status,
    ).toBe(403);
  });

  it('versions zones: ETag on read and write, 409 for a stale version in the body or If-Match, one winner of two concurrent replaces', async () => {
    const created = await createZone(tokens.root, squareZone(tenants.root.agentId));
    expect(created.body.version).toBe(1);
    expect(created.headers.ETag).toBe('"1"');
    const zone = created.body;
    const { createDate: _createDate, area: _area, perimetr: _perimetr, ...body } = zone;
    const first = await api({ method: 'PUT', path: '/api/v3/gis', token: tokens.root, body: { ...body, name: 'one' } });
    expect(first.status).toBe(200);
    expect(first.body.version).toBe(2);
    expect(first.headers.ETag).toBe('"2"');
    expect((await api({ method: 'GET', path: `/api/v3/gis/${zone.id}`, token: tokens.root })).headers.ETag).toBe('"2"');

    const stale = await api({ method: 'PUT', path: '/api/v3/gis', token: tokens.root, body: { ...body, name: 'two' } });
    expect(stale.status).toBe(409);
    expect(stale.body.message).toContain('version 2, not 1');
    const { version: _version, ...unversioned } = body;
    const staleHeader = await api({ method: 'PUT', path: '/api/v3/gis', token: tokens.root, headers: { 'If-Match': '"1"' }, body: unversioned });
    expect(staleHeader.status).toBe(409);
    expect((await api({ method: 'GET', path: `/api/v3/gis/${zone.id}`, token: tokens.root })).body.name).toBe('one');

    const [a, b] = await Promise.all(
      ['a', 'b'].map((name) => api({ method: 'PUT', path: '/api/v3/gis', token: tokens.root, body: { ...unversioned, name, version: 2 } })),
    );
    expect([a!.status, b!.status].sort()).toEqual([200, 409]);
    const winner = a!.status === 200 ? 'a' : 'b';
    expect((await api({ method: 'GET', path: `/api/v3/gis/${zone.id}`, token: tokens.root })).body).toMatchObject({ name: winner, version: 3 });

    expect((await api({ method: 'DELETE', path: `/api/v3/gis/${zone.id}`, token: tokens.root, headers: { 'If-Match': '"2"' } })).status).toBe(409);
    expect((await api({ method: 'DELETE', path: `/api/v3/gis/${zone.id}`, token: tokens.root, headers: { 'If-Match': '"3"' } })).status).toBe(200);
  });

  it('refuses to delete a zone a rule refers to (409), deletes it once the rule lets go', async () => {
    const zone = (await createZone(tokens.root, squareZone(tenants.root.agentId))).body;
    const rule = (
      await api({
        method: 'POST',
        path: '/api/v3/notifications',
        token: tokens.root,
        body: ruleBody(tenants.root.agentId, { type: 0, geoids: [zone.id], settings: {} }),
      })
    ).body;
    const refused = await api({ method: 'DELETE', path: `/api/v3/gis/${zone.id}`, token: tokens.root });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain(`ids ${rule.id}`);
    expect(
      (
        await api({
          method: 'PUT',
          path: '/api/v3/notifications',
          token: tokens.root,
          body: { ...rule, type: 2, geoids: [], settings: { limit: '90' } },
        })
      ).status,
    ).toBe(200);
    const deleted = await api({ method: 'DELETE', path: `/api/v3/gis/${zone.id}`, token: tokens.root });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toBe('Success');
    expect((await api({ method: 'GET', path: `/api/v3/gis/${zone.id}`, token: tokens.root })).status).toBe(404);
    expect((await api({ method: 'DELETE', path: `/api/v3/gis/${zone.id}`, token: tokens.root })).status).toBe(404);
  });

  it('answers 404 on every endpoint to a user of a sibling client, and 403 to read-only users on changes', async () => {
    const zone = (await createZone(tokens.child, squareZone(tenants.child.agentId))).body;
    const attempts = [
      await api({ method: 'GET', path: `/api/v3/gis/${zone.id}`, token: tokens.sibling }),
      await api({ method: 'PUT', path: '/api/v3/gis', token: tokens.sibling, body: { ...squareZone(tenants.sibling.agentId), id: zone.id } }),
      await api({ method: 'DELETE', path: `/api/v3/gis/${zone.id}`, token: tokens.sibling }),
      await api({ method: 'POST', path: '/api/v3/gis/find', token: tokens.sibling, body: { parentId: tenants.child.agentId } }),
    ];
    expect(attempts.map((attempt) => attempt.status)).toEqual([404, 404, 404, 404]);
    expect((await api({ method: 'DELETE', path: `/api/v3/gis/${zone.id}`, token: tokens.readOnly })).status).toBe(403);
    expect((await api({ method: 'GET', path: `/api/v3/gis/${zone.id}`, token: tokens.child })).status).toBe(200);
  });
});
