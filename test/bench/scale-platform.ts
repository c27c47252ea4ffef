import pLimit from 'p-limit';
import { BatchWriteCommand, type BatchWriteCommandOutput } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/dynamodb';
import { resourcesConfig } from '../../shared/config';
import { notificationBodySchema, type RuleType, type StoredRule } from '../../shared/schemas/notification';
import type { Geozone } from '../../shared/schemas/geozone';
import { ruleItem } from '../../shared/store/rules-store';
import { zonesOfRule } from '../../shared/store/rule-coverage';
import { silenceShardOf } from '../../shared/store/vehicle-state-store';
import { seededRandom } from './timing';
import { REGION } from './synthetic-zones';
import { T0 } from '../support/fixtures';

/**
 * A platform of the size fleetwatch is designed for, written straight into the tables with BatchWriteItem:
 * 1,000 clients with 21 rules and 10 geozones each (21,000 rules, 10,000 zones) and any number of vehicles,
 * vehicle v belonging to client v mod 1,000. Each vehicle is under six of its client's rules (speeding, a
 * geozone rule, connection loss after 30 minutes, panic, idle, chosen by its id alone, and the client's one
 * scoped rule, `scope: client`, a speeding rule with a zone condition, which lists no vehicle), so that growing the fleet
 * adds vehicles to the rules' lists without changing what an existing vehicle is under. Vehicle items carry
 * what the directory and the projector would have written (owner, rule and zone refs) and a state last seen a
 * minute before T0, with its silence deadline.
 */
export const CLIENTS = 1_000;
export const RULES_PER_CLIENT = 21;
export const ZONES_PER_CLIENT = 10;
export { T0 };
const DAY = 86_400_000;

/** Per client: rule slots by type; a vehicle takes one slot of each type. */
const SLOTS: { type: RuleType; count: number; settings: Record<string, string> }[] = [
  { type: 2, count: 8, settings: { limit: '90', minDuration: '10' } },
  { type: 0, count: 6, settings: { mode: 'both' } },
  { type: 7, count: 2, settings: { minutes: '30' } },
  { type: 6, count: 2, settings: { parameter: 'panic' } },
  { type: 11, count: 2, settings: { minutes: '10' } },
  // zones: the client's first zone, filled in per client below
  { type: 2, count: 1, settings: { limit: '60', minDuration: '10', scope: 'client', zoneMode: 'inside' } },
];

const isScoped = (settings: Record<string, string>) => settings.scope !== undefined;

export interface Platform {
  clients: string[];
  zones: Geozone[];
  rules: StoredRule[];
  /** Rules a vehicle is under, by rule id. */
  rulesOfVehicle(vehicleId: number): StoredRule[];
}

const clientOf = (vehicleId: number) => vehicleId % CLIENTS;

export function buildPlatform(vehicles: number): Platform {
  const random = seededRandom(7);
  const clients = Array.from({ length: CLIENTS }, () => randomUUIDFrom(random));
  // depots and yards: circles of 100 m to 1 km, small items, so that seeding stays quick
  const zones: Geozone[] = Array.from({ length: CLIENTS * ZONES_PER_CLIENT }, (_, index) => {
    const radius = 100 + Math.floor(random() * 900);
    return {
      id: index + 1,
      name: `yard ${index + 1}`,
      type: 'circle',
      parentId: clients[Math.floor(index / ZONES_PER_CLIENT)]!,
      radius,
      description: '',
      geometry: {
        type: 'Point',
        coordinates: [REGION.minLon + random() * (REGION.maxLon - REGION.minLon), REGION.minLat + random() * (REGION.maxLat - REGION.minLat)],
      },
      area: Math.PI * radius * radius,
      perimetr: 2 * Math.PI * radius,
      createDate: new Date(T0 - 30 * DAY).toISOString(),
      version: 1,
    };
  });
  const created = new Date(T0 - DAY).toISOString();
  const rules: StoredRule[] = [];
  for (let client = 0; client < CLIENTS; client++) {
    let slot = 0;
    for (const { type, count, settings } of SLOTS) {
      for (let n = 0; n < count; n++, slot++) {
        const id = client * RULES_PER_CLIENT + slot + 1;
        const geoids =
          type === 0 ? [client * ZONES_PER_CLIENT + (n % ZONES_PER_CLIENT) + 1, client * ZONES_PER_CLIENT + ((n + 3) % ZONES_PER_CLIENT) + 1] : [];
        const ruleSettings = isScoped(settings) ? { ...settings, zones: String(client * ZONES_PER_CLIENT + 1) } : settings;
        rules.push({
          ...notificationBodySchema.parse({ type, parentId: clients[client], name: `rule ${id}`, active: true, geoids, settings: ruleSettings }),
          id,
          parentName: `client ${client}`,
          version: 1,
          createdAt: created,
          updatedAt: created,
          validFrom: created,
          expiresAt: new Date(T0 + 60 * DAY).toISOString(),
        });
      }
    }
  }
  const rulesOfVehicle = (vehicleId: number) => {
    const client = clientOf(vehicleId);
    const pick = Math.floor(vehicleId / CLIENTS);
    let offset = 0;
    return SLOTS.map(({ count }) => {
      const rule = rules[client * RULES_PER_CLIENT + offset + (pick % count)]!;
      offset += count;
      return rule;
    });
  };
  for (let vehicleId = 1; vehicleId <= vehicles; vehicleId++) {
    for (const rule of rulesOfVehicle(vehicleId)) if (!isScoped(rule.settings)) rule.vehicleIds.push(vehicleId);
  }
  return { clients, zones, rules, rulesOfVehicle };
}

function randomUUIDFrom(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The vehicle item as the directory and the projector would have left it, with a state last seen at `lastSeenAt`. */
export function vehicleItem(platform: Platform, vehicleId: number, lastSeenAt: number): Record<string, unknown> {
  const rules = platform.rulesOfVehicle(vehicleId);
  const zoneRefs: Record<string, number> = {};
  for (const rule of rules) for (const zoneId of zonesOfRule(rule)) zoneRefs[zoneId] = 1;
  return {
    vehicleId,
    version: 1,
    lastDeviceTime: new Date(lastSeenAt).toISOString(),
    lastSeenAt,
    lastPosition: null,
    rules: {},
    owners: [platform.clients[clientOf(vehicleId)]],
    ruleRefs: Object.fromEntries(rules.map((rule) => [rule.id, rule.version])),
    zoneRefs,
    silenceShard: silenceShardOf(vehicleId),
    // 30 minutes of silence, plus the 3 minutes a coalesced clock adds (the exact one stores 30: either is found)
    silentAt: lastSeenAt + 33 * 60_000,
  };
}

/** Writes items with BatchWriteItem, 25 per request, a few requests at a time, retrying unprocessed items. */
export async function writeItems(tableName: string, items: Iterable<Record<string, unknown>>, concurrency = 6): Promise<void> {
  const chunks: Record<string, unknown>[][] = [];
  let chunk: Record<string, unknown>[] = [];
  for (const item of items) {
    chunk.push(item);
    if (chunk.length === 25) {
      chunks.push(chunk);
      chunk = [];
    }
  }
  if (chunk.length > 0) chunks.push(chunk);
  const writeChunk = async (items: Record<string, unknown>[]) => {
    let requests = items.map((Item) => ({ PutRequest: { Item } }));
    for (let round = 0; requests.length > 0; round++) {
      if (round > 0) await new Promise((resolve) => setTimeout(resolve, 50 * round));
      const output: BatchWriteCommandOutput = await documentClient().send(new BatchWriteCommand({ RequestItems: { [tableName]: requests } }));
      requests = (output.UnprocessedItems?.[tableName] ?? []) as typeof requests;
    }
  };
  const limit = pLimit(concurrency);
  await Promise.all(chunks.map((items) => limit(() => writeChunk(items))));
}

export async function seedRulesAndZones(platform: Platform): Promise<void> {
  const { RULES_TABLE, GEOZONES_TABLE } = resourcesConfig();
  await writeItems(
    GEOZONES_TABLE,
    platform.zones.map((zone) => ({ ...zone })),
  );
  await writeItems(RULES_TABLE, platform.rules.map(ruleItem));
}

export async function seedVehicles(platform: Platform, from: number, to: number, lastSeenAt: number): Promise<void> {
  const { VEHICLE_STATE_TABLE } = resourcesConfig();
  function* items() {
    for (let vehicleId = from; vehicleId <= to; vehicleId++) yield vehicleItem(platform, vehicleId, lastSeenAt);
  }
  await writeItems(VEHICLE_STATE_TABLE, items());
}
