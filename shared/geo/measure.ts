/** Distances on the Earth in metres. Haversine for point-to-point; a local flat projection for short ranges. */

export const EARTH_RADIUS_M = 6_371_008.8;
const RAD = Math.PI / 180;
/** Metres per degree of latitude (and of longitude at the equator) on the mean sphere. */
export const METERS_PER_DEGREE = EARTH_RADIUS_M * RAD;

export function haversineMeters(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLon = (lon2 - lon1) * RAD;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** Degrees of latitude and longitude that `meters` spans around latitude `lat` (longitude span grows to the poles). */
export function degreeSpan(meters: number, lat: number): { dLat: number; dLon: number } {
  const dLat = meters / METERS_PER_DEGREE;
  const cos = Math.max(Math.cos(lat * RAD), 1e-6);
  return { dLat, dLon: Math.min(dLat / cos, 360) };
}

/**
 * The bounding box [minLon, minLat, maxLon, maxLat] of every point within `radius` metres (haversine) of
 * (lat, lon), with a hair of slack so that rounding never leaves a point of the circle outside it. The
 * longitude reach is that of the whole spherical cap, which is wider than at the centre's latitude.
 * `crossesAntimeridian` and `coversPole` tell when no such box exists within ±180° / ±90°; the box then
 * covers every longitude (and reaches the pole), which still contains the circle.
 */
export function circleBounds(
  lat: number,
  lon: number,
  radius: number,
): { bbox: [number, number, number, number]; crossesAntimeridian: boolean; coversPole: boolean } {
  const angular = radius / EARTH_RADIUS_M;
  const slack = 1e-9;
  const dLat = angular / RAD + slack;
  const coversPole = Math.abs(lat) + dLat >= 90;
  const sinReach = Math.sin(angular) / Math.cos(lat * RAD);
  const dLon = coversPole || sinReach >= 1 ? 360 : Math.asin(sinReach) / RAD + slack;
  const crossesAntimeridian = lon - dLon < -180 || lon + dLon > 180;
  const fullCircle = coversPole || crossesAntimeridian;
  return {
    bbox: [fullCircle ? -180 : lon - dLon, Math.max(-90, lat - dLat), fullCircle ? 180 : lon + dLon, Math.min(90, lat + dLat)],
    crossesAntimeridian,
    coversPole,
  };
}

/** Whether a ring (GeoJSON [lon, lat] positions) has an edge spanning more than 180° of longitude, i.e. crosses the antimeridian. */
export function ringCrossesAntimeridian(ring: readonly (readonly number[])[]): boolean {
  for (let i = 1; i < ring.length; i++) if (Math.abs(ring[i]![0]! - ring[i - 1]![0]!) > 180) return true;
  return false;
}

/**
 * Whether point (lat, lon) lies within `meters` of any edge of the rings (flat [lon, lat, lon, lat, ...] arrays).
 * Distances use an equirectangular projection centred on the point: exact enough (well under 1 %) for the
 * tens to thousands of metres that border margins span.
 */
export function nearRingEdge(rings: readonly Float64Array[], lat: number, lon: number, meters: number): boolean {
  const kx = Math.cos(lat * RAD) * METERS_PER_DEGREE;
  const ky = METERS_PER_DEGREE;
  const limit = meters * meters;
  for (const ring of rings) {
    let ax = (ring[0]! - lon) * kx;
    let ay = (ring[1]! - lat) * ky;
    for (let i = 2; i < ring.length; i += 2) {
      const bx = (ring[i]! - lon) * kx;
      const by = (ring[i + 1]! - lat) * ky;
      if (squaredDistanceToSegment(ax, ay, bx, by) <= limit) return true;
      ax = bx;
      ay = by;
    }
  }
  return false;
}

/** Squared distance from the origin to segment a-b. */
function squaredDistanceToSegment(ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const lengthSquared = dx * dx + dy * dy;
  let t = lengthSquared === 0 ? 0 : -(ax * dx + ay * dy) / lengthSquared;
  if (t < 0) t = 0;
  else if (t > 1) t = 1;
  const x = ax + t * dx;
  const y = ay + t * dy;
  return x * x + y * y;
}

/** Even-odd test over all rings of one polygon, so holes are excluded. Rings are flat [lon, lat, ...] arrays. */
export function insideRings(rings: readonly Float64Array[], lat: number, lon: number): boolean {
  let inside = false;
  for (const ring of rings) {
    let xj = ring[ring.length - 2]!;
    let yj = ring[ring.length - 1]!;
    for (let i = 0; i < ring.length; i += 2) {
      const xi = ring[i]!;
      const yi = ring[i + 1]!;
      if (yi > lat !== yj > lat && lon < ((xj - xi) * (lat - yi)) / (yj - yi) + xi) inside = !inside;
      xj = xi;
      yj = yi;
    }
  }
  return inside;
}
