import type { Geozone } from '../schemas/geozone';
import { METERS_PER_DEGREE, circleBounds, degreeSpan, haversineMeters, insideRings, nearRingEdge } from './measure';

/** A geozone prepared for repeated point tests: flat coordinate arrays and a bounding box. */
export type CompiledZone = CompiledPolygonZone | CompiledCircleZone;

interface ZoneBase {
  id: number;
  name: string;
  /** [minLon, minLat, maxLon, maxLat] */
  bbox: [number, number, number, number];
  /**
   * Deepest inward margin applied, metres: a quarter of the zone's narrower extent (half a circle's radius),
   * so that a margin meant for large zones never makes a small one impossible to enter.
   */
  maxInset: number;
}

export interface CompiledPolygonZone extends ZoneBase {
  kind: 'polygon';
  /** One entry per polygon; each polygon is its outer ring then its holes, as flat [lon, lat, ...] arrays. */
  polygons: Float64Array[][];
  /** All rings of all polygons, for distance-to-border tests. */
  rings: Float64Array[];
}

export interface CompiledCircleZone extends ZoneBase {
  kind: 'circle';
  lat: number;
  lon: number;
  radius: number;
}

export function compileZone(zone: Geozone): CompiledZone {
  const geometry = zone.geometry;
  if (geometry.type === 'Point') {
    const [lon, lat] = geometry.coordinates;
    const radius = zone.radius ?? 0;
    const { bbox } = circleBounds(lat, lon, radius);
    return { kind: 'circle', id: zone.id, name: zone.name, lat, lon, radius, bbox, maxInset: radius / 2 };
  }
  const polygons = (geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates).map((polygon) =>
    polygon.map((ring) => Float64Array.from(ring.flat())),
  );
  const bbox: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const polygon of polygons) {
    const outer = polygon[0]!;
    for (let i = 0; i < outer.length; i += 2) {
      bbox[0] = Math.min(bbox[0], outer[i]!);
      bbox[1] = Math.min(bbox[1], outer[i + 1]!);
      bbox[2] = Math.max(bbox[2], outer[i]!);
      bbox[3] = Math.max(bbox[3], outer[i + 1]!);
    }
  }
  const middleLat = (bbox[1] + bbox[3]) / 2;
  const width = (bbox[2] - bbox[0]) * METERS_PER_DEGREE * Math.cos((middleLat * Math.PI) / 180);
  const height = (bbox[3] - bbox[1]) * METERS_PER_DEGREE;
  return { kind: 'polygon', id: zone.id, name: zone.name, polygons, rings: polygons.flat(), bbox, maxInset: Math.min(width, height) / 4 };
}

/**
 * Whether the zone contains the point with its border moved outward by `margin` metres (inward when negative).
 * Polygons: inside and at least -margin from the border, or outside but within margin of it. Circles: radius + margin.
 * An inward margin is limited to the zone's `maxInset`.
 */
export function zoneContains(zone: CompiledZone, lat: number, lon: number, requestedMargin = 0): boolean {
  const margin = requestedMargin < -zone.maxInset ? -zone.maxInset : requestedMargin;
  if (zone.kind === 'circle') return haversineMeters(zone.lat, zone.lon, lat, lon) <= zone.radius + margin;
  const [minLon, minLat, maxLon, maxLat] = zone.bbox;
  if (margin > 0) {
    const { dLat, dLon } = degreeSpan(margin, lat);
    if (lon < minLon - dLon || lon > maxLon + dLon || lat < minLat - dLat || lat > maxLat + dLat) return false;
  } else if (lon < minLon || lon > maxLon || lat < minLat || lat > maxLat) {
    return false;
  }
  let inside = false;
  for (const polygon of zone.polygons) {
    if (insideRings(polygon, lat, lon)) {
      inside = true;
      break;
    }
  }
  if (margin === 0) return inside;
  if (margin > 0) return inside || nearRingEdge(zone.rings, lat, lon, margin);
  return inside && !nearRingEdge(zone.rings, lat, lon, -margin);
}
