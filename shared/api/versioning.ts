import { conflict } from './errors';

/** Optimistic concurrency for records carrying a `version`: ETag out, If-Match or a body `version` in. */
export const etag = (version: number) => ({ ETag: `"${version}"` });

/** The version an If-Match header names (`"3"`, `W/"3"` or `3`); undefined when absent or `*`, NaN when unreadable. */
export function ifMatchVersion(headers: Record<string, string | undefined>): number | undefined {
  const value = headers['if-match'];
  if (value === undefined || value.trim() === '*') return undefined;
  const match = /^\s*(?:W\/)?"?(\d+)"?\s*$/.exec(value);
  return match ? Number(match[1]) : Number.NaN;
}

/** 409 unless every version the caller named (body field, If-Match) equals the stored one. */
export function requireVersion(record: { id: number; version: number }, what: string, ...expected: (number | undefined)[]): void {
  for (const version of expected) {
    if (version !== undefined && version !== record.version) {
      throw conflict(`${what} ${record.id} is at version ${record.version}, not ${version}; read it again`);
    }
  }
}
