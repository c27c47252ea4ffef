import type * as z from 'zod';

/** One field of a refused record, named as the request that carried it names it. */
export interface RecordIssue {
  path: string;
  message: string;
}

/**
 * A record about to be written that its storage schema refuses. The record was built from a request, so the
 * request is what is wrong: the API answers 400 with these issues, never 500.
 */
export class RecordRejectedError extends Error {
  constructor(
    readonly record: string,
    readonly issues: RecordIssue[],
  ) {
    super(`the ${record} cannot be stored: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`);
    this.name = 'RecordRejectedError';
  }
}

/**
 * Parses a record before it is written. A refusal throws RecordRejectedError naming each field as the request
 * names it: a computed field by the input it is computed from (`sources`, e.g. `expiresAt` → `activationTime`).
 */
export function parseRecord<Schema extends z.ZodType>(
  schema: Schema,
  record: unknown,
  what: string,
  sources: Readonly<Record<string, string>> = {},
): z.infer<Schema> {
  const parsed = schema.safeParse(record);
  if (parsed.success) return parsed.data;
  const issues = new Map<string, RecordIssue>();
  for (const issue of parsed.error.issues) {
    const path = issue.path.map(String);
    const named = { path: (path[0] === undefined ? undefined : sources[path[0]]) ?? path.join('.'), message: issue.message };
    issues.set(`${named.path}\n${named.message}`, named);
  }
  throw new RecordRejectedError(what, [...issues.values()]);
}
