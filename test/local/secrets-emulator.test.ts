import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetSecretValueCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { startSecretsEmulator, type RunningSecrets } from '../../infra/local/secrets-emulator';

describe('local Secrets Manager stand-in', () => {
  let secrets: RunningSecrets;
  let client: SecretsManagerClient;
  beforeAll(async () => {
    secrets = await startSecretsEmulator({ 'fleetwatch-local/telegram': '{"botToken":"1:abc","webhookSecret":"s"}' });
    client = new SecretsManagerClient({
      endpoint: secrets.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  });
  afterAll(async () => secrets.stop());

  it('answers GetSecretValue by name and by ARN through the real SDK client', async () => {
    const byName = await client.send(new GetSecretValueCommand({ SecretId: 'fleetwatch-local/telegram' }));
    expect(JSON.parse(byName.SecretString!)).toEqual({ botToken: '1:abc', webhookSecret: 's' });
    const byArn = await client.send(new GetSecretValueCommand({ SecretId: byName.ARN! }));
    expect(byArn.SecretString).toBe(byName.SecretString);
  });

  it('answers ResourceNotFoundException for an unknown secret', async () => {
    await expect(client.send(new GetSecretValueCommand({ SecretId: 'other' }))).rejects.toBeInstanceOf(ResourceNotFoundException);
  });
});
