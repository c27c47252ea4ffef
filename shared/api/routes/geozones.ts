import { z } from 'zod';
import { geozoneBodySchema, type Geozone } from '../../schemas/geozone';
import {
  GeozoneConflictError,
  createGeozone,
  deleteGeozone,
  getGeozone,
  listGeozonesOfClient,
  replaceGeozone,
} from '../../store/geozones-store';
import { currentRulesVersion, rulesReferencingGeozone } from '../../store/rules-store';
import { conflict, notFound } from '../errors';
import { geozoneMeasures } from '../geozone-measures';
import { defineRoute, type Caller } from '../route';
import { geozoneRecordSchema, geozoneSummarySchema, idParamsSchema, parentIdBodySchema, successSchema } from '../schemas';

const geozoneReplaceBodySchema = geozoneBodySchema.safeExtend({ id: z.number().int().min(1) });

async function visibleZone(id: number, caller: Caller): Promise<Geozone> {
  const zone = await getGeozone(id);
  if (!zone || !(await caller.scope.includes(zone.parentId))) throw notFound(`geozone ${id}`);
  return zone;
}

/** The platform's geo-object list entry: file name and calculation window are not used by fleetwatch. */
function toSummary(zone: Geozone): z.infer<typeof geozoneSummarySchema> {
  const { geometry: _geometry, ...fields } = zone;
  return { ...fields, fname: null, beginCalc: null, endCalc: null };
}

export const geozoneRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v3/gis/find',
    tag: 'geozones',
    summary: 'List geozones of a client and of the clients below it',
    auth: true,
    writes: false,
    body: parentIdBodySchema,
    response: z.array(geozoneSummarySchema),
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
    tag: 'geozones',
    summary: 'Read one geozone with its GeoJSON geometry',
    auth: true,
    writes: false,
    params: idParamsSchema,
    response: geozoneRecordSchema,
    errors: [404],
    async handle({ params, caller }) {
      return { body: await visibleZone(params.id, caller) };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/gis',
    tag: 'geozones',
    summary: 'Create a geozone',
    description: 'Area (m²) and perimeter (m) are computed from the geometry; a circle is a Point centre with a radius in metres.',
    auth: true,
    writes: true,
    body: geozoneBodySchema,
    response: geozoneRecordSchema,
    errors: [403, 404],
    async handle({ body, caller, now }) {
      await caller.scope.require(body.parentId, `client ${body.parentId}`);
      const zone = await createGeozone({ ...body, ...geozoneMeasures(body.geometry, body.radius), createDate: new Date(now).toISOString() });
      return { body: zone };
    },
  }),

  defineRoute({
    method: 'PUT',
    path: '/api/v3/gis',
    tag: 'geozones',
    summary: 'Replace a geozone',
    description: 'Replaces the whole record (a field not sent is reset to its default) and answers the stored record.',
    auth: true,
    writes: true,
    body: geozoneReplaceBodySchema,
    response: geozoneRecordSchema,
    errors: [403, 404],
    async handle({ body, caller }) {
      const previous = await visibleZone(body.id, caller);
      await caller.scope.require(body.parentId, `client ${body.parentId}`);
      const zone: Geozone = { ...body, ...geozoneMeasures(body.geometry, body.radius), createDate: previous.createDate };
      if (!(await replaceGeozone(zone))) throw notFound(`geozone ${body.id}`);
      return { body: zone };
    },
  }),

  defineRoute({
    method: 'DELETE',
    path: '/api/v3/gis/{id}',
    tag: 'geozones',
    summary: 'Delete a geozone',
    description: 'Refused with 409 while a notification rule refers to the geozone in its geoids.',
    auth: true,
    writes: true,
    params: idParamsSchema,
    response: successSchema,
    errors: [403, 404, 409],
    async handle({ params, caller }) {
      const zone = await visibleZone(params.id, caller);
      const seenVersion = await currentRulesVersion();
      const users = await rulesReferencingGeozone(zone.id);
      if (users.length > 0) {
        const scope = await caller.scope.agentIds();
        const visible = users.filter((rule) => scope.has(rule.parentId)).map((rule) => rule.id);
        throw conflict(
          `geozone ${zone.id} is used by ${users.length} notification rule(s)` + (visible.length ? ` (ids ${visible.join(', ')})` : '') + '; remove it from their geoids first',
        );
      }
      await deleteGeozone(zone.id, seenVersion).catch((error: unknown) => {
        if (error instanceof GeozoneConflictError) throw conflict(error.message);
        throw error;
      });
      return { body: 'Success' };
    },
  }),
];
