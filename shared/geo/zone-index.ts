import Flatbush from 'flatbush';
import type { Geozone } from '../schemas/geozone';
import type { ZoneLookup } from './zone-lookup';
import { compileZone, zoneContains, type CompiledZone } from './compiled-zone';

/** Candidate lists this short are tested directly; longer ones go through the spatial index. */
const DIRECT_SCAN_LIMIT = 16;

/**
 * Geozones in a flatbush R-tree over their bounding boxes: a point query visits only the boxes that hold
 * the point, then tests those zones exactly (point in polygon with holes, or haversine distance for circles).
 * The boxes contain their zones entirely, so a lookup through the tree and a direct test of each zone always
 * agree. Zones that cross the antimeridian or cover a pole are refused by the API (a stored one from before
 * is still looked up consistently, with a box spanning every longitude).
 */
export class ZoneIndex implements ZoneLookup {
  private readonly byId = new Map<number, CompiledZone>();
  private readonly ordered: CompiledZone[];
  private readonly tree: Flatbush | undefined;
  /** Candidate id lists passed by evaluators are long-lived (pre-parsed settings), so their sets are cached. */
  private readonly candidateSets = new WeakMap<readonly number[], Set<number>>();

  /** `compiled`: zones already compiled (then `geozones` is ignored). */
  constructor(geozones: readonly Geozone[], compiled?: readonly CompiledZone[]) {
    this.ordered = compiled ? [...compiled] : geozones.map(compileZone);
    for (const zone of this.ordered) this.byId.set(zone.id, zone);
    if (this.ordered.length > 0) {
      const tree = new Flatbush(this.ordered.length);
      for (const zone of this.ordered) tree.add(...zone.bbox);
      tree.finish();
      this.tree = tree;
    }
  }

  get size(): number {
    return this.ordered.length;
  }

  has(zoneId: number): boolean {
    return this.byId.has(zoneId);
  }

  zoneName(zoneId: number): string | undefined {
    return this.byId.get(zoneId)?.name;
  }

  contains(zoneId: number, latitude: number, longitude: number, marginMeters = 0): boolean {
    const zone = this.byId.get(zoneId);
    return zone !== undefined && zoneContains(zone, latitude, longitude, marginMeters);
  }

  zonesContaining(latitude: number, longitude: number, candidateIds?: readonly number[]): number[] {
    const found: number[] = [];
    if (candidateIds !== undefined && candidateIds.length <= DIRECT_SCAN_LIMIT) {
      for (const id of candidateIds) if (this.contains(id, latitude, longitude) && !found.includes(id)) found.push(id);
      return found.length > 1 ? found.sort((a, b) => a - b) : found;
    }
    if (this.tree === undefined) return found;
    const candidates = candidateIds === undefined ? undefined : this.candidateSet(candidateIds);
    for (const index of this.tree.search(longitude, latitude, longitude, latitude)) {
      const zone = this.ordered[index]!;
      if (candidates !== undefined && !candidates.has(zone.id)) continue;
      if (zoneContains(zone, latitude, longitude)) found.push(zone.id);
    }
    return found.sort((a, b) => a - b);
  }

  private candidateSet(ids: readonly number[]): Set<number> {
    let set = this.candidateSets.get(ids);
    if (set === undefined) {
      set = new Set(ids);
      this.candidateSets.set(ids, set);
    }
    return set;
  }
}
