import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { TestClock, seedTenants, typedApiClient, type TypedApi } from '../api/support';

/**
 * Attacks replayed:
 * - parallel guessing: the throttle read the failure count, then compared the password, then counted; a burst
 *   of concurrent guesses all read the same count and all got a password comparison;
 * - lock-out: five wrong passwords from anywhere locked a login for everyone, so a stranger could keep any user
 *   out for 15 minutes at a time;
 * - spraying: one address trying a few passwords on many logins was never slowed down.
 */
describe('security: login throttling', () => {
  let emulators: Emulators;
  /** One client per caller address, all on the same clock and store. */
  const clients = new Map<string, TypedApi>();
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  const clock = new TestClock();

  beforeAll(async () => {
    emulators = await startTestEmulators('sec-login');
    tenants = await seedTenants('seclogin');
  });
  afterAll(async () => emulators.stop());

  const from = (sourceIp: string) => {
    if (!clients.has(sourceIp)) clients.set(sourceIp, typedApiClient({ now: clock.now, sourceIp }));
    return clients.get(sourceIp)!;
  };
  const attempt = async (login: string, password: string, sourceIp: string) =>
    (await from(sourceIp).POST('/api/v3/auth/login', { body: { login, password } })).response;

  it('counts concurrent guesses one by one: a burst gets no more password comparisons than the free attempts', async () => {
    const burst = await Promise.all(Array.from({ length: 20 }, (_, index) => attempt(tenants.child.login, `guess-${index}`, '198.51.100.7')));
    const compared = burst.filter((response) => response.status === 401).length;
    expect(burst.every((response) => response.status === 401 || response.status === 429)).toBe(true);
    expect(compared).toBeLessThanOrEqual(5);
    expect(burst.filter((response) => response.status === 429).length).toBeGreaterThanOrEqual(15);
  });

  it('does not let a stranger lock out a user who logs in from elsewhere', async () => {
    for (let index = 0; index < 8; index++) await attempt(tenants.sibling.login, `wrong-${index}`, '203.0.113.66');
    expect((await attempt(tenants.sibling.login, 'still wrong', '203.0.113.66')).status).toBe(429);
    const owner = await attempt(tenants.sibling.login, tenants.sibling.password, '192.0.2.10');
    expect(owner.status).toBe(200);
  });

  it('slows down one address spraying passwords over many logins', async () => {
    const statuses: number[] = [];
    for (let index = 0; index < 30; index++) {
      statuses.push((await attempt(`sprayed-login-${index}`, 'Summer2026!', '198.51.100.99')).status);
    }
    expect(statuses.slice(0, 20).every((status) => status === 401)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    // the users themselves, elsewhere, are not affected
    expect((await attempt(tenants.root.login, tenants.root.password, '192.0.2.11')).status).toBe(200);
  });
});
