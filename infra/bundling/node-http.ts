import type * as Http from 'node:http';

/**
 * What every bundle gets for `node:http` and `http` (BUNDLE_ALIASES). An ES module import of a built-in reads
 * all its exports, and `node:http`'s lazy `WebSocket`, `CloseEvent` and `MessageEvent` load Node's fetch
 * implementation (undici): 15–20 ms of each cold start of a function whose bundle imports the module that way (the
 * webhook sender, grammy's node-fetch, middy's status codes), though none of them uses those three.
 * `process.getBuiltinModule` hands over the module as CommonJS code gets it, without reading them.
 */
const http: typeof Http = process.getBuiltinModule('node:http');

export const {
  Agent,
  ClientRequest,
  IncomingMessage,
  METHODS,
  OutgoingMessage,
  STATUS_CODES,
  Server,
  ServerResponse,
  createServer,
  get,
  request,
  setMaxIdleHTTPParsers,
  validateHeaderName,
  validateHeaderValue,
} = http;

export default http;
