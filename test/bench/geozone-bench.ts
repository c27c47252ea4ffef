import booleanPointInPolygon from '@turf/boolean-point-in-polygon';
import { point, polygon } from '@turf/helpers';
import { ZoneIndex } from '../../shared/geo/zone-index';
import { REGION, syntheticZones } from './synthetic-zones';
import type { BenchSection } from './section';
import { bestTimes, formatTable, seededRandom } from './timing';

/**
 * Which zones contain a point: the flatbush index (bounding-box prefilter, then the exact test) against
 * a loop over every polygon with @turf/boolean-point-in-polygon. Both must give the same answers.
 */
export function runGeozoneBench(): BenchSection {
  const rows: string[][] = [];
  const geozoneLookupSpeedup: Record<string, number> = {};
  for (const count of [100, 1_000, 10_000]) {
    const random = seededRandom(count);
    const zones = syntheticZones(count, random);
    const index = new ZoneIndex(zones);
    const features = zones.map((zone) => ({ id: zone.id, feature: polygon(zone.geometry.coordinates as [number, number][][]) }));
    const queries = Array.from(
      { length: 2_000 },
      () => [REGION.minLat + random() * (REGION.maxLat - REGION.minLat), REGION.minLon + random() * (REGION.maxLon - REGION.minLon)] as const,
    );
    const naiveQueries = queries.slice(0, Math.max(20, Math.floor(200_000 / count)));

    const naive = (lat: number, lon: number) => {
      const here = point([lon, lat]);
      const found: number[] = [];
      for (const { id, feature } of features) if (booleanPointInPolygon(here, feature)) found.push(id);
      return found;
    };
    for (const [lat, lon] of naiveQueries) {
      if (naive(lat, lon).join() !== index.zonesContaining(lat, lon).join()) throw new Error(`index and turf disagree at ${lat},${lon}`);
    }

    let sink = 0;
    const [indexTotal, naiveTotal] = bestTimes(
      [
        () => {
          for (const [lat, lon] of queries) sink += index.zonesContaining(lat, lon).length;
        },
        () => {
          for (const [lat, lon] of naiveQueries) sink += naive(lat, lon).length;
        },
      ],
      3,
    ) as [number, number];
    const indexNs = indexTotal / queries.length;
    const naiveNs = naiveTotal / naiveQueries.length;
    if (sink < 0) throw new Error('unreachable');
    geozoneLookupSpeedup[count] = Math.round(naiveNs / indexNs);
    rows.push([
      count.toLocaleString('en'),
      `${(naiveNs / 1000).toFixed(1)} µs`,
      `${(indexNs / 1000).toFixed(2)} µs`,
      `${(naiveNs / indexNs).toFixed(0)}×`,
    ]);
  }
  return {
    lines: [
      '(b) geozone lookup: spatial index vs naive turf loop (target ≥ 50× at 10,000)',
      ...formatTable(['polygons', 'turf loop', 'index', 'speed-up'], rows),
    ],
    figures: { geozoneLookupSpeedup },
  };
}
