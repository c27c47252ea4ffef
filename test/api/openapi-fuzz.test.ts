import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildOpenApiDocument, routeExamples } from '../../shared/api/openapi';
import { apiRoutes } from '../../shared/api/routes';
import { AnswerChecker, bodyText, operationsOf, pathSegment, valueFor, type OpenApiDocument } from '../support/openapi-fuzz';

/** The fuzzer's own parts: an answer checker that lets nothing undocumented through, and requests sent as written. */
describe('OpenAPI fuzzer', () => {
  const operations = operationsOf(buildOpenApiDocument(apiRoutes) as unknown as OpenApiDocument);
  const operation = (id: string) => operations.find((candidate) => candidate.operationId === id)!;
  const json = { 'Content-Type': 'application/json' };
  const checker = new AnswerChecker();

  it('accepts the documented example of every JSON answer', () => {
    for (const candidate of operations) {
      const route = apiRoutes.find((each) => each.method === candidate.method && each.path === candidate.path)!;
      const headers = { 'Content-Type': route.responseType ?? 'application/json' };
      expect(
        checker.problems(candidate, { status: route.successStatus ?? 200, headers, body: routeExamples(route).response }),
        candidate.operationId,
      ).toEqual([]);
    }
  });

  it('refuses a 5xx, an undocumented status, an undocumented field and a 4xx without its reason', () => {
    const getClient = operation('getClient');
    const client = routeExamples(apiRoutes.find((route) => route.path === '/api/v3/agents/{id}')!).response as Record<string, unknown>;
    const internal = { error: 'InternalError', message: 'an unexpected error occurred', correlationId: 'c-1' };
    expect(checker.problems(getClient, { status: 500, headers: json, body: internal })).toEqual(['answered 500']);
    expect(checker.problems(getClient, { status: 409, headers: json, body: { error: 'Conflict', message: 'x' } })).toEqual([
      'status 409 is not in the document',
    ]);
    expect(checker.problems(getClient, { status: 200, headers: json, body: { ...client, passwordHash: 'x' } })[0]).toMatch(
      /must NOT have additional properties/,
    );
    expect(checker.problems(getClient, { status: 404, headers: json, body: { error: 'NotFound', message: ' ' } })[0]).toMatch(/gives no reason/);
    expect(checker.problems(getClient, { status: 400, headers: json, body: { error: 'ValidationError', message: 'bad', issues: [] } })).toContain(
      'the 400 body lists no issue',
    );
    expect(checker.problems(getClient, { status: 200, headers: { 'Content-Type': 'text/html' }, body: '<p>hi</p>' })).toEqual([
      'Content-Type text/html is not documented for 200',
    ]);
  });

  it('sends lone surrogates in a path as the bytes a careless encoder writes, and number literals JSON.stringify cannot write', () => {
    expect(pathSegment('a\uD800/')).toBe('a%ED%A0%80%2F');
    expect(pathSegment('🚚')).toBe(encodeURIComponent('🚚'));
    const values = fc.sample(
      valueFor({ type: 'object', properties: { limit: { type: 'number' } }, required: ['limit'] }, { byField: {}, strings: [], numbers: [] }),
      {
        seed: 7,
        numRuns: 2_000,
      },
    );
    const texts = values.map(bodyText);
    expect(texts).toContain('{"limit":1e999}');
    expect(texts.every((text) => text === undefined || !text.includes('@@raw@@'))).toBe(true);
  });
});
