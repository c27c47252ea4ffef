import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { haversineMeters } from '../../shared/geo/measure';
import { mergeVisits, visitSeconds, type MergeOptions, type Visit } from '../../shared/geo/visit-merge';

const T = Date.parse('2026-02-10T10:00:00.000Z');
const UNTIL = T + 10 * 3_600_000;
const OFF: MergeOptions = { byTime: 0, byDist: 0, filterByTime: 0, filterByHalfPerimeter: false, untilMs: UNTIL, perimeterOf: () => 1_000 };

/** Consecutive, non-overlapping visits of a few vehicles to a few zones; the last of a pair may be open. */
const visitsArbitrary = fc
  .array(
    fc.record({
      vehicleId: fc.integer({ min: 1, max: 3 }),
      zoneId: fc.integer({ min: 1, max: 3 }),
      gaps: fc.array(
        fc.record({
          gap: fc.integer({ min: 1, max: 3_600 }),
          length: fc.integer({ min: 0, max: 3_600 }),
          distance: fc.integer({ min: 0, max: 2_000 }),
          dLat: fc.integer({ min: -2_000, max: 2_000 }),
        }),
        { minLength: 1, maxLength: 6 },
      ),
      lastOpen: fc.boolean(),
    }),
    { maxLength: 4 },
  )
  .map((tracks) => {
    const seen = new Set<string>();
    const visits: Visit[] = [];
    for (const track of tracks) {
      const key = `${track.vehicleId}:${track.zoneId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      let clock = T;
      track.gaps.forEach((part, index) => {
        const startMs = clock + part.gap * 1000;
        const open = track.lastOpen && index === track.gaps.length - 1;
        const endMs = startMs + part.length * 1000;
        const point = { latitude: 55.7 + part.dLat / 1e5, longitude: 37.6 };
        visits.push({
          vehicleId: track.vehicleId,
          zoneId: track.zoneId,
          startMs,
          endMs: open ? null : endMs,
          entry: point,
          ...(open ? {} : { exit: { latitude: point.latitude + 0.0001, longitude: 37.6 }, distance: part.distance }),
        });
        clock = endMs;
      });
    }
    return visits;
  });

const optionsArbitrary = fc.record({
  byTime: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 4_000 })),
  byDist: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 500 })),
});

const pairKey = (visit: Visit) => `${visit.vehicleId}:${visit.zoneId}`;

describe('visit merging and filters', () => {
  it('changes nothing without options', () => {
    fc.assert(
      fc.property(visitsArbitrary, (visits) => {
        const sorted = [...visits].sort((a, b) => a.vehicleId - b.vehicleId || a.zoneId - b.zoneId || a.startMs - b.startMs);
        expect(mergeVisits(visits, OFF)).toEqual(sorted);
      }),
    );
  });

  it('covers every input visit by exactly one merged visit of the same vehicle and zone, keeping the distance', () => {
    fc.assert(
      fc.property(visitsArbitrary, optionsArbitrary, (visits, options) => {
        const merged = mergeVisits(visits, { ...OFF, ...options });
        expect(merged.length).toBeLessThanOrEqual(visits.length);
        for (const visit of visits) {
          const covering = merged.filter(
            (candidate) =>
              pairKey(candidate) === pairKey(visit) &&
              candidate.startMs <= visit.startMs &&
              (candidate.endMs === null || (visit.endMs !== null && visit.endMs <= candidate.endMs)),
          );
          expect(covering).toHaveLength(1);
        }
        const closedDistance = (list: readonly Visit[]) => list.reduce((sum, visit) => sum + (visit.endMs === null ? 0 : (visit.distance ?? 0)), 0);
        // an open visit merged with closed ones carries no distance yet: compare only all-closed results
        if (visits.every((visit) => visit.endMs !== null)) expect(closedDistance(merged)).toBe(closedDistance(visits));
      }),
    );
  });

  it('leaves apart only consecutive visits that fail a given criterion', () => {
    fc.assert(
      fc.property(visitsArbitrary, optionsArbitrary, (visits, options) => {
        const merged = mergeVisits(visits, { ...OFF, ...options });
        for (let index = 1; index < merged.length; index++) {
          const [previous, next] = [merged[index - 1]!, merged[index]!];
          if (pairKey(previous) !== pairKey(next) || (options.byTime === 0 && options.byDist === 0)) continue;
          const timeHolds = options.byTime === 0 || next.startMs - previous.endMs! < options.byTime * 1000;
          const distHolds =
            options.byDist === 0 ||
            haversineMeters(previous.exit!.latitude, previous.exit!.longitude, next.entry.latitude, next.entry.longitude) < options.byDist;
          expect(timeHolds && distHolds).toBe(false);
        }
      }),
    );
  });

  it('keeps by filterByTime exactly the visits lasting at least N s, an open one up to the end of the query', () => {
    fc.assert(
      fc.property(visitsArbitrary, fc.integer({ min: 1, max: 4_000 }), (visits, seconds) => {
        const kept = mergeVisits(visits, { ...OFF, filterByTime: seconds });
        expect(kept).toEqual(mergeVisits(visits, OFF).filter((visit) => visitSeconds(visit, UNTIL) >= seconds));
      }),
    );
  });

  it('drops by filterByHalfPerimeter the complete visits under half the perimeter, and keeps open ones', () => {
    fc.assert(
      fc.property(visitsArbitrary, (visits) => {
        const kept = mergeVisits(visits, { ...OFF, filterByHalfPerimeter: true, perimeterOf: (zoneId) => zoneId * 600 });
        for (const visit of kept) if (visit.endMs !== null) expect(visit.distance!).toBeGreaterThanOrEqual((visit.zoneId * 600) / 2);
        expect(kept.filter((visit) => visit.endMs === null)).toEqual(mergeVisits(visits, OFF).filter((visit) => visit.endMs === null));
      }),
    );
  });

  it('merges a closed visit with an open one into an open visit', () => {
    const closed: Visit = {
      vehicleId: 1,
      zoneId: 1,
      startMs: T,
      endMs: T + 60_000,
      entry: { latitude: 55.7, longitude: 37.6 },
      exit: { latitude: 55.7, longitude: 37.6 },
      distance: 300,
    };
    const open: Visit = { vehicleId: 1, zoneId: 1, startMs: T + 90_000, endMs: null, entry: { latitude: 55.7, longitude: 37.6 } };
    expect(mergeVisits([open, closed], { ...OFF, byTime: 60 })).toEqual([{ vehicleId: 1, zoneId: 1, startMs: T, endMs: null, entry: closed.entry }]);
    expect(mergeVisits([open, closed], { ...OFF, byTime: 30 })).toHaveLength(2);
  });
});
