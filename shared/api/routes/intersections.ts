import * as z from 'zod';
import { mergeVisits, visitSeconds, type Visit } from '../../geo/visit-merge';
import type { Geozone } from '../../schemas/geozone';
import type { VehicleProfile } from '../../schemas/directory';
import { getVehicles } from '../../store/directory-store';
import { getGeozones } from '../../store/geozones-store';
import { queryVisits, type VisitItem } from '../../store/visits-store';
import { notFound } from '../errors';
import { defineRoute, type Caller } from '../route';
import { strictBody } from '../strict-body';
import { intersectionsAnswerExample, intersectionsExample } from '../examples';

/**
 * Geozone visits (`gis/intersections`): when vehicles were inside zones, from the journal evaluation keeps for
 * every zone of the vehicle owner's clients. Visits that overlap the window are answered; a visit is looked for
 * from at most 31 days before `startDate` (a visit that began earlier is not found).
 */
export const MAX_WINDOW_DAYS = 31;
const DAY_MS = 86_400_000;

const idsSchema = z.array(z.number().int().min(1).max(2_147_483_647)).min(1).max(100);

export const intersectionsBodySchema = strictBody({
  startDate: z.iso.datetime({ offset: true }).describe('Start of the window, ISO 8601 (an offset is converted to UTC)'),
  endDate: z.iso.datetime({ offset: true }).describe('End of the window, after startDate and at most 31 days later'),
  ids: idsSchema.describe('1 to 100 vehicle ids (/vehicles) or geozone ids (/geozones) of your scope'),
  byTime: z
    .number()
    .min(0)
    .max(31 * 86_400)
    .default(0)
    .describe('Seconds: merge visits of one vehicle and zone separated by less than this (0: off)'),
  byDist: z
    .number()
    .min(0)
    .max(1_000_000)
    .default(0)
    .describe('Metres: merge visits whose exit position and next entry position are less than this apart (0: off); with byTime, both must hold'),
  filterByTime: z
    .number()
    .min(0)
    .max(31 * 86_400)
    .default(0)
    .describe('Seconds: drop visits shorter than this (an open visit counts up to endDate; 0: off)'),
  filterByHalfPerimeter: z
    .boolean()
    .default(false)
    .describe("Drop complete visits whose distance travelled inside is under half the zone's perimeter (perimetr); open visits are kept"),
})
  .refine((body) => Date.parse(body.endDate) > Date.parse(body.startDate), { path: ['endDate'], message: 'endDate must be after startDate' })
  .refine((body) => Date.parse(body.endDate) - Date.parse(body.startDate) <= MAX_WINDOW_DAYS * DAY_MS, {
    path: ['endDate'],
    message: `the window may span at most ${MAX_WINDOW_DAYS} days`,
  });

type IntersectionsBody = z.infer<typeof intersectionsBodySchema>;

export const intersectionSchema = z.object({
  geozoneId: z.number().int(),
  geozoneName: z.string(),
  startDate: z.string().describe('Entry, ISO 8601 UTC'),
  endDate: z.string().nullable().describe('Exit, ISO 8601 UTC; null while the vehicle is still inside'),
  duration: z.number().describe('Seconds; for an open visit, up to endDate of the query'),
  vehicleId: z.number().int(),
  vehicleName: z.string(),
});

function toVisit(item: VisitItem): Visit {
  return {
    vehicleId: item.vehicleId,
    zoneId: item.zoneId,
    startMs: Date.parse(item.startDate),
    endMs: item.endDate === undefined ? null : Date.parse(item.endDate),
    entry: { latitude: item.entryLatitude, longitude: item.entryLongitude },
    ...(item.exitLatitude !== undefined && item.exitLongitude !== undefined
      ? { exit: { latitude: item.exitLatitude, longitude: item.exitLongitude } }
      : {}),
    ...(item.distance === undefined ? {} : { distance: item.distance }),
  };
}

async function inScope<T extends { parentId: string }>(records: readonly T[], caller: Caller): Promise<T[]> {
  const scope = await caller.scope.agentIds();
  return records.filter((record) => scope.has(record.parentId));
}

/** Every id must name a record of the caller's scope; unknown and foreign ids answer alike (404). */
function requireAll<T>(ids: readonly number[], found: ReadonlyMap<number, T>, what: string): void {
  for (const id of ids) if (!found.has(id)) throw notFound(`${what} ${id}`);
}

function answer(
  body: IntersectionsBody,
  items: readonly VisitItem[],
  zones: ReadonlyMap<number, Geozone>,
  vehicles: ReadonlyMap<number, VehicleProfile>,
) {
  const fromMs = Date.parse(body.startDate);
  const untilMs = Date.parse(body.endDate);
  const overlapping = items
    .filter((item) => zones.has(item.zoneId) && vehicles.has(item.vehicleId))
    .map(toVisit)
    .filter((visit) => visit.startMs < untilMs && (visit.endMs === null || visit.endMs > fromMs));
  const visits = mergeVisits(overlapping, { ...body, untilMs, perimeterOf: (zoneId) => zones.get(zoneId)?.perimetr ?? 0 });
  return visits
    .sort((a, b) => a.startMs - b.startMs || a.vehicleId - b.vehicleId || a.zoneId - b.zoneId)
    .map((visit) => ({
      geozoneId: visit.zoneId,
      geozoneName: zones.get(visit.zoneId)!.name,
      startDate: new Date(visit.startMs).toISOString(),
      endDate: visit.endMs === null ? null : new Date(visit.endMs).toISOString(),
      duration: visitSeconds(visit, untilMs),
      vehicleId: visit.vehicleId,
      vehicleName: vehicles.get(visit.vehicleId)!.name,
    }));
}

/** The key range searched: entries from 31 days before startDate, up to (not including) endDate. */
function startRange(body: IntersectionsBody): [string, string] {
  return [new Date(Date.parse(body.startDate) - MAX_WINDOW_DAYS * DAY_MS).toISOString(), new Date(body.endDate).toISOString()];
}

const DESCRIPTION_TAIL =
  ' Visits overlapping [startDate, endDate) are answered: started before endDate, and still open or ended after startDate; ' +
  'a visit is looked for from 31 days before startDate. Entry and exit use the hysteresis of geozone rules (30 m). ' +
  'Merging (byTime, byDist) applies per vehicle and zone to consecutive visits; then filterByTime and filterByHalfPerimeter drop visits.';

/** The caller's vehicles among the ids, by id: unknown and foreign ids are left out. */
async function scopedVehicles(ids: readonly number[], caller: Caller): Promise<Map<number, VehicleProfile>> {
  const found = ids.length > 0 ? await inScope(await getVehicles(ids), caller) : [];
  return new Map(found.map((vehicle) => [vehicle.vehicleId, vehicle]));
}

/** The caller's geozones among the ids, by id: unknown and foreign ids are left out. */
async function scopedZones(ids: readonly number[], caller: Caller): Promise<Map<number, Geozone>> {
  const found = ids.length > 0 ? await inScope(await getGeozones(ids), caller) : [];
  return new Map(found.map((zone) => [zone.id, zone]));
}

/** The visits of the given sources whose start falls in the searched range. */
async function visitsOf(sources: readonly Parameters<typeof queryVisits>[0][], body: IntersectionsBody): Promise<VisitItem[]> {
  const [from, before] = startRange(body);
  return (await Promise.all(sources.map((source) => queryVisits(source, from, before)))).flat();
}

const unique = (ids: readonly number[]) => [...new Set(ids)];

/** What both routes share: a read-only POST of the same body, answered with the same visit list. */
const intersectionRoute = (path: string, operationId: string, summary: string, description: string) => ({
  method: 'POST' as const,
  path,
  operationId,
  tag: 'geozones' as const,
  summary,
  description: description + DESCRIPTION_TAIL,
  auth: true,
  writes: false,
  body: intersectionsBodySchema,
  response: z.array(intersectionSchema),
  examples: { body: intersectionsExample, response: intersectionsAnswerExample },
  errors: [404],
});

export const intersectionRoutes = [
  defineRoute({
    ...intersectionRoute(
      '/api/v3/gis/intersections/vehicles',
      'findVisitsOfVehicles',
      'Geozone visits of vehicles',
      'The visits of the given vehicles (each must be of your scope, else 404) to the zones of your scope.',
    ),
    async handle({ body, caller }) {
      const vehicles = await scopedVehicles(body.ids, caller);
      requireAll(body.ids, vehicles, 'vehicle');
      const items = await visitsOf(
        [...vehicles.keys()].map((vehicleId) => ({ kind: 'vehicle', vehicleId })),
        body,
      );
      const zones = await scopedZones(unique(items.map((item) => item.zoneId)), caller);
      return { body: answer(body, items, zones, vehicles) };
    },
  }),

  defineRoute({
    ...intersectionRoute(
      '/api/v3/gis/intersections/geozones',
      'findVisitsOfGeozones',
      'Vehicle visits of geozones',
      'The visits to the given geozones (each must be of your scope, else 404) by the vehicles of your scope.',
    ),
    async handle({ body, caller }) {
      const zones = await scopedZones(body.ids, caller);
      requireAll(body.ids, zones, 'geozone');
      const items = await visitsOf(
        [...zones.keys()].map((zoneId) => ({ kind: 'zone', zoneId })),
        body,
      );
      const vehicles = await scopedVehicles(unique(items.map((item) => item.vehicleId)), caller);
      return { body: answer(body, items, zones, vehicles) };
    },
  }),
];
