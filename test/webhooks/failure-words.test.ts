import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSendError, describeStatus } from '../../shared/channels/webhook/failure-words';
import { sendWebhook } from '../../shared/channels/webhook/send-webhook';

const delivery = (url: string) => ({
  url,
  secrets: ['whsec_words'],
  scheme: 'fleetwatch-v1' as const,
  body: '{"type":"alert"}',
  idempotencyKey: 'a-words',
  messageId: 'msg_words',
});
const withCode = (code: string, message: string) => Object.assign(new Error(message), { code });

/** Delivery failures in plain words: real sockets for what can be made on loopback, Node's error shapes for the rest. */
describe('webhook failures in words', () => {
  let plainHttp: Server;
  let plainPort: number;
  let closedPort: number;

  beforeAll(async () => {
    plainHttp = createServer((_request, response) => response.end('ok'));
    await new Promise<void>((resolve) => plainHttp.listen(0, '127.0.0.1', resolve));
    plainPort = (plainHttp.address() as AddressInfo).port;
    // a port that was free a moment ago: nothing listens there
    const probe = createNetServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    closedPort = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => plainHttp.close(() => resolve()));
  });

  it('says that an https URL reached an endpoint speaking plain HTTP (EPROTO wrong version number)', async () => {
    const outcome = await sendWebhook(delivery(`https://127.0.0.1:${plainPort}/hook`), { allowPrivate: true, now: Date.now() });
    expect(outcome).toEqual({ status: 'retry', error: 'TLS handshake failed: the endpoint speaks plain HTTP on an https URL' });
  });

  it('says that nothing listens (ECONNREFUSED)', async () => {
    const outcome = await sendWebhook(delivery(`http://127.0.0.1:${closedPort}/hook`), { allowPrivate: true, now: Date.now() });
    expect(outcome).toEqual({ status: 'retry', error: 'connection refused: nothing listens on that host and port' });
  });

  it('names DNS, reset, timeout and certificate failures', () => {
    expect(describeSendError(withCode('ENOTFOUND', 'getaddrinfo ENOTFOUND hooks.example.invalid'))).toBe(
      'host name not found (DNS has no address for it)',
    );
    expect(describeSendError(withCode('EAI_AGAIN', 'getaddrinfo EAI_AGAIN x'))).toMatch(/^host name lookup failed for now/);
    expect(describeSendError(withCode('ECONNRESET', 'socket hang up'))).toBe('the endpoint closed the connection before answering');
    expect(describeSendError(withCode('ETIMEDOUT', 'connect ETIMEDOUT'))).toBe('the connection timed out');
    expect(describeSendError(withCode('CERT_HAS_EXPIRED', 'certificate has expired'))).toBe('TLS certificate refused: its certificate has expired');
    expect(describeSendError(withCode('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'))).toBe(
      'TLS certificate refused: its certificate is self-signed',
    );
    expect(describeSendError(withCode('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"))).toBe(
      "TLS certificate refused: its certificate does not name the URL's host",
    );
    // a code found on the cause (fetch-style wrapping) counts too
    expect(describeSendError(new Error('fetch failed', { cause: withCode('ECONNREFUSED', 'connect ECONNREFUSED') }))).toMatch(/^connection refused/);
    // anything else keeps its name and message
    expect(describeSendError(new TypeError('boom'))).toBe('TypeError: boom');
  });

  it('names each HTTP status class', () => {
    expect(describeStatus(503)).toBe('the endpoint answered 503 (a server error on its side)');
    expect(describeStatus(429)).toBe('the endpoint answered 429 (too many requests; it asks to slow down)');
    expect(describeStatus(408)).toBe('the endpoint answered 408 (it timed out reading the request)');
    expect(describeStatus(422)).toBe('the endpoint answered 422 (it refused the request)');
    expect(describeStatus(410)).toBe('the endpoint answered 410 Gone');
    expect(describeStatus(301)).toBe('the endpoint answered 301; redirects are not followed');
  });
});
