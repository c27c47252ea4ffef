import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sendWebhook } from '../../shared/channels/webhook/send-webhook';
import { guardedLookup } from '../../shared/channels/webhook/guarded-lookup';
import { Webhook } from 'standardwebhooks';
import { startWebhookReceiver, type RunningWebhookReceiver } from '../../infra/local/webhook-receiver';
import { verifySignature } from '../../shared/channels/webhook/signature';

const SECRET = `whsec_${Buffer.from('send-webhook-test-secret-32bytes').toString('base64')}`;
const OTHER_SECRET = `whsec_${Buffer.from('another-test-secret-of-32-bytes!').toString('base64')}`;
const delivery = (url: string, scheme: 'standard' | 'fleetwatch-v1' = 'standard', secrets = [SECRET]) => ({
  url,
  secrets,
  scheme,
  body: '{"type":"alert","alertId":"a-1"}',
  idempotencyKey: 'a-1',
  messageId: 'msg_a-1',
});

/**
 * The sender against real sockets on this machine: a receiver that never answers, one that redirects, and
 * the SSRF rules as the deployed stack applies them (no private targets), where every local address must be
 * refused before a byte is sent.
 */
describe('webhook sender', () => {
  let receiver: RunningWebhookReceiver;
  let redirector: Server;
  let redirectorUrl: string;

  beforeAll(async () => {
    receiver = await startWebhookReceiver({ secret: SECRET });
    redirector = createServer((_request, response) => response.writeHead(302, { Location: 'http://169.254.169.254/latest/meta-data/' }).end());
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    redirectorUrl = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await receiver.stop();
    await new Promise<void>((resolve) => redirector.close(() => resolve()));
  });
  beforeEach(() => {
    receiver.attempts.length = 0;
    receiver.requests.length = 0;
  });

  it('signs as Standard Webhooks: the standardwebhooks package verifies the delivery, with each secret given', async () => {
    await sendWebhook(delivery(`${receiver.url}hook`, 'standard', [SECRET, OTHER_SECRET]), { allowPrivate: true, now: Date.now() });
    const [{ headers, body }] = receiver.requests as [{ headers: Record<string, string>; body: string }];
    expect(headers['webhook-id']).toBe('msg_a-1');
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(headers['x-fleetwatch-signature']).toBeUndefined();
    for (const secret of [SECRET, OTHER_SECRET]) expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    const stranger = `whsec_${Buffer.from('a-secret-the-sender-never-used!!').toString('base64')}`;
    expect(() => new Webhook(stranger).verify(body, headers)).toThrow();
  });

  it('signs a fleetwatch-v1 endpoint with X-Fleetwatch-Signature only', async () => {
    await sendWebhook(delivery(`${receiver.url}hook`, 'fleetwatch-v1', [SECRET, OTHER_SECRET]), { allowPrivate: true, now: Date.now() });
    const [{ headers, body }] = receiver.requests as [{ headers: Record<string, string>; body: string }];
    expect(headers['webhook-signature']).toBeUndefined();
    for (const secret of [SECRET, OTHER_SECRET]) expect(verifySignature(headers['x-fleetwatch-signature'], body, secret, Date.now())).toBe(true);
  });

  it('posts with the signature and Idempotency-Key headers (local receiver, private targets allowed)', async () => {
    const outcome = await sendWebhook(delivery(`${receiver.url}hook`), { allowPrivate: true, now: Date.now() });
    expect(outcome).toEqual({ status: 'sent' });
    expect(receiver.attempts).toEqual([{ idempotencyKey: 'a-1', signatureValid: true, status: 200 }]);
  });

  it('gives up on a receiver that does not answer within the timeout, as a passing problem', async () => {
    receiver.script('hang');
    const outcome = await sendWebhook(delivery(`${receiver.url}hook`), { allowPrivate: true, now: Date.now(), timeoutMs: 300 });
    expect(outcome).toEqual({ status: 'retry', error: 'no answer within 0.3 s' });
  });

  it('does not follow a redirect: its target was never checked', async () => {
    const outcome = await sendWebhook(delivery(redirectorUrl), { allowPrivate: true, now: Date.now() });
    expect(outcome).toEqual({ status: 'failed', error: 'the endpoint answered 302; redirects are not followed' });
  });

  describe('as deployed (no private targets)', () => {
    const port = () => new URL(receiver.url).port;

    it.each([
      ['loopback literal', () => `https://127.0.0.1:${port()}/`, 'loopback'],
      ['IPv6 loopback', () => `https://[::1]:${port()}/`, 'loopback'],
      ['IPv4-mapped loopback', () => `https://[::ffff:127.0.0.1]:${port()}/`, 'loopback'],
      ['metadata service', () => 'https://169.254.169.254/latest/meta-data/', 'linkLocal'],
      ['IPv4-compatible loopback', () => `https://[::7f00:1]:${port()}/`, 'outside IPv6 global unicast'],
      ['IPv4-compatible metadata service', () => 'https://[::a9fe:a9fe]/latest/meta-data/', 'outside IPv6 global unicast'],
      ['name resolving to loopback', () => `https://localhost:${port()}/`, 'may not reach'],
    ])('refuses a %s before connecting', async (_name, url, reason) => {
      const outcome = await sendWebhook(delivery(url()), { allowPrivate: false, now: Date.now() });
      expect(outcome.status).toBe('failed');
      expect(outcome.status === 'failed' && outcome.error).toContain(reason);
      expect(receiver.attempts).toEqual([]);
    });

    it('refuses plain http', async () => {
      expect(await sendWebhook(delivery(receiver.url), { allowPrivate: false, now: Date.now() })).toEqual({
        status: 'failed',
        error: 'the endpoint URL is not https',
      });
    });

    it('the guarded lookup itself refuses a name that resolves to a loopback address', async () => {
      const lookup = (hostname: string, all: boolean) =>
        new Promise<{ error: Error | null; address: unknown }>((resolve) => {
          guardedLookup(hostname, { all }, (error, address) => resolve({ error, address }));
        });
      const refused = await lookup('localhost', false);
      expect(refused.error?.name).toBe('RefusedAddressError');
      expect(refused.address).toBe('');
    });
  });
});
