import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../shared/config';
import { adminConfig, isLocalEndpoint, localDefaults, prepareAdminEnvironment } from '../../infra/admin/admin-config';

describe('admin CLI configuration', () => {
  it('reads the tables, the redrive queues and the Telegram secret, with their defaults', () => {
    const defaults = adminConfig({});
    expect(defaults.RULES_TABLE).toBe('fleetwatch-rules');
    expect([defaults.INPUT_QUEUE_URL, defaults.DELIVERIES_DLQ_URL, defaults.TELEGRAM_SECRET_ID]).toEqual([undefined, undefined, undefined]);
    const queue = 'https://sqs.eu-west-1.amazonaws.com/123456789012/fleet-messages.fifo';
    expect(adminConfig({ INPUT_QUEUE_URL: queue, DIRECTORY_TABLE: 'fleet-directory', TELEGRAM_SECRET_ID: 'fleet/telegram' })).toMatchObject({
      INPUT_QUEUE_URL: queue,
      DIRECTORY_TABLE: 'fleet-directory',
      TELEGRAM_SECRET_ID: 'fleet/telegram',
    });
  });

  it('counts an empty variable as unset', () => {
    expect(adminConfig({ RULES_TABLE: '', INPUT_DLQ_URL: '', AWS_ENDPOINT_URL_DYNAMODB: '' })).toEqual(adminConfig({}));
  });

  it('refuses a malformed endpoint, naming the variable, its value and what it takes', () => {
    expect(() => adminConfig({ AWS_ENDPOINT_URL_DYNAMODB: '127.0.0.1:8000' })).toThrow(ConfigError);
    expect(() => adminConfig({ AWS_ENDPOINT_URL_DYNAMODB: '127.0.0.1:8000' })).toThrow(
      /AWS_ENDPOINT_URL_DYNAMODB="127.0.0.1:8000": .*URL.*\(Endpoint of DynamoDB/,
    );
  });

  it('fills in a region and dummy credentials against a local endpoint only', () => {
    const local = adminConfig({ AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:8000' });
    expect(isLocalEndpoint(local)).toBe(true);
    expect(localDefaults(local)).toEqual({ AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' });
    expect(localDefaults(adminConfig({ AWS_ENDPOINT_URL: 'http://localhost:4566', AWS_DEFAULT_REGION: 'eu-west-1', AWS_PROFILE: 'dev' }))).toEqual({
      AWS_REGION: 'eu-west-1',
    });
    expect(
      localDefaults(adminConfig({ AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:8000', AWS_REGION: 'eu-north-1', AWS_ACCESS_KEY_ID: 'mine' })),
    ).toEqual({});
    const remote = adminConfig({ AWS_ENDPOINT_URL_DYNAMODB: 'https://dynamodb.eu-west-1.amazonaws.com' });
    expect(isLocalEndpoint(remote)).toBe(false);
    expect(localDefaults(remote)).toEqual({});
    expect(localDefaults(adminConfig({}))).toEqual({});
  });

  describe('preparing the environment', () => {
    const saved = { ...process.env };
    afterEach(() => {
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
    });

    it('sets --region, then the local dummies, and stops on a malformed variable before any command', () => {
      for (const name of ['AWS_REGION', 'AWS_DEFAULT_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_PROFILE', 'AWS_ENDPOINT_URL']) {
        delete process.env[name];
      }
      process.env.AWS_ENDPOINT_URL_DYNAMODB = 'http://127.0.0.1:8000';
      expect(prepareAdminEnvironment('eu-west-3')).toMatchObject({ AWS_REGION: 'eu-west-3', AWS_ACCESS_KEY_ID: 'local' });
      expect(process.env).toMatchObject({ AWS_REGION: 'eu-west-3', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' });
      process.env.AWS_ENDPOINT_URL_DYNAMODB = 'not a url';
      expect(() => prepareAdminEnvironment(undefined)).toThrow(/AWS_ENDPOINT_URL_DYNAMODB="not a url"/);
    });
  });
});
