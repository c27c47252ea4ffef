import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../shared/config';
import { UsageError, checkPorts, localAwsConfig, readSettings } from '../../infra/local/start-config';

describe('npm start settings', () => {
  it('defaults to the documented ports, the simulator on and three vehicles', () => {
    expect(readSettings([], {})).toEqual({
      reset: false,
      simulator: true,
      vehicles: 3,
      verbose: false,
      help: false,
      dataDir: expect.stringMatching(/\.local$/) as string,
      telegramFake: true,
      telegram: null,
      ports: { api: 3000, ses: 8005, dynamo: 8000, sqs: 9324, telegramFake: 8081, webhook: 0 },
    });
  });

  it('turns Telegram on with a bot token, generating a webhook secret when none is given', () => {
    const generated = readSettings([], { FLEETWATCH_TELEGRAM_BOT_TOKEN: '1:abc' }).telegram;
    expect(generated).toMatchObject({ botToken: '1:abc', webhookSecretGiven: false });
    expect(generated!.webhookSecret.length).toBeGreaterThanOrEqual(32);
    expect(readSettings([], { FLEETWATCH_TELEGRAM_BOT_TOKEN: '1:abc', FLEETWATCH_TELEGRAM_WEBHOOK_SECRET: 'mine' }).telegram).toEqual({
      botToken: '1:abc',
      webhookSecret: 'mine',
      webhookSecretGiven: true,
    });
    expect(readSettings(['--telegram-fake'], { FLEETWATCH_TELEGRAM_BOT_TOKEN: '1:abc' })).toMatchObject({ telegramFake: true, telegram: null });
  });

  it('reads switches from the command line and the environment, the command line first', () => {
    const settings = readSettings(['--reset', '--no-simulator', '--vehicles', '7', '--verbose'], {
      FLEETWATCH_API_PORT: '3100',
      FLEETWATCH_VEHICLES: '2',
      FLEETWATCH_SIMULATOR: 'on',
    });
    expect(settings).toMatchObject({ reset: true, simulator: false, vehicles: 7, verbose: true, ports: { api: 3100 } });
    expect(readSettings([], { FLEETWATCH_RESET: '1', FLEETWATCH_SIMULATOR: '0', FLEETWATCH_VEHICLES: '2' })).toMatchObject({
      reset: true,
      simulator: false,
      vehicles: 2,
    });
  });

  it('takes 1/true/yes/on and 0/false/no/off for a switch, in any case', () => {
    for (const on of ['1', 'true', 'YES', 'On']) expect(readSettings([], { FLEETWATCH_VERBOSE: on }).verbose).toBe(true);
    for (const off of ['0', 'False', 'no', 'OFF']) expect(readSettings([], { FLEETWATCH_SIMULATOR: off }).simulator).toBe(false);
  });

  it('counts an empty variable as unset', () => {
    expect(
      readSettings([], {
        FLEETWATCH_SIMULATOR: '',
        FLEETWATCH_VEHICLES: '',
        FLEETWATCH_API_PORT: '',
        FLEETWATCH_DATA_DIR: '',
        FLEETWATCH_TELEGRAM_BOT_TOKEN: '',
      }),
    ).toEqual(readSettings([], {}));
  });

  it('moves the data folder and the demo webhook receiver', () => {
    expect(readSettings([], { FLEETWATCH_DATA_DIR: '/tmp/fleet-data', FLEETWATCH_WEBHOOK_PORT: '8099' })).toMatchObject({
      dataDir: '/tmp/fleet-data',
      ports: { webhook: 8099 },
    });
  });

  it('refuses a malformed variable, naming it, its value and what it takes', () => {
    const failure = (env: Record<string, string>) => () => readSettings([], env);
    expect(failure({ FLEETWATCH_SES_PORT: '70000' })).toThrow(ConfigError);
    expect(failure({ FLEETWATCH_SES_PORT: '70000' })).toThrow(/FLEETWATCH_SES_PORT="70000": .*65535.*\(Port of SES/);
    expect(failure({ FLEETWATCH_RESET: 'maybe' })).toThrow(/FLEETWATCH_RESET="maybe": .*"1".*"off"/);
    expect(failure({ FLEETWATCH_VEHICLES: '0' })).toThrow(/FLEETWATCH_VEHICLES="0"/);
    expect(failure({ FLEETWATCH_WEBHOOK_PORT: 'any' })).toThrow(/FLEETWATCH_WEBHOOK_PORT="any"/);
  });

  it('refuses a malformed variable of a function it runs before anything starts', () => {
    expect(() => readSettings([], { VEHICLE_CLOCK: 'sometimes' })).toThrow(/VEHICLE_CLOCK="sometimes"/);
    expect(() => readSettings([], { DELIVERIES_MAX_RECEIVE_COUNT: 'soon' })).toThrow(/DELIVERIES_MAX_RECEIVE_COUNT="soon"/);
  });

  it('refuses unknown options and bad numbers on the command line with a message naming them', () => {
    expect(() => readSettings(['--vehicles', 'many'], {})).toThrow(UsageError);
    expect(() => readSettings(['--vehicles', 'many'], {})).toThrow(/--vehicles must be a whole number/);
    expect(() => readSettings(['--turbo'], {})).toThrow(/turbo/);
  });

  it("reads the AWS SDK's region and endpoints the local runtime needs", () => {
    expect(localAwsConfig({})).toEqual({ AWS_REGION: 'us-east-1' });
    expect(localAwsConfig({ AWS_REGION: 'eu-west-1', AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:8000' })).toMatchObject({
      AWS_REGION: 'eu-west-1',
      AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:8000',
    });
  });

  describe('with a port taken', () => {
    let blocker: Server;
    let taken: number;
    beforeAll(async () => {
      blocker = createServer();
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      taken = (blocker.address() as AddressInfo).port;
    });
    afterAll(async () => new Promise<void>((resolve) => blocker.close(() => resolve())));

    const freePort = () =>
      new Promise<number>((resolve) => {
        const probe = createServer().listen(0, '127.0.0.1', () => {
          const port = (probe.address() as AddressInfo).port;
          probe.close(() => resolve(port));
        });
      });

    it('names the port and the variable that moves it', async () => {
      const free = await freePort();
      const problems = await checkPorts({ api: free, ses: taken, dynamo: free, sqs: free, telegramFake: free, webhook: 0 });
      expect(problems).toEqual([`port ${taken} (SES) is already in use: stop what uses it, or choose another port with FLEETWATCH_SES_PORT=<port>`]);
    });

    it("checks the webhook receiver's port only when one is chosen", async () => {
      const free = await freePort();
      const ports = { api: free, ses: free, dynamo: free, sqs: free, telegramFake: free };
      expect(await checkPorts({ ...ports, webhook: taken })).toEqual([
        `port ${taken} (the demo webhook receiver) is already in use: stop what uses it, or choose another port with FLEETWATCH_WEBHOOK_PORT=<port>`,
      ]);
      expect(await checkPorts({ ...ports, webhook: 0 })).toEqual([]);
    });
  });
});
