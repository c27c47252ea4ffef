import { buildOpenApiDocument } from '../../shared/api/openapi';
import { apiRoutes } from '../../shared/api/routes';

/** The OpenAPI document as `GET /api/v3/openapi.json` serves it, as JSON text. */
export function openApiJson(): string {
  return JSON.stringify(buildOpenApiDocument(apiRoutes), null, 2);
}
