import * as z from 'zod';
import type { buildOpenApiDocument } from '../openapi';
import { defineRoute, type ApiRoute } from '../route';
import { openApiAnswerExample } from '../examples';

/** GET /api/v3/openapi.json, describing `routes()` (which includes this route). */
export function openApiRoute(routes: () => readonly ApiRoute[]): ApiRoute {
  let document: ReturnType<typeof buildOpenApiDocument> | undefined;
  return defineRoute({
    method: 'GET',
    path: '/api/v3/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: 'meta',
    summary: 'This OpenAPI 3.1 document',
    description: 'The OpenAPI 3.1 document of this API, generated from the same schemas that validate requests. Needs no session.',
    auth: false,
    writes: false,
    response: z.object({ openapi: z.string() }).loose(),
    examples: { response: openApiAnswerExample },
    async handle() {
      // the generator (zod-to-openapi) is loaded by the first request for the document, not at every cold start
      document ??= (await import('../openapi')).buildOpenApiDocument(routes());
      return { body: document };
    },
  });
}
