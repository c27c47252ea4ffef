import type { Context } from 'aws-lambda';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { z } from 'zod';
import type { StoredUser } from '../schemas/directory';
import type { Session } from '../store/sessions';
import type { TenantScope } from './scope';
import type { ApiTag } from './tags';

/** The logged-in user behind a request. */
export interface Caller {
  user: StoredUser;
  session: Session;
  scope: TenantScope;
}

export interface RequestContext<Body, Params, Query = undefined> {
  body: Body;
  params: Params;
  /** The query string's parameters, checked by the route's `query` schema. */
  query: Query;
  headers: Record<string, string | undefined>;
  /** Present on every route with `auth: true`. */
  caller: Caller;
  /** Epoch ms of the request, from the API's clock. */
  now: number;
  /** The caller's address as API Gateway saw it. */
  sourceIp: string;
}

export interface Reply {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  /** A page for people (a link opened from an e-mail) instead of JSON. */
  html?: string;
}

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One endpoint: how the router finds it, how its input is checked, and how OpenAPI describes it. */
export interface RouteDefinition<Body, Params, Query = undefined> {
  method: Method;
  path: string;
  /** The OpenAPI operationId: camelCase, unique, never changed once released (client generators name methods after it). */
  operationId: string;
  summary: string;
  description: string;
  tag: ApiTag;
  /** false only for login, the OpenAPI document and the session check (which authenticates itself). */
  auth: boolean;
  /** Changes data: refused (403) to read-only users. */
  writes: boolean;
  params?: z.ZodType<Params>;
  /** The query string's parameters (a strict object: an unknown one is a 400 naming it). */
  query?: z.ZodType<Query>;
  body?: z.ZodType<Body>;
  /**
   * How the body comes: JSON unless told, or the fields of an HTML form (the pages' buttons), which a request may
   * also leave out (then the body schema's defaults apply).
   */
  requestType?: 'application/json' | 'application/x-www-form-urlencoded';
  response: z.ZodType;
  /** The status of the success answer, 200 unless told (202: accepted, its outcome is read later; 302: a redirect, to Location). */
  successStatus?: 200 | 202 | 302;
  /** The media type of the success answer: JSON, or a page for people (the links of e-mails). */
  responseType?: 'application/json' | 'text/html';
  /**
   * A JSON route whose request a person's browser also sends (a page's button): it answers a request that accepts
   * `text/html` with a page, its documented errors too, and the OpenAPI document shows both media types.
   */
  pageForBrowsers?: boolean;
  /**
   * Examples for the OpenAPI document: a request body (for routes with one) and the success answer. Left out, the
   * schema's own `example` metadata is used; a test checks that every operation has both and that each validates.
   */
  /** `errors`: an example answer per error status, where one helps (e.g. the 409 of a duplicate). */
  examples?: { body?: unknown; response?: unknown; errors?: Partial<Record<number, unknown>> };
  /** Error statuses the endpoint can answer besides 400/401/429/500, for the OpenAPI document. */
  errors?: number[];
  handle(request: RequestContext<Body, Params, Query>): Promise<Reply>;
}

/** A route of any body and params type; `handle` is a method, so a typed route is assignable to it. */
export type ApiRoute = RouteDefinition<unknown, unknown, unknown>;

export function defineRoute<Body = undefined, Params = undefined, Query = undefined>(route: RouteDefinition<Body, Params, Query>): ApiRoute {
  return route as ApiRoute;
}

/** Lambda context as the API's middlewares extend it. */
export interface ApiLambdaContext extends Context {
  caller?: Caller;
}

export type ApiEvent = APIGatewayProxyEventV2;
