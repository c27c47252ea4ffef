import { apiEndpoint } from '../stack-facts';
import type { Clock } from './clock';

/**
 * The HTTP side of the smoke test: every URL is built from the ApiUrl output with `apiEndpoint`, and requests
 * keep the API's rate rules (one request per second per session; 429 with Retry-After otherwise).
 */

/** A margin over the API's one second, so that clocks and latency never make a request too early. */
export const SESSION_REQUEST_SPACING_MS = 1_050;
export const MAX_RETRIES_AFTER_429 = 3;
/** A longer Retry-After (the hourly test-send budget, a login locked after failures) fails the step instead. */
export const MAX_RETRY_AFTER_MS = 30_000;
const REQUEST_TIMEOUT_MS = 30_000;

export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

export interface ApiRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** A route as the docs write it: `/auth/login`. */
  route: string;
  body?: unknown;
  /** The session token (AuthId), sent as X-Auth. */
  session?: string;
}

export interface ApiAnswer {
  status: number;
  /** Parsed JSON, or the text when it is not JSON. */
  body: unknown;
}

export class ApiClient {
  /** When the last request on the session was answered: the API counted it before answering. */
  private lastSessionAnswerAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly apiUrl: string,
    private readonly fetch: Fetch,
    private readonly clock: Clock,
  ) {}

  urlOf(route: string): string {
    return apiEndpoint(this.apiUrl, route);
  }

  async send(request: ApiRequest): Promise<ApiAnswer> {
    for (let retry = 0; ; retry++) {
      const { answer, retryAfterMs } = request.session === undefined ? await this.once(request) : await this.paced(request);
      if (answer.status !== 429 || retry >= MAX_RETRIES_AFTER_429) return answer;
      const wait = retryAfterMs ?? SESSION_REQUEST_SPACING_MS;
      if (wait > MAX_RETRY_AFTER_MS) return answer;
      await this.clock.sleep(wait);
    }
  }

  /** Only session requests are rate limited; openapi.json and login are not, so they are not held back. */
  private async paced(request: ApiRequest): Promise<{ answer: ApiAnswer; retryAfterMs: number | undefined }> {
    await this.clock.sleep(Math.max(0, this.lastSessionAnswerAt + SESSION_REQUEST_SPACING_MS - this.clock.now()));
    try {
      return await this.once(request);
    } finally {
      this.lastSessionAnswerAt = this.clock.now();
    }
  }

  private async once(request: ApiRequest): Promise<{ answer: ApiAnswer; retryAfterMs: number | undefined }> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    if (request.session !== undefined) headers['x-auth'] = request.session;
    const response = await this.fetch(this.urlOf(request.route), {
      method: request.method,
      headers,
      ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    return {
      answer: { status: response.status, body: parsedBody(text) },
      retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), this.clock.now()),
    };
  }
}

function parsedBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Retry-After in seconds, or as an HTTP date. */
export function parseRetryAfter(header: string | null, now: number): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
