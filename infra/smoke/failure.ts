import type { ApiAnswer } from './api-client';

/** Why a step failed, as its `FAIL <step>: …` line says it. */
export class StepFailure extends Error {
  constructor(
    message: string,
    /** Detail lines printed under the step's line (a test send's targets). */
    readonly lines: readonly string[] = [],
  ) {
    super(message);
    this.name = 'StepFailure';
  }
}

const MAX_BODY_TEXT = 300;

/** `HTTP 401 Unauthorized: wrong login or password`, from the API's `{ error, message }`, or what else the body holds. */
export function httpFailure(answer: ApiAnswer): string {
  return `HTTP ${answer.status} ${bodyText(answer.body)}`.trimEnd();
}

function bodyText(body: unknown): string {
  if (typeof body === 'string') return body.slice(0, MAX_BODY_TEXT);
  if (typeof body !== 'object' || body === null) return '';
  const { error, message } = body as { error?: unknown; message?: unknown };
  if (typeof error === 'string' && typeof message === 'string') return `${error}: ${message}`;
  // API Gateway's own answers (an unknown route, a throttled stage) carry only a message
  if (typeof message === 'string') return message;
  return JSON.stringify(body).slice(0, MAX_BODY_TEXT);
}

/** A thrown error as one line: `fetch failed (ECONNREFUSED)`, without a stack. */
export function errorLine(error: unknown): string {
  if (error instanceof StepFailure) return error.message;
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError') return 'no answer in time (request timed out)';
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : undefined;
  const text = error.name && error.name !== 'Error' && error.name !== 'TypeError' ? `${error.name}: ${error.message}` : error.message;
  return detail ? `${text} (${detail})` : text;
}
