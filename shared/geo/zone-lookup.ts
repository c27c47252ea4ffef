/** Geometry questions an evaluator may ask; answered by the compiled geozone index. */
export interface ZoneLookup {
  /** Whether the zone contains the point, its border moved outward by `marginMeters` (inward when negative). */
  contains(zoneId: number, latitude: number, longitude: number, marginMeters?: number): boolean;
  /** Ids of zones among `candidateIds` (all zones when omitted) that contain the point. */
  zonesContaining(latitude: number, longitude: number, candidateIds?: readonly number[]): number[];
  zoneName(zoneId: number): string | undefined;
}
