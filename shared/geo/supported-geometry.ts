import type { GeozoneBody } from '../schemas/geozone';
import { circleBounds, ringCrossesAntimeridian } from './measure';

/**
 * Shapes the zone index cannot answer for correctly are refused rather than stored: rings that cross the
 * antimeridian (their point-in-polygon test would cover the rest of the world) and circles that cross it or
 * reach a pole (no longitude box holds them). Each issue names the part of the body at fault.
 */
export interface GeometryIssue {
  path: (string | number)[];
  message: string;
}

export function unsupportedGeometryIssues(zone: Pick<GeozoneBody, 'geometry' | 'radius'>): GeometryIssue[] {
  const issues: GeometryIssue[] = [];
  const { geometry } = zone;
  if (geometry.type === 'Point') {
    if (zone.radius === null) return issues;
    const [lon, lat] = geometry.coordinates;
    const { crossesAntimeridian, coversPole } = circleBounds(lat, lon, zone.radius);
    if (coversPole) issues.push({ path: ['radius'], message: 'a circle may not reach a pole: use a polygon' });
    else if (crossesAntimeridian) {
      issues.push({
        path: ['radius'],
        message: 'a circle may not cross the antimeridian (±180° longitude): use a MultiPolygon with one part on each side',
      });
    }
    return issues;
  }
  const polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates;
  polygons.forEach((polygon, p) =>
    polygon.forEach((ring, r) => {
      if (!ringCrossesAntimeridian(ring)) return;
      issues.push({
        path: geometry.type === 'Polygon' ? ['geometry', 'coordinates', r] : ['geometry', 'coordinates', p, r],
        message:
          'a ring may not cross the antimeridian (an edge spanning more than 180° of longitude): split it into a MultiPolygon with one part on each side',
      });
    }),
  );
  return issues;
}
