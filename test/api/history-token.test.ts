import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSecretsEmulator, type RunningSecrets } from '../../infra/local/secrets-emulator';
import { decodeHistoryToken, encodeHistoryToken, forgetHistoryTokenKey, type HistoryTokenQuery } from '../../shared/api/history-token';
import { ApiError } from '../../shared/api/errors';

describe('history page tokens', () => {
  let secrets: RunningSecrets;
  const query: HistoryTokenQuery = { clientId: 'c1', from: '2026-02-10T09:00:00.000Z', to: '2026-02-10T11:00:00.000Z' };
  const before = '2026-02-10T10:00:00.000Z#a1';
  const useSecret = (secretId: string | undefined) => {
    vi.stubEnv('HISTORY_TOKEN_SECRET_ID', secretId);
    forgetHistoryTokenKey();
  };

  beforeAll(async () => {
    secrets = await startSecretsEmulator({ 'history/one': 'k'.repeat(40), 'history/two': 'z'.repeat(40), 'history/short': 'short' });
    vi.stubEnv('AWS_ENDPOINT_URL_SECRETS_MANAGER', secrets.endpoint);
    vi.stubEnv('AWS_REGION', 'us-east-1');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    forgetHistoryTokenKey();
    await secrets.stop();
  });

  it('signs with the key of HISTORY_TOKEN_SECRET_ID: a token of another key is refused naming nextToken', async () => {
    useSecret('history/one');
    const token = await encodeHistoryToken(before, query);
    expect(await decodeHistoryToken(token, query)).toBe(before);
    for (const other of ['history/two', undefined]) {
      useSecret(other);
      const refusal = await decodeHistoryToken(token, query).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(ApiError);
      expect((refusal as ApiError).issues?.map((issue) => issue.path)).toEqual(['nextToken']);
    }
  });

  it('refuses to start with a key shorter than 32 characters', async () => {
    useSecret('history/short');
    await expect(encodeHistoryToken(before, query)).rejects.toThrow(/32 or more characters/);
  });
});
