import { readConfig, ruleCacheSchema } from '../config';
import { compileZone, zoneContains, type CompiledZone } from '../geo/compiled-zone';
import { logger } from '../observability/logger';
import { MetricName, MetricUnit, metrics } from '../observability/metrics';
import { geozoneSchema } from '../schemas/geozone';
import { storedRuleSchema } from '../schemas/notification';
import { compileRule, NO_ZONE_REASON, ruleOwnedAndInForce, zoneIdsOf } from '../rules/rule-index';
import type { CompiledRule, ZoneLookup } from '../rules/types';
import { scopeCovers, scopeOf, type RuleScope } from '../rules/scope';
import { ZoneIndex } from '../geo/zone-index';
import type { Journal } from '../rules/visit-journal';
import { dynamoRuleRecords, type RuleRecords } from '../store/rule-records';
import type { LoadedState } from '../store/vehicle-state-store';
import { NO_SILENCES, type VehicleSilences } from './maintenance-silence';
import { SilenceCache } from './silence-cache';

/**
 * The rules and geozones a warm function has met, by id and version, in a cache bounded by bytes (least
 * recently used first out). A vehicle's item names its rules and zones with their versions; only an id not
 * in the cache, or cached at an older version, is read, by id, in one BatchGetItem per table for the whole
 * batch. Nothing is ever scanned, so the work follows the vehicles in the batch, not the platform's size.
 */
export { DEFAULT_RULE_CACHE_BYTES } from '../config';

export interface VehicleRules {
  /** Rules that apply to the vehicle now (in force, listing it, of its owner or above), by rule id. */
  rules: CompiledRule[];
  zones: ZoneLookup;
  /** The zones of every client of the owner chain, for the visit journal; absent when the item has no zone sets. */
  journal?: Journal;
  /** The maintenance silences of the owner chain's clients (silence-cache.ts); absent: none. */
  silences?: VehicleSilences;
}

interface Entry<T> {
  version: number;
  /** null: the record does not exist (deleted), or cannot be used. */
  value: T | null;
  bytes: number;
}

interface RuleValue {
  compiled: CompiledRule;
  zoneIds: number[];
  /** The rule's scope and listed vehicles, for the membership test of every evaluation. */
  scope: RuleScope;
  vehicles: ReadonlySet<number>;
}

export function ruleCacheBytes(env?: Record<string, string | undefined>): number {
  return readConfig(ruleCacheSchema(), env).RULE_CACHE_BYTES;
}

/** Least recently used map bounded by the sum of its entries' byte estimates. */
class BoundedCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): Entry<T> | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, entry: Entry<T>): void {
    const previous = this.entries.get(key);
    if (previous) {
      this.bytes -= previous.bytes;
      this.entries.delete(key);
    }
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
    for (const [oldest, old] of this.entries) {
      if (this.bytes <= this.maxBytes || oldest === key) break;
      this.entries.delete(oldest);
      this.bytes -= old.bytes;
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get totalBytes(): number {
    return this.bytes;
  }
}

/** The zones of one vehicle's rules: a handful, tested directly. */
class VehicleZones implements ZoneLookup {
  constructor(private readonly byId: ReadonlyMap<number, CompiledZone>) {}

  contains(zoneId: number, latitude: number, longitude: number, marginMeters = 0): boolean {
    const zone = this.byId.get(zoneId);
    return zone !== undefined && zoneContains(zone, latitude, longitude, marginMeters);
  }

  zonesContaining(latitude: number, longitude: number, candidateIds?: readonly number[]): number[] {
    const found: number[] = [];
    for (const id of candidateIds ?? this.byId.keys()) {
      if (!found.includes(id) && this.contains(id, latitude, longitude)) found.push(id);
    }
    return found.sort((a, b) => a - b);
  }

  zoneName(zoneId: number): string | undefined {
    return this.byId.get(zoneId)?.name;
  }
}

const NO_ZONES = new VehicleZones(new Map());

/** One client's geozones at one zone-set version, with their spatial index. */
interface ZoneSet {
  ids: number[];
  index: ZoneIndex;
}

/**
 * The journal zones of one owner chain: the union of its clients' zone sets. A point query goes through each
 * client's flatbush index, so it costs the same with ten zones or two thousand.
 */
class JournalZones implements ZoneLookup {
  readonly ids: readonly number[];

  constructor(private readonly sets: readonly ZoneSet[]) {
    this.ids = sets.flatMap((set) => set.ids);
  }

  private indexOf(zoneId: number): ZoneIndex | undefined {
    return this.sets.find((set) => set.index.has(zoneId))?.index;
  }

  contains(zoneId: number, latitude: number, longitude: number, marginMeters = 0): boolean {
    return this.indexOf(zoneId)?.contains(zoneId, latitude, longitude, marginMeters) ?? false;
  }

  zonesContaining(latitude: number, longitude: number, candidateIds?: readonly number[]): number[] {
    const all = candidateIds === undefined || candidateIds === this.ids;
    const found = this.sets.flatMap((set) => set.index.zonesContaining(latitude, longitude, all ? undefined : candidateIds));
    return this.sets.length > 1 ? [...new Set(found)].sort((a, b) => a - b) : found;
  }

  zoneName(zoneId: number): string | undefined {
    return this.indexOf(zoneId)?.zoneName(zoneId);
  }
}

/** A byte estimate of a stored record held in memory (compiled forms are a small multiple of the JSON). */
const estimateBytes = (item: unknown) => 3 * Buffer.byteLength(JSON.stringify(item));

/**
 * A stored rule that cannot work (its geozones deleted since, settings no longer valid) is left out of
 * evaluation, and made visible: a warning with the reason, and the `UnusableRules` metric.
 */
function reportUnusable(ruleId: number, reason: string): void {
  logger.warn('rule left out of evaluation: it cannot work', { ruleId, reason });
  metrics.addMetric(MetricName.UnusableRules, MetricUnit.Count, 1);
}

export class RuleCache {
  private readonly rules: BoundedCache<RuleValue>;
  private readonly zones: BoundedCache<CompiledZone>;
  /** Zone sets by client (version: when read), and their unions by owner chain. */
  private readonly zoneSets: BoundedCache<ZoneSet>;
  private readonly journals: BoundedCache<JournalZones>;
  private readonly silences: SilenceCache | undefined;

  constructor(
    maxBytes: number = ruleCacheBytes(),
    private readonly records: RuleRecords = dynamoRuleRecords,
  ) {
    this.rules = new BoundedCache(Math.floor((maxBytes * 3) / 8));
    this.zones = new BoundedCache(Math.floor((maxBytes * 3) / 8));
    this.zoneSets = new BoundedCache(Math.floor((maxBytes * 7) / 32));
    this.journals = new BoundedCache(Math.floor(maxBytes / 32));
    const silencesOfClient = records.silencesOfClient?.bind(records);
    this.silences = silencesOfClient && new SilenceCache({ silencesOfClient, zonesById: (ids) => records.zonesById(ids) });
  }

  /** Entries and their estimated bytes, for the benchmarks. */
  stats(): { rules: number; zones: number; bytes: number } {
    return {
      rules: this.rules.size,
      zones: this.zones.size,
      bytes: this.rules.totalBytes + this.zones.totalBytes + this.zoneSets.totalBytes + this.journals.totalBytes,
    };
  }

  /**
   * The journal zones of each vehicle, from its item's `zoneSets`. A client's zones are cached by client, as of
   * when they were read (wall-clock ms); a vehicle whose item names a newer version for the client (its zones
   * changed, or the vehicle was stored, since) has them read again, with one Query of the geozones' `byParent`
   * index, which also fills the zone cache. Keyed by client rather than by version, vehicles stored at different
   * times share one read.
   */
  private async journalsFor(known: readonly [number, LoadedState][]): Promise<Map<number, JournalZones>> {
    const chains = new Map<number, string[]>();
    const missing = new Set<string>();
    for (const [vehicleId, loaded] of known) {
      const sets = loaded.projection.zoneSets ?? {};
      const clients = loaded.projection.owners.filter((clientId) => sets[clientId] !== undefined);
      if (clients.length === 0) continue;
      chains.set(vehicleId, clients);
      for (const clientId of clients) {
        const cached = this.zoneSets.get(clientId);
        if (!cached?.value || cached.version < sets[clientId]!) missing.add(clientId);
      }
    }
    await Promise.all([...missing].map(async (clientId) => this.zoneSets.set(clientId, await this.readZoneSet(clientId))));
    const journals = new Map<number, JournalZones>();
    for (const [vehicleId, clients] of chains) {
      const entries = clients.map((clientId) => [clientId, this.zoneSets.get(clientId)] as const);
      const chainKey = entries.map(([clientId, entry]) => `${clientId}#${entry?.version ?? 0}`).join('|');
      let journal = this.journals.get(chainKey)?.value;
      if (!journal) {
        const sets = entries.map(([, entry]) => entry?.value).filter((set): set is ZoneSet => set !== null && set !== undefined);
        journal = new JournalZones(sets);
        this.journals.set(chainKey, { version: 0, value: journal, bytes: 64 + 8 * journal.ids.length });
      }
      journals.set(vehicleId, journal);
    }
    return journals;
  }

  private async readZoneSet(clientId: string): Promise<Entry<ZoneSet>> {
    // the same clock as the versions the directory and the projector write
    const readAt = Date.now();
    const compiled: CompiledZone[] = [];
    let bytes = 64;
    for (const item of await this.records.zonesOfClient(clientId)) {
      const parsed = geozoneSchema.safeParse(item);
      if (!parsed.success) continue;
      const zone = compileZone(parsed.data);
      const itemBytes = estimateBytes(item);
      this.zones.set(String(parsed.data.id), { version: parsed.data.version, value: zone, bytes: itemBytes });
      compiled.push(zone);
      bytes += itemBytes;
    }
    compiled.sort((a, b) => a.id - b.id);
    return { version: readAt, value: { ids: compiled.map((zone) => zone.id), index: new ZoneIndex([], compiled) }, bytes };
  }

  /** The rules (and their zones) that apply to each vehicle at `now`, read by id where the cache lacks them. */
  async resolve(vehicles: ReadonlyMap<number, LoadedState>, now: number, options: { journal?: boolean } = {}): Promise<Map<number, VehicleRules>> {
    const known = [...vehicles].filter(([, loaded]) => loaded.projection.owners.length > 0);
    await this.refresh(
      this.rules,
      this.records.rulesById,
      known.flatMap(([, loaded]) => Object.entries(loaded.projection.ruleRefs)),
      (item) => {
        const parsed = storedRuleSchema.safeParse(item);
        if (!parsed.success) {
          logger.error('unreadable rule skipped', { ruleId: item.id, issues: parsed.error.issues.slice(0, 5) });
          return null;
        }
        const compilation = compileRule(parsed.data);
        if (!compilation.ok) {
          reportUnusable(parsed.data.id, compilation.reason);
          return null;
        }
        return {
          compiled: compilation.compiled,
          zoneIds: zoneIdsOf(parsed.data, compilation.compiled.settings),
          scope: scopeOf(parsed.data),
          vehicles: new Set(parsed.data.vehicleIds),
        };
      },
    );

    const applying = new Map<number, RuleValue[]>();
    const zoneWants: [string, number][] = [];
    for (const [vehicleId, loaded] of known) {
      const { owners, ruleRefs, zoneRefs } = loaded.projection;
      const list: RuleValue[] = [];
      for (const id of Object.keys(ruleRefs)) {
        const value = this.rules.get(id)?.value;
        // ruleAppliesTo, with the rule's vehicle list as a set; a scoped rule follows the owners on the item,
        // so a vehicle moved away leaves it before the projector removes the ref
        const rule = value?.compiled.rule;
        if (!value || !rule || !scopeCovers(rule, value.scope, value.vehicles, vehicleId, owners) || !ruleOwnedAndInForce(rule, owners, now))
          continue;
        list.push(value);
        for (const zoneId of value.zoneIds) zoneWants.push([String(zoneId), zoneRefs[String(zoneId)] ?? 0]);
      }
      applying.set(
        vehicleId,
        list.sort((a, b) => a.compiled.rule.id - b.compiled.rule.id),
      );
    }
    // zone sets first: their Query fills the zone cache, so rule zones of the owners need no second read
    const [journals] = await Promise.all([
      options.journal ? this.journalsFor(known) : new Map<number, JournalZones>(),
      this.silences?.refresh(
        known.flatMap(([, loaded]) => loaded.projection.owners),
        now,
      ),
    ]);
    await this.refresh(this.zones, this.records.zonesById, zoneWants, (item) => {
      const parsed = geozoneSchema.safeParse(item);
      if (!parsed.success) {
        logger.error('unreadable geozone skipped', { zoneId: item.id, issues: parsed.error.issues.slice(0, 5) });
        return null;
      }
      return compileZone(parsed.data);
    });

    const resolved = new Map<number, VehicleRules>();
    for (const [vehicleId] of vehicles) {
      const list = applying.get(vehicleId) ?? [];
      const zones = new Map<number, CompiledZone>();
      const rules: CompiledRule[] = [];
      for (const { compiled, zoneIds } of list) {
        for (const zoneId of zoneIds) {
          const zone = this.zones.get(String(zoneId))?.value;
          if (zone) zones.set(zoneId, zone);
        }
        if (compiled.rule.type === 0 && !compiled.rule.geoids.some((id) => zones.has(id))) {
          reportUnusable(compiled.rule.id, NO_ZONE_REASON);
          continue;
        }
        rules.push(compiled);
      }
      const journalZones = journals.get(vehicleId);
      const silences = this.silences?.forVehicle(vehicles.get(vehicleId)!.projection.owners) ?? NO_SILENCES;
      resolved.set(vehicleId, {
        rules,
        zones: zones.size > 0 ? new VehicleZones(zones) : NO_ZONES,
        ...(silences.empty ? {} : { silences }),
        ...(journalZones ? { journal: { zoneIds: journalZones.ids, context: { now, zones: journalZones } } } : {}),
      });
    }
    return resolved;
  }

  /**
   * Reads, in one read of the records, every wanted id the cache lacks or holds at a version below the wanted one
   * (0: any cached version will do). A record that does not exist is remembered as absent at that version.
   */
  private async refresh<T>(
    cache: BoundedCache<T>,
    read: (ids: readonly number[]) => Promise<Record<string, unknown>[]>,
    wants: readonly [string, number][],
    build: (item: Record<string, unknown>) => T | null,
  ): Promise<void> {
    const missing = new Map<string, number>();
    for (const [id, version] of wants) {
      const cached = cache.get(id);
      if (cached && cached.version >= version) continue;
      missing.set(id, Math.max(version, missing.get(id) ?? 0));
    }
    if (missing.size === 0) return;
    const items = await read([...missing.keys()].map(Number));
    for (const item of items) {
      const id = String(item.id);
      const version = typeof item.version === 'number' ? item.version : 1;
      cache.set(id, { version, value: build(item), bytes: estimateBytes(item) });
      missing.delete(id);
    }
    for (const [id, version] of missing) cache.set(id, { version, value: null, bytes: 64 });
  }
}
