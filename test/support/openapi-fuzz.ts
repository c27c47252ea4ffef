import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { generateSync, type JsonSchema } from 'json-schema-faker';

/**
 * Requests made from the OpenAPI document, for fuzzing the API: a sample of each operation's own request schemas
 * (json-schema-faker, seeded by fast-check), real ids of a seeded tenant put where ids go, then hostile values
 * put anywhere in it. And the checks every answer must pass against the same document.
 */

type Schema = Exclude<JsonSchema, boolean>;

interface MediaType {
  schema?: Schema;
}

interface DocumentOperation {
  operationId: string;
  parameters?: { name: string; in: string; schema: Schema }[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
  security?: unknown[];
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, DocumentOperation>>;
}

/** One operation of the document, as the fuzzer drives it. */
export interface FuzzOperation {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  params: { name: string; schema: Schema }[];
  body?: Schema;
  responses: DocumentOperation['responses'];
  auth: boolean;
}

export function operationsOf(document: OpenApiDocument): FuzzOperation[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      operationId: operation.operationId,
      method: method.toUpperCase() as FuzzOperation['method'],
      path,
      params: (operation.parameters ?? []).filter((parameter) => parameter.in === 'path'),
      // a form's fields (the alert page's buttons) are left out: the fuzzer sends JSON, and a form may be empty
      ...(operation.requestBody?.content['application/json'] ? { body: operation.requestBody.content['application/json'].schema! } : {}),
      responses: operation.responses,
      auth: operation.security !== undefined,
    })),
  );
}

/**
 * Real ids of the seeded tenants: by field name where the name says what it holds (`parentId`: clients), else by
 * JSON type. The fuzzer puts them in fields whose name ends in id or ids.
 */
export interface RealIds {
  byField: Readonly<Record<string, readonly (string | number)[]>>;
  strings: readonly string[];
  numbers: readonly number[];
}

const ID_FIELD = /(^id|Id|ids|Ids)$/;

const MARKER = '@@raw@@';

/** A number literal JSON.stringify cannot write (it overflows, or underflows, on parse). */
const rawNumber = (literal: string) => `${MARKER}${literal}${MARKER}`;

/** Values that have broken parsers, stores and clocks: extremes, NaN-like text, far dates, long and odd Unicode. */
export const HOSTILE_VALUES: readonly unknown[] = [
  1e-300,
  1e308,
  -1e308,
  -0,
  0,
  -1,
  0.5,
  2 ** 31,
  2 ** 53 + 2,
  -(2 ** 63),
  rawNumber('1e999'),
  rawNumber('-1e999'),
  rawNumber('1e-400'),
  rawNumber('-0.0'),
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '1e308',
  '0001-01-01T00:00:00Z',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '+275760-09-13T00:00:00.000Z',
  '+275760-09-13T00:00:00.001Z',
  '-271821-04-20T00:00:00.000Z',
  '2026-02-30T00:00:00Z',
  'x'.repeat(10_000),
  `${'🚚'.repeat(3_000)}`,
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  'x\uDFFFy',
  '%',
  '%E0%A4%A',
  '%2F..%2F',
  '𝔣𝔩𝔢𝔢𝔱 🚛',
  '\u202Eevil\u202C',
  'مركبة שלום',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  "' OR '1'='1",
  '00000000-0000-0000-0000-000000000000',
  null,
  true,
  false,
  [],
  [null],
  {},
  { nested: { deeper: [1, 'two', null] } },
];

const UNKNOWN_FIELDS = ['extra', 'ID', 'Id', 'settings2', 'x'.repeat(300), '', '🚚', 'constructor', '__proto__'];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = (string | number)[];

function pathsOf(value: unknown, prefix: Path = []): Path[] {
  const children = Array.isArray(value)
    ? value.flatMap((item, index) => pathsOf(item, [...prefix, index]))
    : value !== null && typeof value === 'object'
      ? Object.entries(value).flatMap(([key, item]) => pathsOf(item, [...prefix, key]))
      : [];
  return [prefix, ...children];
}

function getAt(value: unknown, path: Path): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], value);
}

/** A copy of `value` with `path` set (undefined deletes the key). */
function setAt(value: unknown, path: Path, next: unknown): unknown {
  if (path.length === 0) return next;
  const [key, ...rest] = path;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  if (rest.length === 0 && next === undefined) delete copy[key!];
  else copy[key!] = setAt(copy[key!], rest, next);
  return copy;
}

/** Puts real ids (of the same JSON type) into the id fields of a sample, chosen by `picks`. */
function withRealIds(value: unknown, ids: RealIds, picks: readonly number[]): unknown {
  let pick = 0;
  const next = () => picks[pick++ % picks.length]!;
  const real = (field: string, current: unknown): unknown => {
    const pool = ids.byField[field] ?? (typeof current === 'number' ? ids.numbers : typeof current === 'string' ? ids.strings : []);
    return pool.length === 0 ? current : pool[next() % pool.length];
  };
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    return Object.fromEntries(
      Object.entries(node).map(([key, item]) => {
        if (!ID_FIELD.test(key)) return [key, walk(item)];
        return [key, Array.isArray(item) ? item.map((element) => real(key, element)) : real(key, item)];
      }),
    );
  };
  return picks.length === 0 ? value : walk(value);
}

export type Mutation =
  { kind: 'replace'; at: number; value: unknown } | { kind: 'delete'; at: number } | { kind: 'add'; at: number; field: string; value: unknown };

function mutate(value: unknown, mutation: Mutation): unknown {
  const paths = pathsOf(value);
  const path = paths[mutation.at % paths.length]!;
  if (mutation.kind === 'replace') return setAt(value, path, mutation.value);
  if (mutation.kind === 'delete') return path.length === 0 ? undefined : setAt(value, path, undefined);
  const target = getAt(value, path);
  if (target === null || typeof target !== 'object' || Array.isArray(target)) return value;
  return setAt(value, [...path, mutation.field], mutation.value);
}

const hostileValue = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_VALUES) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
    { weight: 1, arbitrary: fc.double() },
  );

const mutation = (): fc.Arbitrary<Mutation> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value: hostileValue() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('add' as const),
        at: fc.nat(),
        field: fc.oneof(fc.constantFrom(...UNKNOWN_FIELDS), fc.string({ maxLength: 12 })),
        value: hostileValue(),
      }),
    },
  );

/** A sample of a schema, from a seed: valid by the schema, at most a few items per array. */
export const sampleOf = (schema: Schema, seed: number): unknown =>
  generateSync(schema, { seed, maxDepth: 12, maxItems: 5, maxDefaultItems: 3, optionalsProbability: 0.6 });

const isPosition = (value: unknown): value is number[] =>
  Array.isArray(value) && value.length === 2 && value.every((item) => typeof item === 'number');
const DAY_MS = 86_400_000;

/**
 * What the schemas cannot say, so that samples get past validation into the handlers: a ring of positions ends
 * where it starts (GeoJSON), and a window's end (`endDate`, `to`) comes up to 31 days after its start.
 */
function withConstraints(value: unknown, spread: number): unknown {
  if (Array.isArray(value)) {
    const items = value.map((item) => withConstraints(item, spread));
    return items.length >= 4 && items.every(isPosition) ? [...items.slice(0, -1), items[0]] : items;
  }
  if (value === null || typeof value !== 'object') return value;
  const object = Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withConstraints(item, spread)])) as Record<string, unknown>;
  for (const [start, end] of [
    ['startDate', 'endDate'],
    ['from', 'to'],
  ] as const) {
    const begins = typeof object[start] === 'string' ? Date.parse(object[start]) : NaN;
    if (Number.isFinite(begins) && typeof object[end] === 'string') object[end] = new Date(begins + 1 + (spread % (31 * DAY_MS))).toISOString();
  }
  return object;
}

/**
 * A value for a schema: a sample of it, often with the constraints it cannot state met and with real ids in its id
 * fields, then none to three hostile changes (a value replaced, a field deleted, an unknown field added) anywhere in it.
 */
export function valueFor(schema: Schema, ids: RealIds): fc.Arbitrary<unknown> {
  return fc
    .record({
      seed: fc.nat(),
      realIds: fc.oneof(fc.constant([]), fc.array(fc.nat(), { minLength: 1, maxLength: 6 })),
      constrained: fc.oneof(fc.constant(undefined), fc.nat()),
      mutations: fc.oneof(fc.constant<Mutation[]>([]), fc.array(mutation(), { minLength: 1, maxLength: 3 })),
    })
    .map(({ seed, realIds, constrained, mutations }) => {
      const sample = sampleOf(schema, seed);
      const shaped = constrained === undefined ? sample : withConstraints(sample, constrained);
      return mutations.reduce(mutate, withRealIds(shaped, ids, realIds));
    });
}

/** The request text: JSON, with the raw number literals JSON cannot write put back in. */
export function bodyText(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  return JSON.stringify(body).replace(new RegExp(`"${MARKER}([^"@]*)${MARKER}"`, 'g'), '$1');
}

/** A path parameter's text: from its schema (with real ids), or anything at all. */
export function paramFor(name: string, schema: Schema, ids: RealIds): fc.Arbitrary<string> {
  const text = (value: unknown) => (typeof value === 'string' ? value : (bodyText(value) ?? ''));
  return fc
    .oneof(
      {
        weight: 4,
        arbitrary: valueFor({ type: 'object', properties: { [name]: schema }, required: [name] }, ids).map((value) =>
          text((value as Record<string, unknown> | null)?.[name] ?? value),
        ),
      },
      { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_VALUES).map(text) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    )
    .filter((text) => text !== ''); // an empty segment is another URL, which no operation serves
}

/**
 * A path segment as a client would send it: percent-encoded UTF-8, and a lone surrogate as the bytes a careless
 * encoder writes for it (WTF-8), which are not valid UTF-8.
 */
export function pathSegment(text: string): string {
  return Array.from(text, (character) => {
    const code = character.charCodeAt(0);
    if (character.length === 1 && code >= 0xd800 && code <= 0xdfff) {
      return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
    }
    return encodeURIComponent(character);
  }).join('');
}

/** Checks answers against the document: its statuses, the error body, and each success schema. */
export class AnswerChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<Schema, ValidateFunction>();

  constructor() {
    addFormats.default(this.ajv);
  }

  /** The problems with one answer to `operation`, empty when it is as documented. */
  problems(operation: FuzzOperation, answer: { status: number; headers: Record<string, string>; body: unknown }): string[] {
    const problems: string[] = [];
    const { status, body } = answer;
    if (status >= 500) problems.push(`answered ${status}`);
    const documented = operation.responses[String(status)];
    if (!documented) return [...problems, `status ${status} is not in the document`];
    const contentType = answer.headers['Content-Type']?.split(';')[0] ?? '';
    const media = documented.content?.[contentType];
    if (!media?.schema) return [...problems, `Content-Type ${contentType} is not documented for ${status}`];
    if (status >= 400 && contentType === 'text/html' && (typeof body !== 'string' || !/<p>[^<]+<\/p>/.test(body))) {
      problems.push(`the ${status} page gives no reason`);
    } else if (status >= 400 && contentType !== 'text/html') problems.push(...errorBodyProblems(status, body));
    const validate = this.validator(media.schema);
    if (!validate(body)) problems.push(`the ${status} body does not match its schema: ${this.ajv.errorsText(validate.errors)}`);
    return problems;
  }

  private validator(schema: Schema): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.compiled.set(schema, validate);
    }
    return validate;
  }
}

/** A 4xx names what is wrong: each 400 issue has a message (and a path, empty for the body as a whole); every error a reason. */
function errorBodyProblems(status: number, body: unknown): string[] {
  const error = body as { error?: unknown; message?: unknown; issues?: { path?: unknown; message?: unknown }[] } | null;
  if (typeof error?.error !== 'string' || typeof error.message !== 'string' || error.message.trim() === '')
    return [`the ${status} body gives no reason`];
  if (status !== 400) return [];
  if (!Array.isArray(error.issues) || error.issues.length === 0) return ['the 400 body lists no issue'];
  return error.issues.flatMap((issue) =>
    typeof issue.path === 'string' && typeof issue.message === 'string' && issue.message.trim() !== ''
      ? []
      : [`a 400 issue names no field or reason: ${JSON.stringify(issue)}`],
  );
}

export type { Json };
