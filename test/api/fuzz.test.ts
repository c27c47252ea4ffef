import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import type { Emulators } from '../../infra/local/emulators';
import { buildOpenApiDocument } from '../../shared/api/openapi';
import { apiRoutes } from '../../shared/api/routes';
import { startTestEmulators } from '../support/emulators';
import {
  AnswerChecker,
  bodyText,
  operationsOf,
  paramFor,
  pathSegment,
  sampleOf,
  valueFor,
  type FuzzOperation,
  type OpenApiDocument,
  type RealIds,
} from '../support/openapi-fuzz';
import { apiClient, login, ruleBody, seedTenants, depotZoneBody, type Api } from './support';

/**
 * Every operation of the OpenAPI document, fuzzed with requests made from its own request schemas: samples with
 * real ids of a seeded tenant and hostile values, on real sessions (and on none), through the real API handler
 * on DynamoDB Local. Every answer is one the document describes: never 5xx, a 4xx that says why, a 2xx that
 * matches the operation's response schema.
 *
 * `npm test` runs a few requests per operation from a fixed seed. `npm run fuzz` runs FUZZ_RUNS per operation
 * (default 200) from FUZZ_SEED, or from a fresh seed it prints; a failure prints the request that broke.
 *
 * Raw requests, not the typed client: the requests are built at run time from the document and include hostile
 * values it forbids, which the client's compile-time types cannot express.
 */
const runs = Number(process.env.FUZZ_RUNS ?? 10);
const seed = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : process.env.FUZZ_RUNS ? Date.now() % 2 ** 31 : 20_260_301;
if (process.env.FUZZ_RUNS) console.log(`fuzzing ${runs} requests per operation from seed ${seed} (FUZZ_SEED=${seed} repeats it)`);

const document = buildOpenApiDocument(apiRoutes) as unknown as OpenApiDocument;
const operations = operationsOf(document);

type SessionName = 'writer' | 'childWriter' | 'readOnly' | 'none' | 'ended';

describe('OpenAPI-driven fuzzing', () => {
  let emulators: Emulators;
  let api: Api;
  let sessions: Record<SessionName, string | undefined>;
  let ids: RealIds;
  const checker = new AnswerChecker();

  beforeAll(async () => {
    // the fuzzer sends far more than a client's per-minute allowance; that limit has its own test
    vi.stubEnv('LIMIT_API_REQUESTS_PER_CLIENT_PER_MINUTE', '1000000');
    emulators = await startTestEmulators('api-fuzz');
    const tenants = await seedTenants('fuzz');
    api = apiClient();
    const writer = await login(api, tenants.root);
    const created = async (path: string, body: unknown) => {
      const response = await api({ method: 'POST', path, token: writer, body });
      if (response.status !== 200) throw new Error(`seeding ${path}: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body;
    };
    const rules = [
      await created('/api/v3/notifications', ruleBody(tenants.root.agentId)),
      await created('/api/v3/notifications', ruleBody(tenants.child.agentId, { vehicleIds: [303] })),
    ];
    const zones = [
      await created('/api/v3/gis', depotZoneBody(tenants.root.agentId)),
      await created('/api/v3/gis', depotZoneBody(tenants.child.agentId, { name: 'Yard' })),
    ];
    const webhook = await created('/api/v3/webhooks', { url: 'https://hooks.fuzz.example.com/alerts', description: 'fuzz' });
    // users the fuzzer may change at will: never those whose sessions it uses
    const users = [
      await created('/api/v3/users', { login: 'fuzz-target-one', password: 'long enough password', email: 'one@fuzz.example.com' }),
      await created('/api/v3/users', {
        parentId: tenants.child.agentId,
        login: 'fuzz-target-two',
        password: 'long enough password',
        email: 'two@fuzz.example.com',
      }),
    ];
    const clients = [tenants.root.agentId, tenants.root.agentId, tenants.child.agentId, tenants.sibling.agentId];
    const vehicles = [101, 101, 303, 202];
    const userIds = users.map((user) => user.id as string);
    ids = {
      byField: {
        parentId: clients,
        vehicleId: vehicles,
        vehicleIds: vehicles,
        geoids: zones.map((zone) => zone.id),
        userId: userIds,
        recipientIds: userIds,
      },
      strings: [
        tenants.root.agentId,
        tenants.child.agentId,
        tenants.sibling.agentId,
        tenants.sibling.userId,
        webhook.id,
        ...users.map((user) => user.id),
      ],
      numbers: [101, 202, 303, ...rules.map((rule) => rule.id), ...zones.map((zone) => zone.id)],
    };
    sessions = {
      writer,
      childWriter: await login(api, tenants.child),
      readOnly: await login(api, tenants.readOnly),
      none: undefined,
      ended: 'not-a-session-token',
    };
  });
  const statuses = new Map<string, Map<number, number>>();
  afterAll(async () => {
    if (process.env.FUZZ_RUNS || process.env.FUZZ_STATUSES) {
      for (const [operationId, counts] of statuses)
        console.log(
          `${operationId}: ${[...counts]
            .sort(([a], [b]) => a - b)
            .map(([status, count]) => `${status}×${count}`)
            .join(' ')}`,
        );
    }
    vi.unstubAllEnvs();
    await emulators.stop();
  });

  it('drives every operation the router serves', () => {
    expect(operations.map((operation) => `${operation.method} ${operation.path}`).sort()).toEqual(
      apiRoutes.map((route) => `${route.method} ${route.path}`).sort(),
    );
  });

  const requestFor = (operation: FuzzOperation) =>
    fc.record({
      session: fc.oneof(
        { weight: 6, arbitrary: fc.constant<SessionName>('writer') },
        { weight: 1, arbitrary: fc.constantFrom<SessionName>('childWriter', 'readOnly', 'none', 'ended') },
      ),
      params: fc.tuple(...operation.params.map((param) => paramFor(param.name, param.schema, ids))),
      body: operation.body
        ? fc.oneof({ weight: 9, arbitrary: valueFor(operation.body!, ids) }, { weight: 1, arbitrary: fc.string({ maxLength: 60 }) })
        : fc.constant(undefined),
    });

  it.each(operations.map((operation) => [operation.operationId, operation] as const))(
    '%s answers only as the document says',
    async (_id, operation) => {
      await fc.assert(
        fc.asyncProperty(requestFor(operation), async (request) => {
          let path = operation.path;
          operation.params.forEach((param, index) => (path = path.replace(`{${param.name}}`, pathSegment(request.params[index]!))));
          const raw = typeof request.body === 'string' && operation.body ? request.body : bodyText(request.body);
          const answer = await api({ method: operation.method, path, token: sessions[request.session], body: raw });
          const counts = statuses.get(operation.operationId) ?? new Map<number, number>();
          statuses.set(operation.operationId, counts.set(answer.status, (counts.get(answer.status) ?? 0) + 1));
          const problems = checker.problems(operation, answer);
          expect(
            problems,
            JSON.stringify({ path, session: request.session, body: raw?.slice(0, 2_000), status: answer.status, answer: answer.body }).slice(
              0,
              4_000,
            ),
          ).toEqual([]);
        }),
        { seed, numRuns: runs, endOnFailure: true },
      );
    },
    // a user's password is hashed with scrypt on each create: long runs need longer than the default minute
    60_000 + runs * 1_000,
  );

  it('refuses a field the body does not define, naming it, on every operation with a body', async () => {
    const withBody = operations.filter((operation) => operation.body);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...withBody),
        fc.nat(),
        // the JSON body parser refuses __proto__ and friends itself, at any depth (400, tested apart)
        fc.string({ minLength: 1, maxLength: 12 }).filter((name) => !['__proto__', 'constructor', 'prototype'].includes(name)),
        fc.jsonValue().filter((value) => !/"(__proto__|constructor|prototype)":/.test(JSON.stringify(value))),
        async (operation, sampleSeed, field, value) => {
          fc.pre(!(field in (operation.body!.properties ?? {})));
          const sample = sampleOf(operation.body!, sampleSeed) as Record<string, unknown>;
          // path parameters valid by their schemas, so that the body is what gets checked
          let path = operation.path;
          for (const param of operation.params) path = path.replace(`{${param.name}}`, pathSegment(String(sampleOf(param.schema, sampleSeed))));
          const answer = await api({ method: operation.method, path, token: sessions.writer, body: { ...sample, [field]: value } });
          expect(answer.status, `${operation.operationId} ${field}`).toBe(400);
          expect(answer.body.issues, operation.operationId).toContainEqual({ path: field, message: expect.stringMatching(/^unknown field/) });
        },
      ),
      { seed, numRuns: Math.max(40, runs) },
    );
  });
});
