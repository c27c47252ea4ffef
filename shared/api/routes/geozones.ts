import * as z from 'zod';
import type { Geozone } from '../../schemas/geozone';
import {
  GeozoneConflictError,
  createGeozone,
  deleteGeozone,
  geozoneRefStamp,
  getGeozone,
  listGeozonesOfClient,
  replaceGeozone,
} from '../../store/geozones-store';
import { rulesReferencingGeozone } from '../../store/rules-store';
import { conflict, notFound } from '../errors';
import { etag, ifMatchVersion, requireVersion } from '../versioning';
import { geozoneMeasures } from '../geozone-measures';
import { checkGeozoneSize, limitAsHttp } from '../limit-checks';
import { limits } from '../limits';
import { defineRoute, type Caller } from '../route';
import { geozoneRecordSchema, geozoneSummarySchema, geozoneWriteBodySchema } from '../geozone-schemas';
import { idParamsSchema, parentIdBodySchema, successSchema } from '../schemas';
import {
  geozoneCreateExample,
  geozoneRecordExample,
  geozoneReplaceExample,
  geozoneSummariesExample,
  parentIdExample,
  successExample,
} from '../examples';

const geozoneReplaceBodySchema = geozoneWriteBodySchema.safeExtend({
  id: z.number().int().min(1).describe('the geozone; required'),
  version: z.number().int().min(1).optional().describe('The version read; a different stored version answers 409'),
});

function conflictAsHttp(error: unknown): never {
  if (error instanceof GeozoneConflictError) throw conflict(error.message);
  throw error;
}

async function visibleZone(id: number, caller: Caller): Promise<Geozone> {
  const zone = await getGeozone(id);
  if (!zone || !(await caller.scope.includes(zone.parentId))) throw notFound(`geozone ${id}`);
  return zone;
}

/** The platform's geo-object list entry: file name and calculation window are not used by fleetwatch. */
function toSummary(zone: Geozone): z.infer<typeof geozoneSummarySchema> {
  const { geometry: _geometry, version: _version, ...fields } = zone;
  return { ...fields, fname: null, beginCalc: null, endCalc: null };
}

export const geozoneRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v3/gis/find',
    operationId: 'findGeozones',
    tag: 'geozones',
    summary: 'List geozones of a client and of the clients below it',
    description:
      'Every geozone of the client given as parentId and of the clients below it, ordered by id, without geometry. A client outside your scope is 404.',
    auth: true,
    writes: false,
    body: parentIdBodySchema,
    response: z.array(geozoneSummarySchema),
    examples: { body: parentIdExample, response: geozoneSummariesExample },
    errors: [404],
    async handle({ body, caller }) {
      const clients = await caller.scope.subtree(body.parentId);
      const zones = (await Promise.all(clients.map(listGeozonesOfClient))).flat().sort((a, b) => a.id - b.id);
      return { body: zones.map(toSummary) };
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/api/v3/gis/{id}',
    operationId: 'getGeozone',
    tag: 'geozones',
    summary: 'Read one geozone with its GeoJSON geometry',
    description:
      'The geozone with its GeoJSON geometry, area and perimeter, when it belongs to your client or one below it (otherwise 404). The ETag header carries its version.',
    auth: true,
    writes: false,
    params: idParamsSchema,
    response: geozoneRecordSchema,
    examples: { response: geozoneRecordExample },
    errors: [404],
    async handle({ params, caller }) {
      const zone = await visibleZone(params.id, caller);
      return { body: zone, headers: etag(zone.version) };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/gis',
    operationId: 'createGeozone',
    tag: 'geozones',
    summary: 'Create a geozone',
    description: 'Area (m²) and perimeter (m) are computed from the geometry; a circle is a Point centre with a radius in metres.',
    auth: true,
    writes: true,
    body: geozoneWriteBodySchema,
    response: geozoneRecordSchema,
    examples: { body: geozoneCreateExample, response: geozoneRecordExample },
    errors: [403, 404, 409],
    async handle({ body, caller, now }) {
      await caller.scope.require(body.parentId, `client ${body.parentId}`);
      checkGeozoneSize(body.geometry);
      const { id: _id, version: _version, area: _area, perimetr: _perimetr, createDate: _createDate, ...fields } = body;
      const measures = geozoneMeasures(body.geometry, body.radius);
      const zone = await createGeozone({ ...fields, ...measures, createDate: new Date(now).toISOString() }, limits().geozonesPerClient).catch(
        limitAsHttp,
      );
      return { body: zone, headers: etag(zone.version) };
    },
  }),

  defineRoute({
    method: 'PUT',
    path: '/api/v3/gis',
    operationId: 'replaceGeozone',
    tag: 'geozones',
    summary: 'Replace a geozone',
    description:
      'Replaces the whole record (a field not sent is reset to its default) and answers the stored record, its new version in the ETag header. ' +
      'A version in the body or an If-Match header must equal the stored version, otherwise 409.',
    auth: true,
    writes: true,
    body: geozoneReplaceBodySchema,
    response: geozoneRecordSchema,
    examples: { body: geozoneReplaceExample, response: geozoneRecordExample },
    errors: [403, 404, 409],
    async handle({ body, caller, headers }) {
      const previous = await visibleZone(body.id, caller);
      requireVersion(previous, 'geozone', body.version, ifMatchVersion(headers));
      await caller.scope.require(body.parentId, `client ${body.parentId}`);
      checkGeozoneSize(body.geometry);
      const { version: _version, area: _area, perimetr: _perimetr, createDate: _createDate, ...fields } = body;
      const zone: Geozone = {
        ...fields,
        ...geozoneMeasures(body.geometry, body.radius),
        createDate: previous.createDate,
        version: previous.version + 1,
      };
      const move = { previousParentId: previous.parentId, limit: limits().geozonesPerClient };
      if (!(await replaceGeozone(zone, previous.version, move).catch(limitAsHttp).catch(conflictAsHttp))) throw notFound(`geozone ${body.id}`);
      return { body: zone, headers: etag(zone.version) };
    },
  }),

  defineRoute({
    method: 'DELETE',
    path: '/api/v3/gis/{id}',
    operationId: 'deleteGeozone',
    tag: 'geozones',
    summary: 'Delete a geozone',
    description:
      'Refused with 409 while a notification rule refers to the geozone in its geoids or its zone condition (settings.zones). An If-Match header, when sent, must equal the stored version, otherwise 409.',
    auth: true,
    writes: true,
    params: idParamsSchema,
    response: successSchema,
    examples: { response: successExample },
    errors: [403, 404, 409],
    async handle({ params, caller, headers }) {
      const zone = await visibleZone(params.id, caller);
      requireVersion(zone, 'geozone', ifMatchVersion(headers));
      const seenVersion = await geozoneRefStamp(zone.id);
      const users = await rulesReferencingGeozone(zone.id);
      if (users.length > 0) {
        const scope = await caller.scope.agentIds();
        const visible = users.filter((rule) => scope.has(rule.parentId)).map((rule) => rule.id);
        throw conflict(
          `geozone ${zone.id} is used by ${users.length} notification rule(s)` +
            (visible.length ? ` (ids ${visible.join(', ')})` : '') +
            '; remove it from their geoids and settings.zones first',
        );
      }
      await deleteGeozone(zone.id, zone.version, seenVersion, zone.parentId).catch(conflictAsHttp);
      return { body: 'Success' };
    },
  }),
];
