import { compileZone, type CompiledZone } from '../geo/compiled-zone';
import { logger } from '../observability/logger';
import { geozoneSchema } from '../schemas/geozone';
import { storedSilenceSchema } from '../schemas/silence';
import { compileSilence, NO_SILENCES, VehicleSilences, type CompiledSilence } from './maintenance-silence';

/**
 * The maintenance silences of the clients a warm function has met, each client's read at most once per
 * SILENCE_CACHE_MS of evaluation time (one Query of its partition, and a read of the geozones its silences name).
 *
 * Bounded staleness rather than versions: a version would have to be written onto every vehicle item of the
 * client (as the projector does for rules) each time a silence is made, ended or deleted, a write per vehicle for
 * an operator's window of hours or days. A silence instead takes effect, and an early end or deletion is seen, at
 * most SILENCE_CACHE_MS late, and a client costs one small Query per container per SILENCE_CACHE_MS, however many
 * vehicles it has. Whether a silence holds is judged at each event's own time against its `from`, `to` and
 * schedule, so its planned start and end are exact whatever the cache's age.
 */
export const SILENCE_CACHE_MS = 30_000;
/** Clients whose silences one container keeps; the oldest read is dropped first. */
const MAX_CLIENTS = 10_000;

export interface SilenceRecords {
  /** The live silence items of one client (an eventually consistent Query). */
  silencesOfClient(clientId: string, now: number): Promise<Record<string, unknown>[]>;
  /** Geozones by id; an id with no item is simply absent from the answer. */
  zonesById(ids: readonly number[]): Promise<Record<string, unknown>[]>;
}

interface ClientSilences {
  readAt: number;
  silences: CompiledSilence[];
  zones: Map<number, CompiledZone>;
}

export class SilenceCache {
  private readonly clients = new Map<string, ClientSilences>();

  constructor(
    private readonly records: SilenceRecords,
    private readonly maxAgeMs = SILENCE_CACHE_MS,
  ) {}

  /** Reads the silences of each client not read within the last `maxAgeMs` of `now`. */
  async refresh(clientIds: Iterable<string>, now: number): Promise<void> {
    const stale = [...new Set(clientIds)].filter((clientId) => {
      const cached = this.clients.get(clientId);
      return cached === undefined || now < cached.readAt || now - cached.readAt >= this.maxAgeMs;
    });
    await Promise.all(stale.map(async (clientId) => this.store(clientId, await this.read(clientId, now))));
  }

  private store(clientId: string, entry: ClientSilences): void {
    this.clients.delete(clientId);
    this.clients.set(clientId, entry);
    if (this.clients.size > MAX_CLIENTS) this.clients.delete(this.clients.keys().next().value!);
  }

  private async read(clientId: string, now: number): Promise<ClientSilences> {
    const silences: CompiledSilence[] = [];
    for (const item of await this.records.silencesOfClient(clientId, now)) {
      const parsed = storedSilenceSchema.safeParse(item);
      const compiled = parsed.success ? compileSilence(parsed.data) : null;
      if (compiled) silences.push(compiled);
      else logger.error('unreadable silence skipped', { silenceId: item.id });
    }
    const zoneIds = [...new Set(silences.flatMap((silence) => silence.zones ?? []))];
    const zones = new Map<number, CompiledZone>();
    if (zoneIds.length > 0) {
      for (const item of await this.records.zonesById(zoneIds)) {
        const parsed = geozoneSchema.safeParse(item);
        if (parsed.success) zones.set(parsed.data.id, compileZone(parsed.data));
      }
    }
    return { readAt: now, silences, zones };
  }

  /** The silences that may hold back the events of a vehicle with this owner chain, as last read. */
  forVehicle(owners: readonly string[]): VehicleSilences {
    const entries = owners.map((clientId) => this.clients.get(clientId)).filter((entry) => entry !== undefined && entry.silences.length > 0);
    if (entries.length === 0) return NO_SILENCES;
    const zones = new Map(entries.flatMap((entry) => [...entry!.zones]));
    return new VehicleSilences(
      owners,
      entries.flatMap((entry) => entry!.silences),
      zones,
    );
  }
}
