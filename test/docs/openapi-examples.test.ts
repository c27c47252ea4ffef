import { compileErrors, validate } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument, routeExamples } from '../../shared/api/openapi';
import { apiRoutes } from '../../shared/api/routes';

type MediaType = { example?: unknown };
type Operation = { requestBody?: { content: Record<string, MediaType> }; responses: Record<string, { content?: Record<string, MediaType> }> };

describe('OpenAPI examples', () => {
  const document = buildOpenApiDocument(apiRoutes);
  const operation = (method: string, path: string) => (document.paths as Record<string, Record<string, Operation>>)[path]![method.toLowerCase()]!;

  it('shows a request example for every operation with a body, and an example of every success answer', () => {
    const missing: string[] = [];
    for (const route of apiRoutes) {
      const described = operation(route.method, route.path);
      if (route.body && described.requestBody?.content[route.requestType ?? 'application/json']?.example === undefined)
        missing.push(`${route.method} ${route.path} request`);
      if (described.responses[String(route.successStatus ?? 200)]?.content?.[route.responseType ?? 'application/json']?.example === undefined)
        missing.push(`${route.method} ${route.path} response`);
    }
    expect(missing).toEqual([]);
  });

  it('has only examples that the schemas the router validates with accept', () => {
    const invalid: string[] = [];
    for (const route of apiRoutes) {
      const { body, response } = routeExamples(route);
      const checks = [...(route.body ? [['request', route.body, body] as const] : []), ['response', route.response, response] as const];
      for (const [which, schema, example] of checks) {
        const parsed = schema.safeParse(example);
        if (!parsed.success)
          invalid.push(
            `${route.method} ${route.path} ${which}: ${parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ')}`,
          );
      }
    }
    expect(invalid).toEqual([]);
  });

  it('stays a valid OpenAPI 3.1 document with them', async () => {
    const result = await validate(structuredClone(document) as Parameters<typeof validate>[0]);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
  });
});
