import { haversineMeters } from './measure';

/**
 * Merging and filtering of geozone visits, as `gis/intersections` offers them. Pure: visits in, visits out.
 *
 * Per vehicle × zone, in order of entry, a visit and the next are merged when every criterion given holds
 * (`byTime`: the time between the exit and the next entry is under N s; `byDist`: the distance between the
 * exit position and the next entry position is under N m). Then `filterByTime` drops visits shorter than N s
 * (an open visit counts up to the end of the query) and `filterByHalfPerimeter` drops complete visits whose
 * distance travelled inside is under half the zone's perimeter (an open visit has no distance yet and is kept).
 */
export interface Point {
  latitude: number;
  longitude: number;
}

export interface Visit {
  vehicleId: number;
  zoneId: number;
  startMs: number;
  /** null while the vehicle is still inside. */
  endMs: number | null;
  entry: Point;
  exit?: Point;
  /** Metres travelled inside; absent while open. A merged visit adds its parts' distances (the gaps are outside). */
  distance?: number;
}

export interface MergeOptions {
  /** Seconds; 0: not a criterion. */
  byTime: number;
  /** Metres; 0: not a criterion. */
  byDist: number;
  /** Seconds; 0: no filter. */
  filterByTime: number;
  filterByHalfPerimeter: boolean;
  /** End of the query, epoch ms: how long an open visit counts. */
  untilMs: number;
  /** Perimeter of each zone, metres (the zone's `perimetr`). */
  perimeterOf: (zoneId: number) => number;
}

/** Seconds a visit lasts; an open one up to `untilMs`. */
export function visitSeconds(visit: Visit, untilMs: number): number {
  return Math.max(0, Math.round(((visit.endMs ?? Math.max(untilMs, visit.startMs)) - visit.startMs) / 1000));
}

function mergeable(previous: Visit, next: Visit, options: MergeOptions): boolean {
  if (previous.endMs === null || previous.exit === undefined) return false;
  if (options.byTime <= 0 && options.byDist <= 0) return false;
  if (options.byTime > 0 && !(next.startMs - previous.endMs < options.byTime * 1000)) return false;
  if (options.byDist > 0) {
    const gap = haversineMeters(previous.exit.latitude, previous.exit.longitude, next.entry.latitude, next.entry.longitude);
    if (!(gap < options.byDist)) return false;
  }
  return true;
}

function merge(previous: Visit, next: Visit): Visit {
  const distance = previous.distance !== undefined && next.distance !== undefined ? previous.distance + next.distance : undefined;
  return {
    vehicleId: previous.vehicleId,
    zoneId: previous.zoneId,
    startMs: previous.startMs,
    endMs: next.endMs,
    entry: previous.entry,
    ...(next.exit ? { exit: next.exit } : {}),
    ...(distance === undefined ? {} : { distance }),
  };
}

const byStart = (a: Visit, b: Visit) => a.vehicleId - b.vehicleId || a.zoneId - b.zoneId || a.startMs - b.startMs;

/** Merged and filtered visits, ordered by vehicle, zone and entry. */
export function mergeVisits(visits: readonly Visit[], options: MergeOptions): Visit[] {
  const merged: Visit[] = [];
  for (const visit of [...visits].sort(byStart)) {
    const last = merged.at(-1);
    if (last && last.vehicleId === visit.vehicleId && last.zoneId === visit.zoneId && mergeable(last, visit, options)) {
      merged[merged.length - 1] = merge(last, visit);
    } else {
      merged.push(visit);
    }
  }
  return merged.filter((visit) => {
    if (options.filterByTime > 0 && visitSeconds(visit, options.untilMs) < options.filterByTime) return false;
    if (options.filterByHalfPerimeter && visit.endMs !== null && (visit.distance ?? 0) < options.perimeterOf(visit.zoneId) / 2) return false;
    return true;
  });
}
