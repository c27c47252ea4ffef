import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { AccessDeniedException, GeocodeCommand, GeoPlacesClient } from '@aws-sdk/client-geo-places';
import { GetAccountSettingsCommand, LambdaClient } from '@aws-sdk/client-lambda';
import {
  DescribeAccountAttributesCommand,
  DescribePhoneNumbersCommand,
  DescribePoolsCommand,
  DescribeSenderIdsCommand,
  DescribeSpendLimitsCommand,
  PinpointSMSVoiceV2Client,
  ResourceNotFoundException as SmsResourceNotFoundException,
} from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { GetSecretValueCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetAccountCommand, GetEmailIdentityCommand, NotFoundException, SESv2Client } from '@aws-sdk/client-sesv2';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { BOT_TOKEN_PLACEHOLDER } from '../../infra/constructs/telegram-secret';
import {
  CHECKS,
  checkBootstrap,
  checkCredentials,
  checkGeocoding,
  checkLambdaConcurrency,
  checkSenderIdentity,
  checkSesAccount,
  checkTelegramSecret,
} from '../../infra/preflight/checks';
import { USAGE } from '../../infra/preflight/help';
import { parsePreflightArgs, PreflightUsageError, type PreflightOptions } from '../../infra/preflight/options';
import { preflight } from '../../infra/preflight/run';
import { checkSmsAccount, checkSmsIdentity, type SmsContext } from '../../infra/preflight/sms-checks';
import { ConfigError } from '../../shared/config';

/**
 * `npm run preflight` against a mocked account. No emulator covers STS, CloudFormation, the SESv2 account and
 * identity APIs, Lambda's account settings, Amazon Location, Secrets Manager or End User Messaging SMS's account
 * and identity APIs as these checks read them (the loopback SMS fake plays sends for npm start and the delivery
 * tests, not an account), so each client is mocked with aws-sdk-client-mock: every instance's `send` answers what a
 * given account would.
 */
const sts = mockClient(STSClient);
const cloudFormation = mockClient(CloudFormationClient);
const sesv2 = mockClient(SESv2Client);
const lambda = mockClient(LambdaClient);
const geoPlaces = mockClient(GeoPlacesClient);
const secretsManager = mockClient(SecretsManagerClient);
const smsVoice = mockClient(PinpointSMSVoiceV2Client);
const mocks = [sts, cloudFormation, sesv2, lambda, geoPlaces, secretsManager, smsVoice];

const REGION = 'eu-central-1';
const ACCOUNT = '123456789012';
const SENDER = 'alerts@fleet.example';
const BOT_TOKEN = '7012345678:AAHk3vQm2xZp9LrT5sWn8bYc4dFg6hJk1lQ';
const WEBHOOK_SECRET = 'w3bh00kS3cretGeneratedByTheStackQpXvRtYzWmKbNcLdHfGjSaEuIoPlTrMxNq';
const NO_TARGET = {};
const POOL_ARN = `arn:aws:sms-voice:${REGION}:${ACCOUNT}:pool/pool-fleetwatch`;

const client = <T>(Client: new (config: { region: string }) => T) => new Client({ region: REGION });
const awsError = (name: string, message: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(message), { name, ...extra });

/** An account ready for the first deploy: every check passes. */
function readyAccount() {
  sts.on(GetCallerIdentityCommand).resolves({ Account: ACCOUNT, Arn: `arn:aws:iam::${ACCOUNT}:user/deployer`, UserId: 'AIDA' });
  cloudFormation.on(DescribeStacksCommand).resolves({
    Stacks: [
      {
        StackName: 'CDKToolkit',
        StackStatus: 'UPDATE_COMPLETE',
        CreationTime: new Date(),
        Outputs: [{ OutputKey: 'BootstrapVersion', OutputValue: '28' }],
      },
    ],
  });
  sesv2.on(GetEmailIdentityCommand).rejects(new NotFoundException({ message: 'not found', $metadata: {} }));
  sesv2
    .on(GetEmailIdentityCommand, { EmailIdentity: 'fleet.example' })
    .resolves({ VerifiedForSendingStatus: true, VerificationStatus: 'SUCCESS', DkimAttributes: { Status: 'SUCCESS' } });
  sesv2.on(GetAccountCommand).resolves({
    SendingEnabled: true,
    ProductionAccessEnabled: true,
    SendQuota: { Max24HourSend: 50_000, MaxSendRate: 14, SentLast24Hours: 0 },
  });
  lambda.on(GetAccountSettingsCommand).resolves({ AccountLimit: { ConcurrentExecutions: 1000, UnreservedConcurrentExecutions: 1000 } });
  geoPlaces.on(GeocodeCommand).resolves({ ResultItems: [{ PlaceId: 'berlin', PlaceType: 'Locality', Title: 'Berlin, Deutschland' }] });
  secretsManager.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify({ botToken: BOT_TOKEN, webhookSecret: WEBHOOK_SECRET }) });
  smsVoice.on(DescribePoolsCommand).resolves({
    Pools: [{ PoolArn: POOL_ARN, PoolId: 'pool-fleetwatch', Status: 'ACTIVE', MessageType: 'TRANSACTIONAL' } as never],
  });
  smsVoice
    .on(DescribeSpendLimitsCommand)
    .resolves({ SpendLimits: [{ Name: 'TEXT_MESSAGE_MONTHLY_SPEND_LIMIT', EnforcedLimit: 500, MaxLimit: 500, Overridden: true }] });
  smsVoice.on(DescribeAccountAttributesCommand).resolves({ AccountAttributes: [{ Name: 'ACCOUNT_TIER', Value: 'PRODUCTION' }] });
}

afterAll(() => {
  // the SDK classes outlive this file in its worker (isolate: false): a stub left on one would answer the next file
  for (const mock of mocks) mock.restore();
});

beforeEach(() => {
  for (const mock of mocks) mock.reset();
  readyAccount();
});

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await preflight(argv, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

const tableRows = (table: string) => table.split('\n').filter((line) => /^\S.*\s(PASS|WARN|FAIL)\s/.test(line));

describe('npm run preflight', () => {
  it('passes every check of a ready account: exit code 0, nine rows, the SMS ones skipped', async () => {
    const { code, stdout } = await run(['--region', REGION, '--sender', SENDER]);
    expect(code).toBe(0);
    const rows = tableRows(stdout);
    expect(rows).toHaveLength(9);
    expect(rows.every((row) => row.includes(' PASS '))).toBe(true);
    for (const check of Object.values(CHECKS)) expect(stdout).toMatch(new RegExp(`^${check} `, 'm'));
    expect(stdout).toContain('9 checks: 9 pass, 0 warn, 0 fail');
    expect(stdout).toContain(`account ${ACCOUNT}`);
    expect(secretsManager.commandCalls(GetSecretValueCommand)[0]!.args[0].input).toEqual({ SecretId: 'Fleetwatch/telegram' });
  });

  it('exits 1 when a row fails, and still prints every other row', async () => {
    lambda.on(GetAccountSettingsCommand).rejects(awsError('ServiceException', 'Lambda had a bad day'));
    const { code, stdout } = await run(['--region', REGION, '--sender', SENDER]);
    expect(code).toBe(1);
    const rows = tableRows(stdout);
    expect(rows).toHaveLength(9);
    expect(rows.filter((row) => row.includes(' FAIL '))).toEqual([expect.stringMatching(/^Lambda concurrency /)]);
  });

  it('exits 0 with warnings only', async () => {
    const { code, stdout } = await run(['--region', REGION]);
    expect(code).toBe(0);
    expect(stdout).toContain('9 checks: 8 pass, 1 warn, 0 fail');
  });

  it('never prints the bot token or the webhook secret, whatever the secret holds', async () => {
    const held = [
      { botToken: BOT_TOKEN, webhookSecret: WEBHOOK_SECRET },
      { botToken: BOT_TOKEN },
      { botToken: `${BOT_TOKEN}!`, webhookSecret: WEBHOOK_SECRET },
      { botToken: BOT_TOKEN_PLACEHOLDER, webhookSecret: WEBHOOK_SECRET },
    ].map((value) => JSON.stringify(value));
    // not JSON: V8's parser message quotes the start of its input
    held.push(`{"botToken":"${BOT_TOKEN}","webhookSecret":"${WEBHOOK_SECRET}"`, WEBHOOK_SECRET, BOT_TOKEN.split(':')[1]!);
    // any 8 characters in a row of either secret (the token's digits apart, which an account id may share)
    const pieces = [BOT_TOKEN.split(':')[1]!, WEBHOOK_SECRET].flatMap((secret) => [...secret.slice(7)].map((_, at) => secret.slice(at, at + 8)));
    for (const secretString of held) {
      secretsManager.on(GetSecretValueCommand).resolves({ SecretString: secretString });
      const { stdout, stderr } = await run(['--region', REGION, '--sender', SENDER]);
      expect(tableRows(stdout)).toHaveLength(9);
      expect(pieces.filter((piece) => `${stdout}${stderr}`.includes(piece))).toEqual([]);
    }
  });

  it('passes --region and --profile to every client', async () => {
    await run(['--region', 'eu-west-1', '--profile', 'ops', '--sender', SENDER]);
    const calls = [
      sts.commandCalls(GetCallerIdentityCommand),
      cloudFormation.commandCalls(DescribeStacksCommand),
      sesv2.commandCalls(GetAccountCommand),
      lambda.commandCalls(GetAccountSettingsCommand),
      geoPlaces.commandCalls(GeocodeCommand),
      secretsManager.commandCalls(GetSecretValueCommand),
    ];
    for (const [call] of calls) {
      const config = (call!.thisValue as STSClient).config as unknown as { region: () => Promise<string>; profile?: string };
      expect(await config.region()).toBe('eu-west-1');
      expect(config.profile).toBe('ops');
    }
  });
});

describe('Credentials', () => {
  it('fails without credentials, with aws configure or aws sso login', async () => {
    sts.on(GetCallerIdentityCommand).rejects(awsError('CredentialsProviderError', 'Could not load credentials from any providers'));
    const { row, identity } = await checkCredentials(client(STSClient), { profile: 'ops' });
    expect(row).toMatchObject({ check: 'Credentials', status: 'fail' });
    expect(row.found).toContain('no usable credentials in eu-central-1: CredentialsProviderError');
    expect(row.fix).toContain('aws configure --profile ops');
    expect(row.fix).toContain('aws sso login --profile ops');
    expect(identity).toEqual({ region: REGION });
  });

  it('fails without a region, naming --region', async () => {
    const noRegion = new STSClient({
      region: (): Promise<string> => Promise.reject(new Error('Region is missing')),
    });
    const { row } = await checkCredentials(noRegion, NO_TARGET);
    expect(row).toMatchObject({ status: 'fail', found: expect.stringContaining('no region') });
    expect(row.fix).toContain('--region <region>');
  });

  it('finds the account and the region', async () => {
    const { row, identity } = await checkCredentials(client(STSClient), NO_TARGET);
    expect(row).toMatchObject({ status: 'pass', found: expect.stringMatching(/account 123456789012 .*region eu-central-1/) });
    expect(identity).toEqual({ account: ACCOUNT, region: REGION });
  });
});

describe('CDK bootstrap', () => {
  const identity = { account: ACCOUNT, region: REGION };

  it('fails when the toolkit stack is missing, with cdk bootstrap of the account and region', async () => {
    cloudFormation.on(DescribeStacksCommand).rejects(awsError('ValidationError', 'Stack with id CDKToolkit does not exist'));
    const row = await checkBootstrap(client(CloudFormationClient), 'CDKToolkit', identity, NO_TARGET);
    expect(row).toMatchObject({ check: 'CDK bootstrap', status: 'fail', found: 'no CDKToolkit stack in eu-central-1: not bootstrapped' });
    expect(row.fix).toBe('npx cdk bootstrap aws://123456789012/eu-central-1');
  });

  it('fails on a bootstrap version the template refuses', async () => {
    cloudFormation.on(DescribeStacksCommand).resolves({
      Stacks: [
        {
          StackName: 'CdkToolkitOld',
          StackStatus: 'CREATE_COMPLETE',
          CreationTime: new Date(),
          Outputs: [{ OutputKey: 'BootstrapVersion', OutputValue: '5' }],
        },
      ],
    });
    const row = await checkBootstrap(client(CloudFormationClient), 'CdkToolkitOld', identity, { profile: 'ops' });
    expect(row.status).toBe('fail');
    expect(row.found).toContain('CdkToolkitOld BootstrapVersion 5');
    expect(row.fix).toBe('npx cdk bootstrap aws://123456789012/eu-central-1 --toolkit-stack-name CdkToolkitOld --profile ops');
  });

  it('passes version 6', async () => {
    cloudFormation.on(DescribeStacksCommand).resolves({
      Stacks: [
        {
          StackName: 'CDKToolkit',
          StackStatus: 'CREATE_COMPLETE',
          CreationTime: new Date(),
          Outputs: [{ OutputKey: 'BootstrapVersion', OutputValue: '6' }],
        },
      ],
    });
    expect(await checkBootstrap(client(CloudFormationClient), 'CDKToolkit', identity, NO_TARGET)).toMatchObject({ status: 'pass' });
  });
});

describe('SES sender identity', () => {
  it('warns without --sender', async () => {
    const row = await checkSenderIdentity(client(SESv2Client), undefined, NO_TARGET);
    expect(row).toMatchObject({ check: 'SES sender identity', status: 'warn', found: 'not checked: no --sender given' });
    expect(row.fix).toContain('--sender');
    expect(sesv2.commandCalls(GetEmailIdentityCommand)).toHaveLength(0);
  });

  it('fails when neither the address nor its domain is verified, with create-email-identity of the domain', async () => {
    sesv2
      .on(GetEmailIdentityCommand, { EmailIdentity: 'fleet.example' })
      .resolves({ VerifiedForSendingStatus: false, VerificationStatus: 'PENDING' });
    const row = await checkSenderIdentity(client(SESv2Client), SENDER, { region: REGION });
    expect(row.status).toBe('fail');
    expect(row.found).toBe('no identity alerts@fleet.example; fleet.example not verified for sending (PENDING)');
    expect(row.fix).toContain('aws sesv2 create-email-identity --email-identity fleet.example --region eu-central-1');
    expect(row.fix).toContain('<token>._domainkey.fleet.example -> <token>.dkim.amazonses.com');
  });

  it('warns when the domain is verified but DKIM is not SUCCESS', async () => {
    sesv2
      .on(GetEmailIdentityCommand, { EmailIdentity: 'fleet.example' })
      .resolves({ VerifiedForSendingStatus: true, DkimAttributes: { Status: 'PENDING' } });
    const row = await checkSenderIdentity(client(SESv2Client), SENDER, NO_TARGET);
    expect(row).toMatchObject({ status: 'warn', found: 'fleet.example verified for sending; DKIM PENDING' });
    expect(row.fix).toContain('aws sesv2 get-email-identity --email-identity fleet.example --query DkimAttributes.Tokens');
  });

  it('takes the address itself when it is verified', async () => {
    sesv2.on(GetEmailIdentityCommand, { EmailIdentity: SENDER }).resolves({ VerifiedForSendingStatus: true, DkimAttributes: { Status: 'SUCCESS' } });
    const row = await checkSenderIdentity(client(SESv2Client), SENDER, NO_TARGET);
    expect(row).toMatchObject({ status: 'pass', found: 'alerts@fleet.example verified for sending, DKIM SUCCESS' });
    expect(sesv2.commandCalls(GetEmailIdentityCommand)).toHaveLength(1);
  });
});

describe('SES account', () => {
  it('fails when sending is disabled', async () => {
    sesv2.on(GetAccountCommand).resolves({
      SendingEnabled: false,
      ProductionAccessEnabled: true,
      EnforcementStatus: 'SHUTDOWN',
      SendQuota: { Max24HourSend: 50_000, MaxSendRate: 14 },
    });
    const row = await checkSesAccount(client(SESv2Client), 14, NO_TARGET);
    expect(row).toMatchObject({ check: 'SES account', status: 'fail' });
    expect(row.found).toContain('sending disabled (enforcement status SHUTDOWN)');
    expect(row.fix).toContain('aws sesv2 put-account-sending-attributes --sending-enabled');
  });

  it('warns in the sandbox, showing the quota, with -c sesMaxSendRate=1', async () => {
    sesv2.on(GetAccountCommand).resolves({ SendingEnabled: true, ProductionAccessEnabled: false, SendQuota: { Max24HourSend: 200, MaxSendRate: 1 } });
    const row = await checkSesAccount(client(SESv2Client), 1, NO_TARGET);
    expect(row.status).toBe('warn');
    expect(row.found).toBe('quota 200 e-mails/24 h, 1 e-mails/s; sandbox: only verified recipients, 1 e-mail/s, 200/day');
    expect(row.fix).toContain('deploy with -c sesMaxSendRate=1, verify each recipient');
  });

  it('warns when -c sesMaxSendRate is above the account rate, with that rate', async () => {
    const row = await checkSesAccount(client(SESv2Client), 50, NO_TARGET);
    expect(row.status).toBe('warn');
    expect(row.found).toContain("-c sesMaxSendRate=50 is above the account's MaxSendRate 14");
    expect(row.fix).toBe('deploy with -c sesMaxSendRate=14');
  });
});

describe('Lambda concurrency', () => {
  it('fails on a reservation that leaves fewer than 100 unreserved', async () => {
    lambda.on(GetAccountSettingsCommand).resolves({ AccountLimit: { ConcurrentExecutions: 10, UnreservedConcurrentExecutions: 10 } });
    const row = await checkLambdaConcurrency(client(LambdaClient), 20, NO_TARGET);
    expect(row).toMatchObject({ check: 'Lambda concurrency', status: 'fail' });
    expect(row.found).toContain('account limit 10, unreserved 10, -c apiReservedConcurrency=20');
    expect(row.found).toContain('would leave -10 unreserved');
    expect(row.fix).toContain('deploy with -c apiReservedConcurrency=0');
    expect(row.fix).toContain('aws service-quotas request-service-quota-increase --service-code lambda --quota-code L-B99A9384 --desired-value 1000');
  });

  it('warns on a limit below 100 without a reservation', async () => {
    lambda.on(GetAccountSettingsCommand).resolves({ AccountLimit: { ConcurrentExecutions: 10, UnreservedConcurrentExecutions: 10 } });
    const row = await checkLambdaConcurrency(client(LambdaClient), 0, { profile: 'ops' });
    expect(row.status).toBe('warn');
    expect(row.found).toContain('account limit 10, unreserved 10');
    expect(row.found).toContain('evaluate, deliver and api share 10');
    expect(row.fix).toBe(
      'aws service-quotas request-service-quota-increase --service-code lambda --quota-code L-B99A9384 --desired-value 1000 --profile ops',
    );
  });

  it('passes a reservation the account can spare', async () => {
    expect(await checkLambdaConcurrency(client(LambdaClient), 20, NO_TARGET)).toMatchObject({ status: 'pass' });
  });
});

describe('Amazon Location', () => {
  const identity = { account: ACCOUNT, region: REGION };

  it('fails when access is denied, with the IAM reason', async () => {
    const reason = `User: arn:aws:iam::${ACCOUNT}:user/deployer is not authorized to perform: geo-places:Geocode because no identity-based policy allows it`;
    geoPlaces.on(GeocodeCommand).rejects(new AccessDeniedException({ message: reason, Message: reason, $metadata: {} }));
    const row = await checkGeocoding(client(GeoPlacesClient), true, identity);
    expect(row).toMatchObject({ check: 'Amazon Location', status: 'fail' });
    expect(row.found).toContain(`AccessDeniedException: ${reason}`);
    expect(row.fix).toContain('geo-places:Geocode');
    expect(row.fix).toContain('-c geocoding=false');
  });

  it('fails where places is not offered, with -c geocoding=false or another region', async () => {
    geoPlaces.on(GeocodeCommand).rejects(awsError('Error', 'getaddrinfo ENOTFOUND places.geo.eu-central-1.amazonaws.com', { code: 'ENOTFOUND' }));
    const row = await checkGeocoding(client(GeoPlacesClient), true, identity);
    expect(row.status).toBe('fail');
    expect(row.found).toMatch(/^not offered in eu-central-1/);
    expect(row.fix).toContain('-c geocoding=false');
    expect(row.fix).toContain('--region');
  });

  it('passes as off with -c geocoding=false, asking nothing', async () => {
    const row = await checkGeocoding(client(GeoPlacesClient), false, identity);
    expect(row).toMatchObject({ status: 'pass', found: expect.stringMatching(/^off/) });
    expect(geoPlaces.commandCalls(GeocodeCommand)).toHaveLength(0);
  });

  it('geocodes Berlin, one result', async () => {
    await checkGeocoding(client(GeoPlacesClient), true, identity);
    expect(geoPlaces.commandCalls(GeocodeCommand)[0]!.args[0].input).toEqual({ QueryText: 'Berlin', MaxResults: 1 });
  });
});

describe('Telegram secret', () => {
  const holding = (value: unknown) => secretsManager.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify(value) });

  it('passes before the stack created the secret', async () => {
    secretsManager.on(GetSecretValueCommand).rejects(new ResourceNotFoundException({ message: "can't find the secret", $metadata: {} }));
    const row = await checkTelegramSecret(client(SecretsManagerClient), 'FleetwatchStaging', NO_TARGET);
    expect(row).toMatchObject({ check: 'Telegram secret', status: 'pass' });
    expect(row.found).toContain('FleetwatchStaging/telegram not created yet: the stack creates it; put the bot token after deploying');
  });

  it('warns while the bot token is the placeholder, with put-secret-value', async () => {
    holding({ botToken: BOT_TOKEN_PLACEHOLDER, webhookSecret: WEBHOOK_SECRET });
    const row = await checkTelegramSecret(client(SecretsManagerClient), 'Fleetwatch', NO_TARGET);
    expect(row).toMatchObject({ status: 'warn', found: 'botToken is still the placeholder the stack stores' });
    expect(row.fix).toContain('aws secretsmanager put-secret-value --secret-id Fleetwatch/telegram --secret-string');
  });

  it('fails on a bot token not shaped like one', async () => {
    holding({ botToken: 'not-a-token', webhookSecret: WEBHOOK_SECRET });
    const row = await checkTelegramSecret(client(SecretsManagerClient), 'Fleetwatch', NO_TARGET);
    expect(row).toMatchObject({ status: 'fail', found: expect.stringContaining('botToken is not shaped like a bot token') });
    expect(row.fix).toContain('aws secretsmanager put-secret-value --secret-id Fleetwatch/telegram');
  });

  it('fails without a webhookSecret', async () => {
    holding({ botToken: BOT_TOKEN });
    const row = await checkTelegramSecret(client(SecretsManagerClient), 'Fleetwatch', NO_TARGET);
    expect(row).toMatchObject({ status: 'fail', found: 'no webhookSecret' });
    expect(row.fix).toContain('aws secretsmanager put-secret-value --secret-id Fleetwatch/telegram');
    expect(row.fix).toContain('register the webhook again');
  });

  it('fails on a secret that is not JSON', async () => {
    secretsManager.on(GetSecretValueCommand).resolves({ SecretString: BOT_TOKEN });
    const row = await checkTelegramSecret(client(SecretsManagerClient), 'Fleetwatch', NO_TARGET);
    expect(row).toMatchObject({ status: 'fail', found: 'Fleetwatch/telegram is not JSON' });
    expect(row.fix).toContain('put-secret-value');
  });
});

describe('preflight options', () => {
  it('merges cdk.json context under the -c values, as cdk deploy does', () => {
    const command = parsePreflightArgs(['-c', 'sesMaxSendRate=3', '--context', 'apiReservedConcurrency=20', '-cgeocoding=false'], {
      sesMaxSendRate: 5,
      vehicleClock: 'coalesced',
      geocoding: true,
      '@aws-cdk/aws-lambda-nodejs:useLatestRuntimeVersion': true,
    });
    expect(command.help).toBe(false);
    const { context, stack, toolkitStackName } = (command as { options: PreflightOptions }).options;
    expect(context).toMatchObject({ sesMaxSendRate: 3, vehicleClock: 'coalesced', apiReservedConcurrency: 20, geocoding: false });
    expect(stack).toBe('Fleetwatch');
    expect(toolkitStackName).toBe('CDKToolkit');
  });

  it('takes the stack from -c stackName, and --stack over it', () => {
    const options = (argv: string[]) => (parsePreflightArgs(argv, {}) as { options: PreflightOptions }).options;
    expect(options(['-c', 'stackName=FleetwatchStaging']).stack).toBe('FleetwatchStaging');
    expect(options(['-c', 'stackName=FleetwatchStaging', '--stack', 'Other']).stack).toBe('Other');
  });

  it('names the key of a bad -c value, and of a bad cdk.json value', () => {
    expect(() => parsePreflightArgs(['-c', 'apiReservedConcurrency=lots'], {})).toThrow(ConfigError);
    expect(() => parsePreflightArgs(['-c', 'apiReservedConcurrency=lots'], {})).toThrow(
      /invalid CDK context: -c apiReservedConcurrency="lots": .*Concurrency reserved/,
    );
    expect(() => parsePreflightArgs([], { sesMaxSendRate: 0 })).toThrow(/cdk\.json context sesMaxSendRate=0/);
    expect(() => parsePreflightArgs(['-c', 'geocoding'], {})).toThrow(PreflightUsageError);
  });

  it('refuses malformed options', () => {
    expect(() => parsePreflightArgs(['--sender', 'alerts'], {})).toThrow(/--sender: an e-mail address/);
    expect(() => parsePreflightArgs(['--region', 'Frankfurt'], {})).toThrow(/--region: an AWS region/);
    expect(() => parsePreflightArgs(['--unknown'], {})).toThrow(PreflightUsageError);
  });

  it('exits 2 on a bad -c value, naming it, before asking AWS anything', async () => {
    const { code, stdout, stderr } = await run(['-c', 'sesMaxSendRate=fast']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('-c sesMaxSendRate="fast"');
    expect(sts.calls()).toHaveLength(0);
  });

  it('reads the context of a cdk.json', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'preflight-'));
    const cdkJson = path.join(folder, 'cdk.json');
    writeFileSync(cdkJson, JSON.stringify({ app: 'npx tsx infra/app.ts', context: { geocoding: false } }));
    let stdout = '';
    const code = await preflight(['--region', REGION, '--sender', SENDER], { stdout: (text) => (stdout += text), stderr: () => {}, cdkJson });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Amazon Location +PASS +off/m);
    expect(geoPlaces.calls()).toHaveLength(0);
  });

  it('--help documents every check: what it reads and what pass and fail mean', async () => {
    const { code, stdout } = await run(['--help', '-c', 'sesMaxSendRate=fast']);
    expect(code).toBe(0);
    expect(stdout).toBe(USAGE);
    const sections = stdout.split('\nChecks:\n')[1]!.split(/\n {2}(?=\S)/);
    expect(sections.map((section) => section.split('\n')[0]!.trim())).toEqual(Object.values(CHECKS));
    for (const section of sections) {
      expect(section).toMatch(/^ {4}reads /m);
      expect(section).toMatch(/^ {4}pass /m);
      expect(section).toMatch(/^ {4}fail /m);
    }
    for (const option of ['--region', '--profile', '--stack', '--sender', '-c, --context', '--toolkit-stack-name', '--help'])
      expect(stdout).toContain(option);
    expect(sts.calls()).toHaveLength(0);
  });
});

describe('SMS', () => {
  const sms = () => client(PinpointSMSVoiceV2Client);
  const on = (fields: Partial<SmsContext> = {}): SmsContext => ({
    smsCountries: 'AZ,GE',
    smsOriginationIdentity: POOL_ARN,
    smsMonthlyCapUsd: 50,
    ...fields,
  });
  const identity = { account: ACCOUNT, region: REGION };

  it('skips both rows without -c smsCountries, asking nothing', async () => {
    const { stdout } = await run(['--region', REGION, '--sender', SENDER]);
    expect(stdout).toMatch(/^SMS origination identity\s+PASS\s+skipped: SMS off/m);
    expect(stdout).toMatch(/^SMS account\s+PASS\s+skipped: SMS off/m);
    expect(smsVoice.calls()).toHaveLength(0);
  });

  it('passes an active transactional pool of the region, and an account out of the sandbox above the cap, from the deploy context', async () => {
    const { code, stdout } = await run([
      '--region',
      REGION,
      '--sender',
      SENDER,
      '-c',
      'smsCountries=AZ,GE',
      '-c',
      `smsOriginationIdentity=${POOL_ARN}`,
    ]);
    expect(code).toBe(0);
    expect(stdout).toContain('9 checks: 9 pass');
    expect(smsVoice.commandCalls(DescribePoolsCommand)[0]!.args[0].input).toEqual({ PoolIds: [POOL_ARN] });
    expect(stdout).toContain('pool pool-fleetwatch, ACTIVE');
  });

  it('fails with countries but no identity, an identity of another region, or one the account does not have', async () => {
    expect(await checkSmsIdentity(sms(), on({ smsOriginationIdentity: '' }), identity, NO_TARGET)).toMatchObject({
      status: 'fail',
      found: expect.stringContaining('without -c smsOriginationIdentity'),
    });
    const elsewhere = POOL_ARN.replace(REGION, 'us-east-1');
    expect(await checkSmsIdentity(sms(), on({ smsOriginationIdentity: elsewhere }), identity, NO_TARGET)).toMatchObject({
      status: 'fail',
      found: expect.stringContaining('is in us-east-1'),
    });
    smsVoice
      .on(DescribePoolsCommand)
      .rejects(new SmsResourceNotFoundException({ message: 'Pool not found', $metadata: {}, ResourceType: 'pool', ResourceId: 'x' }));
    const missing = await checkSmsIdentity(sms(), on(), identity, NO_TARGET);
    expect(missing).toMatchObject({
      status: 'fail',
      found: expect.stringContaining('no pool pool-fleetwatch'),
      fix: expect.stringContaining('smsOriginationIdentity'),
    });
  });

  it('describes a phone number or a sender id as the ARN names it; a sender id serving one country of several warns', async () => {
    const numberArn = `arn:aws:sms-voice:${REGION}:${ACCOUNT}:phone-number/phone-0123`;
    smsVoice.on(DescribePhoneNumbersCommand).resolves({
      PhoneNumbers: [
        {
          PhoneNumberArn: numberArn,
          PhoneNumber: '+4915100000000',
          Status: 'PENDING',
          MessageType: 'TRANSACTIONAL',
          NumberType: 'LONG_CODE',
        } as never,
      ],
    });
    const number = await checkSmsIdentity(sms(), on({ smsOriginationIdentity: numberArn }), identity, NO_TARGET);
    expect(smsVoice.commandCalls(DescribePhoneNumbersCommand)[0]!.args[0].input).toEqual({ PhoneNumberIds: [numberArn] });
    expect(number).toMatchObject({ status: 'warn', found: expect.stringContaining('not active yet (PENDING)') });

    const senderArn = `arn:aws:sms-voice:${REGION}:${ACCOUNT}:sender-id/FLEET/AZ`;
    smsVoice.on(DescribeSenderIdsCommand).resolves({
      SenderIds: [{ SenderIdArn: senderArn, SenderId: 'FLEET', IsoCountryCode: 'AZ', MessageTypes: ['TRANSACTIONAL'] } as never],
    });
    const sender = await checkSmsIdentity(sms(), on({ smsOriginationIdentity: senderArn }), identity, NO_TARGET);
    expect(smsVoice.commandCalls(DescribeSenderIdsCommand)[0]!.args[0].input).toEqual({ SenderIds: [{ SenderId: senderArn, IsoCountryCode: 'AZ' }] });
    expect(sender).toMatchObject({
      status: 'warn',
      found: expect.stringContaining('SMS to GE would be refused'),
      fix: expect.stringContaining('smsCountries=AZ'),
    });
  });

  it("warns when the account's monthly limit is below one client's cap, with the override while the maximum allows it", async () => {
    smsVoice
      .on(DescribeSpendLimitsCommand)
      .resolves({ SpendLimits: [{ Name: 'TEXT_MESSAGE_MONTHLY_SPEND_LIMIT', EnforcedLimit: 1, MaxLimit: 100, Overridden: false }] });
    expect(await checkSmsAccount(sms(), on(), { region: REGION })).toMatchObject({
      status: 'warn',
      found: expect.stringContaining("below one client's cap"),
      fix: `aws pinpoint-sms-voice-v2 set-text-message-spend-limit-override --monthly-limit 50 --region ${REGION}`,
    });
    expect(await checkSmsAccount(sms(), on({ smsMonthlyCapUsd: 200 }), NO_TARGET)).toMatchObject({
      status: 'warn',
      fix: expect.stringContaining('ask AWS Support'),
    });
    expect(await checkSmsAccount(sms(), on({ smsMonthlyCapUsd: 1 }), NO_TARGET)).toMatchObject({ status: 'pass' });
  });

  it('warns in the sandbox, and fails on a limit of $0', async () => {
    smsVoice.on(DescribeAccountAttributesCommand).resolves({ AccountAttributes: [{ Name: 'ACCOUNT_TIER', Value: 'BASIC' }] });
    expect(await checkSmsAccount(sms(), on(), NO_TARGET)).toMatchObject({
      status: 'warn',
      found: expect.stringContaining('sandbox: SMS reach only verified destination numbers'),
      fix: expect.stringContaining('create-verified-destination-number'),
    });
    smsVoice
      .on(DescribeSpendLimitsCommand)
      .resolves({ SpendLimits: [{ Name: 'TEXT_MESSAGE_MONTHLY_SPEND_LIMIT', EnforcedLimit: 0, MaxLimit: 0, Overridden: false }] });
    expect(await checkSmsAccount(sms(), on(), NO_TARGET)).toMatchObject({ status: 'fail' });
  });
});
