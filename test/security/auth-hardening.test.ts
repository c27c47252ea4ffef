import { randomBytes, scryptSync } from 'node:crypto';
import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { documentClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { startSession, touchSession } from '../../shared/store/sessions';
import { getUser } from '../../shared/store/directory-store';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { TestClock, login, seedTenants, session, typedApiClient, type TypedApi } from '../api/support';

const DAY_MS = 86_400_000;

async function storedHashes(): Promise<{ pk: string; passwordHash: string }[]> {
  const { Items = [] } = await documentClient().send(new ScanCommand({ TableName: resourcesConfig().DIRECTORY_TABLE }));
  return Items.filter((item) => typeof item.passwordHash === 'string').map((item) => ({
    pk: String(item.pk),
    passwordHash: String(item.passwordHash),
  }));
}

function legacyHash(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password.normalize('NFKC'), salt, 32, { N: 16_384, r: 8, p: 1 });
  return ['scrypt', 16_384, 8, 1, salt.toString('base64'), hash.toString('base64')].join('$');
}

/**
 * Attacks replayed:
 * - offline cracking of a leaked table: hashes must use scrypt at OWASP's current cost (N=2^17, r=8, p=1), and an
 *   older, cheaper hash is replaced the next time its user logs in;
 * - a stolen token kept alive for ever by a script that calls the API before each expiry;
 * - a burst of parallel logins that slips past the 50-session cap (count, then insert).
 */
describe('security: authentication hardening', () => {
  let emulators: Emulators;
  let api: TypedApi;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  const clock = new TestClock();

  beforeAll(async () => {
    // the deployed cost, not the test suite's cheap one (.config/test-env.ts)
    vi.stubEnv('PASSWORD_SCRYPT_N', undefined);
    emulators = await startTestEmulators('sec-auth');
    tenants = await seedTenants('secauth');
    api = typedApiClient({ now: clock.now });
  });
  afterAll(async () => emulators.stop());

  it('hashes passwords with scrypt N=2^17, r=8, p=1', async () => {
    const hashes = await storedHashes();
    expect(hashes.length).toBeGreaterThanOrEqual(4);
    for (const { passwordHash } of hashes) expect(passwordHash).toMatch(/^scrypt\$131072\$8\$1\$/);
  });

  it('upgrades a cheaper hash on the next successful login', async () => {
    const [credential] = (await storedHashes()).filter(
      (item) => item.pk.toLowerCase().includes(tenants.child.login.toLowerCase()) || item.pk.includes(tenants.child.userId),
    );
    expect(credential).toBeDefined();
    await documentClient().send(
      new UpdateCommand({
        TableName: resourcesConfig().DIRECTORY_TABLE,
        Key: { pk: credential!.pk, sk: credential!.pk.startsWith('LOGIN#') ? 'LOGIN' : 'PROFILE' },
        UpdateExpression: 'SET passwordHash = :hash',
        ExpressionAttributeValues: { ':hash': legacyHash(tenants.child.password) },
      }),
    );
    await login(api, tenants.child);
    const upgraded = (await storedHashes()).find((item) => item.pk === credential!.pk)!;
    expect(upgraded.passwordHash).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(await login(api, tenants.child)).toBeTruthy();
  });

  it('ends a session 7 days after login however often it is used', async () => {
    await documentClient().send(
      new UpdateCommand({
        TableName: resourcesConfig().DIRECTORY_TABLE,
        Key: { pk: `USER#${tenants.sibling.userId}`, sk: 'PROFILE' },
        UpdateExpression: 'SET sessionDuration = :week',
        ExpressionAttributeValues: { ':week': 7 * 24 * 60 },
      }),
    );
    const token = await login(api, tenants.sibling);
    const check = () => api.GET('/api/v3/auth/check', { headers: session(token) });
    clock.advance(6 * DAY_MS);
    const stillAlive = await check();
    expect(stillAlive.response.status).toBe(200);
    expect(Date.parse(stillAlive.data!.expiresAt)).toBeLessThanOrEqual(clock.value + DAY_MS);
    clock.advance(DAY_MS);
    expect((await check()).response.status).toBe(401);
  });

  it('never lets parallel logins hold more than 50 sessions', async () => {
    // the sessions of 64 logins that passed their password check at the same moment
    const user = (await getUser(tenants.root.userId))!;
    const started = await Promise.all(Array.from({ length: 64 }, () => startSession(user, clock.value)));
    const live = [];
    for (const { token } of started) if ((await touchSession(token, clock.value, 0)).ok) live.push(token);
    expect(live.length).toBe(50);
    // and the one that is left out is never the latest
    const latest = await startSession(user, clock.value + 1);
    expect((await touchSession(latest.token, clock.value + 1, 0)).ok).toBe(true);
  });
});
