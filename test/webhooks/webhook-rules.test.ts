import { describe, expect, it } from 'vitest';
import { addressRefusal, privateTargetsAllowed } from '../../shared/channels/webhook/address-policy';
import { endpointUrlProblems } from '../../shared/channels/webhook/endpoint-url';
import { outcomeOfStatus } from '../../shared/channels/webhook/send-webhook';
import { signatureHeader, verifySignature } from '../../shared/channels/webhook/signature';
import { retryAfterSeconds } from '../../shared/channels/webhook/retry-after';
import { planDelivery } from '../../shared/delivery/targets';
import { storedRuleSchema } from '../../shared/schemas/notification';
import { storedWebhookSchema } from '../../shared/schemas/webhook';

const CLIENT = '5c0bd3a4-7ad5-4cde-9d3c-0a7b63f0b001';
const OTHER_CLIENT = '5c0bd3a4-7ad5-4cde-9d3c-0a7b63f0b002';

describe('webhook address policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['169.254.169.254', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['2002:7f00:1::', '6to4'],
    ['64:ff9b::a00:1', 'rfc6052'],
    // IPv4-compatible IPv6 (::/96): ::127.0.0.1 and ::169.254.169.254, which ipaddr.js calls plain unicast
    ['::7f00:1', 'outside IPv6 global unicast (2000::/3)'],
    ['::a9fe:a9fe', 'outside IPv6 global unicast (2000::/3)'],
    ['4000::1', 'outside IPv6 global unicast (2000::/3)'],
  ])('refuses %s (%s)', (address, range) => {
    expect(addressRefusal(address)).toContain(range);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '[2606:4700:4700::1111]'])('allows the public address %s', (address) => {
    expect(addressRefusal(address)).toBeNull();
  });

  it('allows private targets only behind the explicit setting', () => {
    expect(privateTargetsAllowed({})).toBe(false);
    // anything but true or false is refused rather than read as off, so a typo cannot hide
    expect(() => privateTargetsAllowed({ WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' })).toThrow(/WEBHOOK_ALLOW_PRIVATE_TARGETS="1"/);
    expect(privateTargetsAllowed({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' })).toBe(false);
    expect(privateTargetsAllowed({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })).toBe(true);
  });
});

describe('webhook endpoint URLs', () => {
  it('accepts a public https URL', () => {
    expect(endpointUrlProblems('https://hooks.example.com/fleetwatch?team=7', false)).toEqual([]);
  });

  it.each([
    ['http://hooks.example.com/', 'must be an https URL'],
    ['ftp://hooks.example.com/', 'must be an https URL'],
    ['hooks.example.com/x', 'must be an absolute URL'],
    ['https://user:pass@hooks.example.com/', 'must not carry a user name or password'],
    ['https://localhost/', 'must name a public host'],
    ['https://db.localhost/', 'must name a public host'],
    ['https://intranet/', 'must name a public host'],
    ['https://localhost./', 'must name a public host'],
    ['https://db.localhost../', 'must name a public host'],
    ['https://intranet./', 'must name a public host'],
    ['https://[::7f00:1]/', 'outside IPv6 global unicast'],
    ['https://[::a9fe:a9fe]/', 'outside IPv6 global unicast'],
    ['https://127.0.0.1/', 'loopback'],
    ['https://[::1]/', 'loopback'],
    ['https://[::ffff:10.0.0.1]/', 'private'],
    ['https://169.254.169.254/latest/meta-data/', 'linkLocal'],
    ['https://hooks.example.com/#x', 'must not have a fragment'],
  ])('refuses %s', (url, problem) => {
    expect(endpointUrlProblems(url, false).join('; ')).toContain(problem);
  });

  it('accepts local http receivers only behind the setting', () => {
    expect(endpointUrlProblems('http://127.0.0.1:8006/', true)).toEqual([]);
    expect(endpointUrlProblems('http://127.0.0.1:8006/', false)).not.toEqual([]);
  });
});

describe('webhook signatures', () => {
  const secret = 'whsec_test-secret-of-enough-length';
  const body = JSON.stringify({ type: 'alert', alertId: 'a-1' });
  const now = Date.parse('2026-03-01T10:00:00Z');
  const t = now / 1000;

  it('signs "t.body" with HMAC-SHA256 in the documented header format', () => {
    // known answer computed outside fleetwatch: printf '%s' '<t>.<body>' | openssl dgst -sha256 -hmac <secret>
    expect(signatureHeader([secret], t, body)).toBe('t=1772359200,v1=4b248696def7be7ed7e4a7f434ddc7569a19c2799755ec1b73c781c0827db78f');
  });

  it('verifies its own signature and refuses a changed body, another secret, a stale or missing header', () => {
    const header = signatureHeader([secret], t, body);
    expect(verifySignature(header, body, secret, now)).toBe(true);
    expect(verifySignature(header, body.replace('a-1', 'a-2'), secret, now)).toBe(false);
    expect(verifySignature(header, body, 'whsec_another-secret-entirely', now)).toBe(false);
    expect(verifySignature(header, body, secret, now + 301_000)).toBe(false);
    expect(verifySignature(undefined, body, secret, now)).toBe(false);
    expect(verifySignature(`t=${t},v1=zz`, body, secret, now)).toBe(false);
  });
});

describe('webhook answers and retries', () => {
  it.each([
    [200, 'sent'],
    [204, 'sent'],
    [500, 'retry'],
    [503, 'retry'],
    [408, 'retry'],
    [429, 'retry'],
    [400, 'failed'],
    [401, 'failed'],
    [404, 'failed'],
    [302, 'failed'],
    [410, 'failed'],
  ])('an answer %i means %s', (status, outcome) => {
    expect(outcomeOfStatus(status).status).toBe(outcome);
  });

  it('only 410 marks the endpoint gone', () => {
    expect(outcomeOfStatus(410)).toEqual({ status: 'failed', error: 'the endpoint answered 410 Gone', gone: true });
    expect(outcomeOfStatus(404)).not.toHaveProperty('gone');
  });

  it("carries a passing answer's Retry-After, in seconds or as an HTTP date, and only on a passing answer", () => {
    const now = Date.parse('2026-03-01T10:00:00.000Z');
    expect(outcomeOfStatus(429, retryAfterSeconds('120', now))).toMatchObject({ status: 'retry', retryAfterSeconds: 120 });
    expect(outcomeOfStatus(503, retryAfterSeconds('Sun, 01 Mar 2026 10:30:00 GMT', now))).toMatchObject({ retryAfterSeconds: 1_800 });
    expect(outcomeOfStatus(503, retryAfterSeconds('Sun, 01 Mar 2026 09:30:00 GMT', now))).not.toHaveProperty('retryAfterSeconds');
    expect(outcomeOfStatus(503, retryAfterSeconds('soon', now))).not.toHaveProperty('retryAfterSeconds');
    expect(outcomeOfStatus(503, retryAfterSeconds(undefined, now))).not.toHaveProperty('retryAfterSeconds');
    expect(outcomeOfStatus(400, 120)).toEqual({ status: 'failed', error: 'the endpoint answered 400 (it refused the request)' });
  });
});

describe('webhook targets of the delivery plan', () => {
  const rule = (toClient: boolean) =>
    storedRuleSchema.parse({
      id: 1,
      type: 2,
      parentId: CLIENT,
      name: 'r',
      version: 1,
      toClient,
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-01T00:00:00Z',
      validFrom: '2026-01-01T00:00:00Z',
      expiresAt: '2026-12-01T00:00:00Z',
    });
  const endpoint = (id: string, fields: Record<string, unknown> = {}) =>
    storedWebhookSchema.parse({
      id,
      parentId: CLIENT,
      url: 'https://hooks.example.com/',
      enabled: true,
      createdAt: '2026-01-01T00:00:00Z',
      secret: 'whsec_0123456789abcdef',
      ...fields,
    });
  const facts = (webhooks: ReturnType<typeof endpoint>[]) => ({
    usersInScope: new Set<string>(),
    linkedChats: new Set<string>(),
    blockedEmails: new Map(),
    webhooks,
  });
  const ids = ['0b8f5a43-3f2c-4f7e-9f53-6a1d3c9e0001', '0b8f5a43-3f2c-4f7e-9f53-6a1d3c9e0002', '0b8f5a43-3f2c-4f7e-9f53-6a1d3c9e0003'] as const;

  it("targets the enabled endpoints of the rule's own client, skips disabled ones with the reason, and drops any other client's", () => {
    const plan = planDelivery(
      rule(true),
      [],
      undefined,
      facts([
        endpoint(ids[0]),
        endpoint(ids[1], { enabled: false, disabledReason: 'the endpoint answered 410 Gone' }),
        endpoint(ids[2], { parentId: OTHER_CLIENT }),
      ]),
      'speeding',
    );
    expect(plan.targets.map((target) => target.key)).toEqual([`webhook:${ids[0]}`]);
    expect(plan.skipped).toEqual([
      { key: `webhook:${ids[1]}`, channel: 'webhook', reason: 'the endpoint is disabled (the endpoint answered 410 Gone)' },
    ]);
  });

  it('targets no endpoint for a rule without toClient', () => {
    const plan = planDelivery(rule(false), [], undefined, facts([endpoint(ids[0])]), 'speeding');
    expect(plan.targets).toEqual([]);
    expect(plan.skipped).toEqual([]);
  });
});
