import booleanPointInPolygon from '@turf/boolean-point-in-polygon';
import { point, polygon, multiPolygon } from '@turf/helpers';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { ZoneIndex } from '../../shared/geo/zone-index';
import { haversineMeters } from '../../shared/geo/measure';
import { CENTER, circleZone, offset, squareZone } from './fixtures';

const at = (north: number, east: number) => offset(CENTER.lat, CENTER.lon, north, east);

describe('ZoneIndex', () => {
  const index = new ZoneIndex([squareZone(1, 500, { holeHalf: 100, name: 'yard' }), circleZone(2, 200, { center: at(0, 2000) })]);

  it('tests polygons with holes exactly', () => {
    const inside = at(300, 0);
    const inHole = at(50, 0);
    const outside = at(600, 0);
    expect(index.contains(1, inside.lat, inside.lon)).toBe(true);
    expect(index.contains(1, inHole.lat, inHole.lon)).toBe(false);
    expect(index.contains(1, outside.lat, outside.lon)).toBe(false);
  });

  it('moves a polygon border outward and inward by a margin in metres', () => {
    const nearOutside = at(520, 0); // 20 m outside
    const nearInside = at(480, 0); // 20 m inside
    expect(index.contains(1, nearOutside.lat, nearOutside.lon, 30)).toBe(true);
    expect(index.contains(1, nearOutside.lat, nearOutside.lon, 10)).toBe(false);
    expect(index.contains(1, nearInside.lat, nearInside.lon, -10)).toBe(true);
    expect(index.contains(1, nearInside.lat, nearInside.lon, -30)).toBe(false);
    // the hole's border counts too: 20 m from the hole is inside the zone but not 30 m deep
    const nearHole = at(120, 0);
    expect(index.contains(1, nearHole.lat, nearHole.lon, -30)).toBe(false);
    expect(index.contains(1, nearHole.lat, nearHole.lon, -10)).toBe(true);
  });

  it('tests circles by distance from the centre, with margins', () => {
    const edge = at(0, 2190); // 190 m from the centre
    expect(index.contains(2, edge.lat, edge.lon)).toBe(true);
    expect(index.contains(2, edge.lat, edge.lon, -20)).toBe(false);
    const beyond = at(0, 2215);
    expect(index.contains(2, beyond.lat, beyond.lon)).toBe(false);
    expect(index.contains(2, beyond.lat, beyond.lon, 20)).toBe(true);
  });

  it('finds containing zones, optionally among candidates', () => {
    const p = at(300, 0);
    expect(index.zonesContaining(p.lat, p.lon)).toEqual([1]);
    expect(index.zonesContaining(p.lat, p.lon, [2])).toEqual([]);
    const c = at(0, 2000);
    expect(index.zonesContaining(c.lat, c.lon, [1, 2])).toEqual([2]);
    expect(index.zonesContaining(c.lat, c.lon, [2, 2, 1])).toEqual([2]);
  });

  it('tests every part of a multipolygon', () => {
    const west = squareZone(0, 100, { center: at(0, -5000) }).geometry;
    const east = squareZone(0, 100, { center: at(0, 5000) }).geometry;
    if (west.type !== 'Polygon' || east.type !== 'Polygon') throw new Error('fixture');
    const multi = new ZoneIndex([{ ...squareZone(5, 1), geometry: { type: 'MultiPolygon', coordinates: [west.coordinates, east.coordinates] } }]);
    for (const [north, eastward, expected] of [
      [0, -5000, true],
      [0, 5000, true],
      [0, 0, false],
      [150, 5000, false],
    ] as const) {
      const p = at(north, eastward);
      expect(multi.zonesContaining(p.lat, p.lon)).toEqual(expected ? [5] : []);
    }
    const nearEast = at(0, 5120); // 20 m beyond the eastern part's border
    expect(multi.contains(5, nearEast.lat, nearEast.lon, 30)).toBe(true);
  });

  it('never moves a border inward by more than small zones allow', () => {
    const small = new ZoneIndex([circleZone(1, 20), squareZone(2, 40, { center: at(0, 1000) })]);
    expect(small.contains(1, CENTER.lat, CENTER.lon, -30)).toBe(true);
    const middle = at(0, 1000);
    expect(small.contains(2, middle.lat, middle.lon, -30)).toBe(true);
    const edge = at(0, 1035);
    expect(small.contains(2, edge.lat, edge.lon, -30)).toBe(false);
  });

  it('answers nothing for unknown zones', () => {
    expect(index.contains(99, CENTER.lat, CENTER.lon)).toBe(false);
    expect(index.zoneName(99)).toBeUndefined();
    expect(index.zoneName(1)).toBe('yard');
    expect(new ZoneIndex([]).zonesContaining(CENTER.lat, CENTER.lon)).toEqual([]);
  });
});

describe('ZoneIndex agrees with turf', () => {
  const zones = Array.from({ length: 40 }, (_, i) =>
    i % 2 === 0
      ? squareZone(i + 1, 100 + i * 20, { center: at((i % 7) * 150, (i % 5) * 170), holeHalf: i % 4 === 0 ? 40 : undefined })
      : circleZone(i + 1, 80 + i * 10, { center: at((i % 6) * 160, (i % 3) * 210) }),
  );
  const index = new ZoneIndex(zones);
  const candidates = zones.map((zone) => zone.id);

  test.prop([fc.double({ min: -400, max: 1400, noNaN: true }), fc.double({ min: -400, max: 1200, noNaN: true })], { numRuns: 300 })(
    'zonesContaining matches an exhaustive turf check',
    (north, east) => {
      const p = at(north, east);
      const expected = zones
        .filter((zone) => {
          if (zone.geometry.type === 'Point') {
            const [lon, lat] = zone.geometry.coordinates;
            return haversineMeters(lat, lon, p.lat, p.lon) <= zone.radius!;
          }
          const here = point([p.lon, p.lat]);
          return zone.geometry.type === 'Polygon'
            ? booleanPointInPolygon(here, polygon(zone.geometry.coordinates))
            : booleanPointInPolygon(here, multiPolygon(zone.geometry.coordinates));
        })
        .map((zone) => zone.id);
      expect(index.zonesContaining(p.lat, p.lon)).toEqual(expected);
      expect(index.zonesContaining(p.lat, p.lon, candidates)).toEqual(expected);
    },
  );
});

describe('ZoneIndex: direct tests and the spatial index agree', () => {
  const RAD = Math.PI / 180;
  const R = 6_371_008.8;
  /** The point `distance` metres from (lat, lon) along `bearing` degrees, on the sphere haversine uses. */
  const destination = (lat: number, lon: number, bearing: number, distance: number) => {
    const d = distance / R;
    const φ1 = lat * RAD;
    const λ1 = lon * RAD;
    const θ = bearing * RAD;
    const φ2 = Math.asin(Math.sin(φ1) * Math.cos(d) + Math.cos(φ1) * Math.sin(d) * Math.cos(θ));
    const λ2 = λ1 + Math.atan2(Math.sin(θ) * Math.sin(d) * Math.cos(φ1), Math.cos(d) - Math.sin(φ1) * Math.sin(φ2));
    return { lat: φ2 / RAD, lon: ((((λ2 / RAD + 540) % 360) + 360) % 360) - 180 };
  };

  const circle = fc.record({
    kind: fc.constant('circle' as const),
    lat: fc.double({ min: -89.5, max: 89.5, noNaN: true }),
    lon: fc.double({ min: -180, max: 180, noNaN: true }),
    radius: fc.double({ min: 1, max: 3_000_000, noNaN: true }),
  });
  const square = fc.record({
    kind: fc.constant('square' as const),
    lat: fc.double({ min: -85, max: 85, noNaN: true }),
    lon: fc.double({ min: -179, max: 179, noNaN: true }),
    radius: fc.double({ min: 10, max: 50_000, noNaN: true }),
  });
  const zonesArb = fc.array(fc.oneof(circle, square), { minLength: 17, maxLength: 30 });
  const probe = fc.record({
    zone: fc.nat(),
    bearing: fc.double({ min: 0, max: 360, noNaN: true }),
    reach: fc.double({ min: 0, max: 1.2, noNaN: true }),
  });

  test.prop([zonesArb, fc.array(probe, { minLength: 1, maxLength: 20 })], { numRuns: 200 })(
    'zonesContaining, through the tree or directly, finds exactly the zones contains() confirms',
    (specs, probes) => {
      const zones = specs.map((spec, index) =>
        spec.kind === 'circle'
          ? circleZone(index + 1, spec.radius, { center: { lat: spec.lat, lon: spec.lon } })
          : squareZone(index + 1, spec.radius, { center: { lat: spec.lat, lon: spec.lon } }),
      );
      const index = new ZoneIndex(zones);
      const ids = zones.map((zone) => zone.id);
      for (const { zone, bearing, reach } of probes) {
        const spec = specs[zone % specs.length]!;
        const p = destination(spec.lat, spec.lon, bearing, spec.radius * reach);
        const confirmed = ids.filter((id) => index.contains(id, p.lat, p.lon));
        expect(index.zonesContaining(p.lat, p.lon, ids), JSON.stringify(p)).toEqual(confirmed);
        expect(index.zonesContaining(p.lat, p.lon)).toEqual(confirmed);
        expect(index.zonesContaining(p.lat, p.lon, ids.slice(0, 16))).toEqual(confirmed.filter((id) => id <= 16));
      }
    },
  );
});
