import type { GeozoneGeometry } from '../schemas/geozone';
import type { NotificationBody } from '../schemas/notification';
import { ClientCounterBusyError, ClientLimitError } from '../store/client-counts';
import { conflict, validationError } from './errors';
import { limits } from './limits';

/** 400 when a rule lists more vehicles than a rule may. */
export function checkRuleSize(body: Pick<NotificationBody, 'vehicleIds'>): void {
  const { vehicleIdsPerRule } = limits();
  if (body.vehicleIds.length > vehicleIdsPerRule) {
    throw validationError([{ path: 'vehicleIds', message: `a rule may list at most ${vehicleIdsPerRule} vehicles` }]);
  }
}

const LIMITED_RECORDS = { rules: 'notification rules', geozones: 'geozones', silences: 'silences' } as const;

/**
 * A write refused because the client already owns as many records as it may (checked in the write's own
 * transaction) answers 400 naming `parentId`; one that lost the client's counter to too many parallel creates
 * answers 409; any other error passes through.
 */
export function limitAsHttp(error: unknown): never {
  if (error instanceof ClientLimitError) {
    throw validationError([{ path: 'parentId', message: `client already has ${error.limit} ${LIMITED_RECORDS[error.kind]}, the most allowed` }]);
  }
  if (error instanceof ClientCounterBusyError) throw conflict(error.message);
  throw error;
}

function vertexCount(geometry: GeozoneGeometry): number {
  switch (geometry.type) {
    case 'Point':
      return 1;
    case 'Polygon':
      return geometry.coordinates.reduce((sum, ring) => sum + ring.length, 0);
    case 'MultiPolygon':
      return geometry.coordinates.reduce((sum, polygon) => sum + polygon.reduce((inner, ring) => inner + ring.length, 0), 0);
  }
}

/** 400 when a geometry has more vertices or bytes than a geozone may (a DynamoDB item holds at most 400 KB). */
export function checkGeozoneSize(geometry: GeozoneGeometry): void {
  const { verticesPerGeozone, geozoneGeometryBytes } = limits();
  const vertices = vertexCount(geometry);
  if (vertices > verticesPerGeozone) {
    throw validationError([{ path: 'geometry', message: `a geozone may have at most ${verticesPerGeozone} vertices` }]);
  }
  const bytes = Buffer.byteLength(JSON.stringify(geometry));
  if (bytes > geozoneGeometryBytes) {
    throw validationError([
      { path: 'geometry', message: `the geometry takes ${bytes} bytes; a geozone may take at most ${geozoneGeometryBytes} bytes` },
    ]);
  }
}
