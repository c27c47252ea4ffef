import * as z from 'zod';
import { guidSchema } from './notification';

/**
 * Degrees to 7 decimals (about 1 cm), the precision a position needs. Rounding also keeps every coordinate a
 * number DynamoDB stores: it refuses magnitudes below 1e-130. Zero is written +0.
 */
const roundDegrees = (degrees: number): number => Math.round(degrees * 1e7) / 1e7 || 0;

const degrees = (limit: number) => z.number().min(-limit).max(limit).transform(roundDegrees);
/** [longitude, latitude], exactly two: the document says so too (items: false), which zod's tuple leaves out. */
const position = z.tuple([degrees(180), degrees(90)]).meta({ minItems: 2, items: false });
const linearRing = z
  .array(position)
  .min(4)
  .max(10_000)
  .refine((ring) => ring[0]![0] === ring.at(-1)![0] && ring[0]![1] === ring.at(-1)![1], {
    message: 'a linear ring must be closed (first position equals last)',
  });

/** GeoJSON geometries a geozone may have. A circle is a Point centre with the geozone's `radius` in metres. */
export const polygonGeometrySchema = z.object({ type: z.literal('Polygon'), coordinates: z.array(linearRing).min(1).max(100) });
export const multiPolygonGeometrySchema = z.object({
  type: z.literal('MultiPolygon'),
  coordinates: z.array(z.array(linearRing).min(1).max(100)).min(1).max(100),
});
export const pointGeometrySchema = z.object({ type: z.literal('Point'), coordinates: position });

export const geozoneGeometrySchema = z.discriminatedUnion('type', [polygonGeometrySchema, multiPolygonGeometrySchema, pointGeometrySchema]);

export type GeozoneGeometry = z.infer<typeof geozoneGeometrySchema>;

/** The smallest circle: under a metre, a zone is smaller than the error of any position fix. */
export const MIN_RADIUS_METRES = 1;

/** Geozone as the API takes it on create/replace: area and perimeter are computed, never taken from input. */
export const geozoneBodySchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    type: z.enum(['polygon', 'circle']),
    parentId: guidSchema,
    radius: z.number().min(MIN_RADIUS_METRES).max(1_000_000).nullable().default(null),
    description: z.string().max(2_000).default(''),
    geometry: geozoneGeometrySchema,
  })
  .superRefine(refuseMismatchedGeometry);

/** A circle is a Point with a radius, a polygon is not a Point. */
export function refuseMismatchedGeometry(
  zone: { type: 'polygon' | 'circle'; radius: number | null; geometry: GeozoneGeometry },
  ctx: z.core.$RefinementCtx,
): void {
  if (zone.type === 'circle' && (zone.geometry.type !== 'Point' || zone.radius === null)) {
    ctx.addIssue({ code: 'custom', path: ['geometry'], message: 'a circle needs a Point centre and a radius in metres' });
  }
  if (zone.type === 'polygon' && zone.geometry.type === 'Point') {
    ctx.addIssue({ code: 'custom', path: ['geometry'], message: 'a polygon needs a Polygon or MultiPolygon geometry' });
  }
}

export const geozoneSchema = z.object({
  id: z.number().int().min(1),
  name: z.string(),
  type: z.enum(['polygon', 'circle']),
  parentId: z.string(),
  radius: z.number().nullable(),
  description: z.string(),
  geometry: geozoneGeometrySchema,
  /** Square metres, computed. */
  area: z.number(),
  /** Metres, computed; the platform's field name. */
  perimetr: z.number(),
  createDate: z.iso.datetime({ offset: true }),
  /** Bumped by every replace; PUT and DELETE may name it (body `version` or If-Match) to refuse a stale write. */
  version: z.number().int().min(1).default(1),
});

export type GeozoneBody = z.infer<typeof geozoneBodySchema>;
export type Geozone = z.infer<typeof geozoneSchema>;
