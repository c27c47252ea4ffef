import { App } from 'aws-cdk-lib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  checkFunctionConfig,
  ConfigError,
  deliverSchema,
  feedOutageConfig,
  readConfig,
  resourcesConfig,
  telegramSchema,
  vehicleClockConfig,
  maxEventAgeConfig,
  passwordSchema,
} from '../../shared/config';
import { CHANGED_INDEXES, stackContext } from '../../infra/context';
import { outboxAgeMs, outboxMaxAttempts } from '../../shared/sweep/outbox-pass';
import { ruleCacheBytes } from '../../shared/pipeline/rule-cache';
import { limitsFromEnv } from '../../shared/api/limits';
import { rateLimitIntervalFromEnv } from '../../shared/api/app';
import { configuredGeocoder } from '../../shared/api/address-location';
import { publicApiUrl } from '../../shared/delivery/links';

describe('configuration schemas', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it('refuses a malformed value, naming the variable, its value and its meaning', () => {
    expect(() => readConfig(deliverSchema(), { DELIVERIES_MAX_RECEIVE_COUNT: 'abc' })).toThrow(ConfigError);
    expect(() => readConfig(deliverSchema(), { DELIVERIES_MAX_RECEIVE_COUNT: 'abc' })).toThrow(
      /DELIVERIES_MAX_RECEIVE_COUNT="abc": .*expected number.*\(The deliveries queue's maxReceiveCount, a safety net/,
    );
    expect(() => vehicleClockConfig({ VEHICLE_CLOCK: 'fast' })).toThrow(/VEHICLE_CLOCK="fast": .*"exact"\|"coalesced"/);
    expect(() => maxEventAgeConfig({ MAX_EVENT_AGE_SECONDS: '15m' })).toThrow(/MAX_EVENT_AGE_SECONDS="15m"/);
    expect(() => checkFunctionConfig('evaluate', { MAX_EVENT_AGE_SECONDS: '-1' })).toThrow(/MAX_EVENT_AGE_SECONDS="-1"/);
    expect([maxEventAgeConfig({}), maxEventAgeConfig({ MAX_EVENT_AGE_SECONDS: '' }), maxEventAgeConfig({ MAX_EVENT_AGE_SECONDS: '0' })]).toEqual([
      900, 900, 0,
    ]);
    expect(() => outboxAgeMs({ OUTBOX_AGE_MS: '-1' })).toThrow(/OUTBOX_AGE_MS="-1"/);
    expect(() => outboxMaxAttempts({ OUTBOX_MAX_ATTEMPTS: '2.5' })).toThrow(/OUTBOX_MAX_ATTEMPTS="2.5"/);
    expect(() => ruleCacheBytes({ RULE_CACHE_BYTES: '0' })).toThrow(/RULE_CACHE_BYTES="0"/);
    expect(() => limitsFromEnv({ LIMIT_RULES_PER_CLIENT: 'lots' })).toThrow(/LIMIT_RULES_PER_CLIENT="lots"/);
    expect(() => rateLimitIntervalFromEnv({ RATE_LIMIT_INTERVAL_MS: '1s' })).toThrow(/RATE_LIMIT_INTERVAL_MS="1s"/);
    expect(() => configuredGeocoder({ GEOCODER: 'google' })).toThrow(/GEOCODER="google"/);
    expect(() => readConfig(telegramSchema(), { TELEGRAM_API_ROOT: 'api.telegram.org' })).toThrow(/TELEGRAM_API_ROOT="api.telegram.org"/);
    expect(() => checkFunctionConfig('sweep', { FEED_OUTAGE_SHARE: '1.5' })).toThrow(/FEED_OUTAGE_SHARE="1.5"/);
    expect(() => feedOutageConfig({ FEED_OUTAGE_GRACE_MINUTES: '0' })).toThrow(/FEED_OUTAGE_GRACE_MINUTES="0"/);
  });

  it('names every bad variable at once', () => {
    expect(() => checkFunctionConfig('sweep', { VEHICLE_CLOCK: 'fast', OUTBOX_MAX_ATTEMPTS: 'ten' })).toThrow(
      /VEHICLE_CLOCK="fast".*; OUTBOX_MAX_ATTEMPTS="ten"/,
    );
  });

  it('reads values and defaults, an empty value counting as unset', () => {
    expect(readConfig(deliverSchema(), {}).DELIVERIES_MAX_RECEIVE_COUNT).toBe(5);
    expect(readConfig(deliverSchema(), { DELIVERIES_MAX_RECEIVE_COUNT: '' }).DELIVERIES_MAX_RECEIVE_COUNT).toBe(5);
    expect(outboxAgeMs({ OUTBOX_AGE_MS: '' })).toBe(120_000);
    expect(feedOutageConfig({ FEED_OUTAGE_SHARE: '' })).toEqual({
      FEED_OUTAGE_SHARE: 0.5,
      FEED_OUTAGE_MIN_VEHICLES: 50,
      FEED_OUTAGE_GRACE_MINUTES: 5,
    });
    expect(feedOutageConfig({ FEED_OUTAGE_SHARE: '0' }).FEED_OUTAGE_SHARE).toBe(0);
    expect(limitsFromEnv({ LIMIT_RULES_PER_CLIENT: '7' }).rulesPerClient).toBe(7);
    expect(limitsFromEnv({}).webhooksPerClient).toBe(10);
    expect(configuredGeocoder({ GEOCODER: '' })).toBeUndefined();
    expect(configuredGeocoder({ GEOCODER: 'amazon-location' })).toBeTypeOf('function');
    expect(readConfig(telegramSchema(), { TELEGRAM_BOT_USERNAME: '' }).TELEGRAM_BOT_USERNAME).toBeUndefined();
    expect(publicApiUrl({ FLEETWATCH_API_PORT: '3100' })).toBe('http://127.0.0.1:3100/api/v3/');
    expect(resourcesConfig({ VEHICLE_STATE_TABLE: 'x-vehicle-state' }).VISITS_TABLE).toBe('x-visits');
  });

  it('hashes passwords at the deployed cost unless told otherwise, and at a cheaper one only in a test run', () => {
    expect(readConfig(passwordSchema(), {}).PASSWORD_SCRYPT_N).toBe(2 ** 17);
    expect(readConfig(passwordSchema(), { PASSWORD_SCRYPT_N: String(2 ** 18) }).PASSWORD_SCRYPT_N).toBe(2 ** 18);
    // vitest runs with NODE_ENV=test
    expect(readConfig(passwordSchema(), { PASSWORD_SCRYPT_N: '1024' }).PASSWORD_SCRYPT_N).toBe(1024);
    expect(() => readConfig(passwordSchema(), { PASSWORD_SCRYPT_N: '1000' })).toThrow(/PASSWORD_SCRYPT_N="1000": .*power of two/);
    expect(() => readConfig(passwordSchema(), { PASSWORD_SCRYPT_N: String(2 ** 19) })).toThrow(/PASSWORD_SCRYPT_N="524288": .*power of two/);
    expect(() => readConfig(passwordSchema(), { PASSWORD_SCRYPT_N: '512' })).toThrow(/PASSWORD_SCRYPT_N="512"/);
    vi.stubEnv('NODE_ENV', 'production');
    expect(() => checkFunctionConfig('api', { PASSWORD_SCRYPT_N: '1024' })).toThrow(/PASSWORD_SCRYPT_N="1024": .*only where NODE_ENV=test/);
    expect(readConfig(passwordSchema(), {}).PASSWORD_SCRYPT_N).toBe(2 ** 17);
  });

  it('checks only the variables the function reads', () => {
    expect(() => checkFunctionConfig('deliver', { DELIVERIES_MAX_RECEIVE_COUNT: 'five' })).toThrow(/DELIVERIES_MAX_RECEIVE_COUNT="five"/);
    expect(() => checkFunctionConfig('evaluate', { DELIVERIES_MAX_RECEIVE_COUNT: 'five' })).not.toThrow();
  });

  it('fails a function at cold start when its configuration is malformed', async () => {
    vi.stubEnv('VEHICLE_CLOCK', 'fast');
    await expect(import('../../functions/evaluate/handler')).rejects.toThrow(/VEHICLE_CLOCK="fast"/);
    vi.resetModules();
    vi.stubEnv('VEHICLE_CLOCK', 'coalesced');
    vi.stubEnv('DELIVERIES_MAX_RECEIVE_COUNT', 'abc');
    await expect(import('../../functions/deliver/handler')).rejects.toThrow(/DELIVERIES_MAX_RECEIVE_COUNT="abc"/);
    vi.resetModules();
    await expect(import('../../functions/evaluate/handler')).resolves.toHaveProperty('handler');
  });

  it('refuses a malformed CDK context key, naming it', () => {
    const context = (values: Record<string, unknown>) => stackContext(new App({ context: values }));
    expect(context({})).toEqual({
      stackName: 'Fleetwatch',
      geocoding: true,
      vehicleClock: 'exact',
      maxEventAgeSeconds: 900,
      sesMaxSendRate: 14,
      evaluateMaxConcurrency: 100,
      deliverMaxConcurrency: undefined,
      apiReservedConcurrency: 0,
      vehicleStateCapacity: 'onDemand',
      vehicleStateMinCapacity: 5,
      vehicleStateMaxCapacity: 4000,
      indexesAsBefore: [],
      indexesLeftOut: [],
      feedOutageShare: 0.5,
      feedOutageMinVehicles: 50,
      smsCountries: '',
      smsOriginationIdentity: '',
      smsMonthlyCapUsd: 50,
      smsPrices: '{}',
      publicApiUrl: '',
      throwaway: false,
    });
    expect(context({ geocoding: false, sesMaxSendRate: '100', stackName: 'Fleet2' })).toMatchObject({
      geocoding: false,
      sesMaxSendRate: 100,
      stackName: 'Fleet2',
    });
    expect(() => context({ geocoding: 'maybe' })).toThrow(/-c geocoding="maybe"/);
    expect(() => context({ apiReservedConcurrency: '-1' })).toThrow(/-c apiReservedConcurrency="-1"/);
    expect(() => context({ feedOutageMinVehicles: '0' })).toThrow(/-c feedOutageMinVehicles="0"/);
    expect(() => context({ maxEventAgeSeconds: '-1' })).toThrow(/-c maxEventAgeSeconds="-1"/);
    expect(context({ maxEventAgeSeconds: 0 }).maxEventAgeSeconds).toBe(0);
    expect(() => context({ sesMaxSendRate: 'fast' })).toThrow(/-c sesMaxSendRate="fast": .*\(The account's SES maximum send rate/);
    expect(() => context({ vehicleStateCapacity: 'reserved' })).toThrow(/-c vehicleStateCapacity="reserved"/);
    expect(context({ indexesAsBefore: 'byParentTime, outbox' }).indexesAsBefore).toEqual(['byParentTime', 'outbox']);
    expect(context({ indexesLeftOut: 'bySilence,byVehicleTime' }).indexesLeftOut).toEqual(['bySilence', 'byVehicleTime']);
    expect(() => context({ indexesAsBefore: 'byOwner' })).toThrow(/-c indexesAsBefore="byOwner"/);
    expect(context({ publicApiUrl: 'https://fw.example.az/api/v3/' }).publicApiUrl).toBe('https://fw.example.az/api/v3/');
    expect(() => context({ publicApiUrl: 'https://fw.example.az/' })).toThrow(/-c publicApiUrl="https:\/\/fw.example.az\/"/);
  });

  it('names each index whose projection changed once across the tables, so the upgrade keys can name it alone', () => {
    expect([...CHANGED_INDEXES].sort()).toEqual(['byParentTime', 'bySilence', 'byVehicleTime', 'outbox']);
    expect(new Set(CHANGED_INDEXES).size).toBe(CHANGED_INDEXES.length);
  });
});
