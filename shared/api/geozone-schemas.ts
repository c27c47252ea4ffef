import * as z from 'zod';
import { unsupportedGeometryIssues } from '../geo/supported-geometry';
import { geozoneBodySchema, geozoneSchema, refuseMismatchedGeometry } from '../schemas/geozone';
import { guidSchema } from '../schemas/notification';
import { strictBody } from './strict-body';

/** The geozones' list entries, records and write bodies. */
export const geozoneSummarySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  type: z.enum(['polygon', 'circle']),
  fname: z.null(),
  parentId: guidSchema,
  radius: z.number().nullable(),
  beginCalc: z.null(),
  endCalc: z.null(),
  description: z.string(),
  area: z.number().describe('square metres'),
  perimetr: z.number().describe('metres'),
  createDate: z.iso.datetime({ offset: true }),
});

export const geozoneRecordSchema = geozoneSchema;

/**
 * A geozone body the zone index can answer for (see `unsupportedGeometryIssues`). It takes the geozone as the API
 * answers it: `id` and `version` (used by a replace), and the computed fields, ignored.
 */
export const geozoneWriteBodySchema = strictBody({
  ...geozoneBodySchema.shape,
  id: z.number().int().optional().describe('read-only on create (a new zone gets a new id); required to replace'),
  version: z.number().int().min(1).optional().describe('ignored on create; on replace, the version read: a different stored version answers 409'),
  area: z.number().optional().describe('read-only: computed from the geometry, ignored when sent'),
  perimetr: z.number().optional().describe('read-only: computed from the geometry, ignored when sent'),
  createDate: z.string().optional().describe('read-only: set by the API, ignored when sent'),
})
  .superRefine(refuseMismatchedGeometry)
  .superRefine((zone, ctx) => {
    for (const issue of unsupportedGeometryIssues(zone)) ctx.addIssue({ code: 'custom', ...issue });
  });
