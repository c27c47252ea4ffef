import type { z } from 'zod';

/** One problem with a request, as the 400 answer lists it. */
export interface Issue {
  path: string;
  message: string;
}

/**
 * An error the API answers with its own status and a JSON body `{ error, message }` (or `{ error, issues }`
 * for validation). Anything else that escapes a route is answered 500 with a correlation id only.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly issues?: Issue[],
  ) {
    super(message);
    this.name = 'ApiError';
  }

  body(): Record<string, unknown> {
    return this.issues ? { error: this.code, message: this.message, issues: this.issues } : { error: this.code, message: this.message };
  }
}

/** 400 listing every issue; the message names them too (`settings.limit: must be a number`), for people reading logs. */
export const validationError = (issues: Issue[]): ApiError =>
  new ApiError(
    400,
    'ValidationError',
    `the request is not valid: ${issues.map((issue) => `${issue.path || '(body)'}: ${issue.message}`).join('; ')}`.slice(0, 2_000),
    {},
    issues,
  );

/** One issue per problem, and one per unknown field, so that each names the field (`vehicleIDs`, `settings.speed`). */
export const issuesOf = (issues: readonly z.core.$ZodIssue[], prefix: string[] = []): Issue[] =>
  issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path.map(String)];
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ path: [...path, key].join('.'), message: issue.message }));
    return [{ path: path.join('.'), message: issue.message }];
  });

export const unauthorized = (message = 'missing or ended session: log in with POST /api/v3/auth/login and send X-Auth'): ApiError =>
  new ApiError(401, 'Unauthorized', message);

export const forbidden = (message: string): ApiError => new ApiError(403, 'Forbidden', message);

export const notFound = (what: string): ApiError => new ApiError(404, 'NotFound', `${what} not found`);

export const conflict = (message: string): ApiError => new ApiError(409, 'Conflict', message);

export const tooManyRequests = (retryAfterMs: number, message: string): ApiError =>
  new ApiError(429, 'TooManyRequests', message, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) });
