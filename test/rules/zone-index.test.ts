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
    for (const [north, eastward, expected] of [[0, -5000, true], [0, 5000, true], [0, 0, false], [150, 5000, false]] as const) {
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
