import { DescribeStacksCommand, type CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { GeocodeCommand, type GeoPlacesClient } from '@aws-sdk/client-geo-places';
import { GetAccountSettingsCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetAccountCommand, GetEmailIdentityCommand, type GetEmailIdentityCommandOutput, type SESv2Client } from '@aws-sdk/client-sesv2';
import { GetCallerIdentityCommand, type STSClient } from '@aws-sdk/client-sts';
import { BOT_TOKEN_PLACEHOLDER } from '../constructs/telegram-secret';
import { telegramSecretName } from '../stack-facts';
import { awsCommand, type AwsTarget } from './clients';
import { errorCode, errorName, errorText, isAccessDenied, unexpectedFailure } from './errors';
import { rowOf, type Finding, type Row } from './row';
import { DEFAULT_TOOLKIT_STACK_NAME } from './options';

/** The checks, in the order of the table; `--help` documents each by its key. */
export const CHECKS = {
  credentials: 'Credentials',
  bootstrap: 'CDK bootstrap',
  senderIdentity: 'SES sender identity',
  sesAccount: 'SES account',
  lambdaConcurrency: 'Lambda concurrency',
  geocoding: 'Amazon Location',
  telegramSecret: 'Telegram secret',
  smsIdentity: 'SMS origination identity',
  smsAccount: 'SMS account',
} as const;
export type CheckId = keyof typeof CHECKS;

/** The synthesized template's CheckBootstrapVersion rule refuses bootstrap versions 1 to 5. */
export const MIN_BOOTSTRAP_VERSION = 6;
/** Lambda refuses a reserved concurrency that leaves an account fewer than this many unreserved executions. */
export const LAMBDA_MIN_UNRESERVED = 100;
/** The service-quotas code of Lambda's "Concurrent executions" quota. */
const LAMBDA_CONCURRENCY_QUOTA = 'L-B99A9384';
const BOT_TOKEN_SHAPE = /^\d+:[A-Za-z0-9_-]{30,}$/;

/** The account and region the credentials reach, as far as they could be read. */
export interface CallerIdentity {
  account?: string;
  region?: string;
}

async function resolvedRegion(sts: STSClient): Promise<string | undefined> {
  try {
    return await sts.config.region();
  } catch {
    return undefined;
  }
}

export async function checkCredentials(sts: STSClient, target: AwsTarget): Promise<{ row: Row; identity: CallerIdentity }> {
  const check = CHECKS.credentials;
  const region = await resolvedRegion(sts);
  const profile = target.profile ?? 'fleetwatch';
  if (region === undefined) {
    return {
      row: {
        check,
        status: 'fail',
        found: 'no region: neither --region, AWS_REGION nor the profile names one',
        fix: `pass --region <region>, or aws configure set region <region> --profile ${profile}`,
      },
      identity: {},
    };
  }
  try {
    const { Account, Arn } = await sts.send(new GetCallerIdentityCommand({}));
    return {
      row: { check, status: 'pass', found: `account ${Account ?? '?'} (${Arn ?? 'unknown caller'}), region ${region}` },
      identity: { ...(Account ? { account: Account } : {}), region },
    };
  } catch (error) {
    return {
      row: {
        check,
        status: 'fail',
        found: `no usable credentials in ${region}: ${errorText(error)}`,
        fix: `aws configure --profile ${profile} (or aws sso login --profile ${profile}), then npm run preflight -- --profile ${profile}`,
      },
      identity: { region },
    };
  }
}

export async function checkBootstrap(
  cloudFormation: CloudFormationClient,
  toolkitStackName: string,
  identity: CallerIdentity,
  target: AwsTarget,
): Promise<Row> {
  const check = CHECKS.bootstrap;
  const where = identity.region ?? target.region ?? '<region>';
  const fix = [
    `npx cdk bootstrap aws://${identity.account ?? '<account>'}/${where}`,
    toolkitStackName !== DEFAULT_TOOLKIT_STACK_NAME ? ` --toolkit-stack-name ${toolkitStackName}` : '',
    target.profile ? ` --profile ${target.profile}` : '',
  ].join('');
  try {
    const { Stacks = [] } = await cloudFormation.send(new DescribeStacksCommand({ StackName: toolkitStackName }));
    const stack = Stacks[0];
    if (!stack) return { check, status: 'fail', found: `no ${toolkitStackName} stack in ${where}: not bootstrapped`, fix };
    const output = stack.Outputs?.find((candidate) => candidate.OutputKey === 'BootstrapVersion')?.OutputValue;
    const version = Number(output);
    if (output === undefined || !Number.isInteger(version)) {
      return { check, status: 'fail', found: `${toolkitStackName} (${stack.StackStatus}) has no BootstrapVersion output`, fix };
    }
    if (version < MIN_BOOTSTRAP_VERSION) {
      return {
        check,
        status: 'fail',
        found: `${toolkitStackName} BootstrapVersion ${version}: the template's CheckBootstrapVersion rule needs ${MIN_BOOTSTRAP_VERSION} or later`,
        fix,
      };
    }
    return { check, status: 'pass', found: `${toolkitStackName} BootstrapVersion ${version} (${stack.StackStatus})` };
  } catch (error) {
    if (errorName(error) === 'ValidationError' && /does not exist/i.test(errorText(error))) {
      return { check, status: 'fail', found: `no ${toolkitStackName} stack in ${where}: not bootstrapped`, fix };
    }
    return unexpectedFailure(check, 'cloudformation:DescribeStacks', error);
  }
}

async function emailIdentity(sesv2: SESv2Client, identity: string): Promise<GetEmailIdentityCommandOutput | undefined> {
  try {
    return await sesv2.send(new GetEmailIdentityCommand({ EmailIdentity: identity }));
  } catch (error) {
    if (errorName(error) === 'NotFoundException') return undefined;
    throw error;
  }
}

function identityState(name: string, identity: GetEmailIdentityCommandOutput | undefined): string {
  return identity ? `${name} not verified for sending (${identity.VerificationStatus ?? 'no status'})` : `no identity ${name}`;
}

export async function checkSenderIdentity(sesv2: SESv2Client, sender: string | undefined, target: AwsTarget): Promise<Row> {
  const check = CHECKS.senderIdentity;
  if (sender === undefined) {
    return {
      check,
      status: 'warn',
      found: 'not checked: no --sender given',
      fix: 'pass --sender <the SenderAddress you will deploy with>, e.g. npm run preflight -- --sender alerts@fleet.example',
    };
  }
  const domain = sender.slice(sender.lastIndexOf('@') + 1);
  const dkimRecords = `publish one CNAME per token of ${awsCommand(target, `sesv2 get-email-identity --email-identity ${domain} --query DkimAttributes.Tokens`)}: <token>._domainkey.${domain} -> <token>.dkim.amazonses.com`;
  try {
    const address = await emailIdentity(sesv2, sender);
    const verified = address?.VerifiedForSendingStatus
      ? { name: sender, identity: address }
      : await emailIdentity(sesv2, domain).then((found) =>
          found?.VerifiedForSendingStatus ? { name: domain, identity: found } : { name: undefined, identity: found },
        );
    if (verified.name === undefined) {
      return {
        check,
        status: 'fail',
        found: `${identityState(sender, address)}; ${identityState(domain, verified.identity)}`,
        fix: `${awsCommand(target, `sesv2 create-email-identity --email-identity ${domain}`)}, then ${dkimRecords}`,
      };
    }
    const dkim = verified.identity.DkimAttributes?.Status;
    if (dkim !== 'SUCCESS') {
      const fix =
        verified.name === domain
          ? dkimRecords
          : `${awsCommand(target, `sesv2 create-email-identity --email-identity ${domain}`)}, then ${dkimRecords}`;
      return { check, status: 'warn', found: `${verified.name} verified for sending; DKIM ${dkim ?? 'not set up'}`, fix };
    }
    return { check, status: 'pass', found: `${verified.name} verified for sending, DKIM SUCCESS` };
  } catch (error) {
    return unexpectedFailure(check, 'ses:GetEmailIdentity', error);
  }
}

export async function checkSesAccount(sesv2: SESv2Client, sesMaxSendRate: number, target: AwsTarget): Promise<Row> {
  const check = CHECKS.sesAccount;
  try {
    const account = await sesv2.send(new GetAccountCommand({}));
    const rate = account.SendQuota?.MaxSendRate;
    const findings: [Finding, ...Finding[]] = [
      { status: 'pass', found: `quota ${account.SendQuota?.Max24HourSend ?? '?'} e-mails/24 h, ${rate ?? '?'} e-mails/s` },
    ];
    if (!account.SendingEnabled) {
      findings.push({
        status: 'fail',
        found: `sending disabled (enforcement status ${account.EnforcementStatus ?? 'unknown'})`,
        fix: `${awsCommand(target, 'sesv2 put-account-sending-attributes --sending-enabled')} (if AWS paused it, answer its case in the SES console's Account dashboard)`,
      });
    }
    if (!account.ProductionAccessEnabled) {
      findings.push({
        status: 'warn',
        found: 'sandbox: only verified recipients, 1 e-mail/s, 200/day',
        fix: `deploy with -c sesMaxSendRate=1, verify each recipient (${awsCommand(target, 'sesv2 create-email-identity --email-identity <recipient>')}), and ask for production access (docs/deploy.md, The SES sandbox)`,
      });
    }
    if (rate !== undefined && sesMaxSendRate > rate) {
      findings.push({
        status: 'warn',
        found: `-c sesMaxSendRate=${sesMaxSendRate} is above the account's MaxSendRate ${rate}`,
        fix: `deploy with -c sesMaxSendRate=${rate}`,
      });
    }
    return rowOf(check, findings);
  } catch (error) {
    return unexpectedFailure(check, 'ses:GetAccount', error);
  }
}

export async function checkLambdaConcurrency(lambda: LambdaClient, apiReservedConcurrency: number, target: AwsTarget): Promise<Row> {
  const check = CHECKS.lambdaConcurrency;
  try {
    const { AccountLimit } = await lambda.send(new GetAccountSettingsCommand({}));
    const limit = AccountLimit?.ConcurrentExecutions;
    const unreserved = AccountLimit?.UnreservedConcurrentExecutions;
    if (limit === undefined || unreserved === undefined) {
      return { check, status: 'fail', found: 'GetAccountSettings answered no AccountLimit' };
    }
    const found = `account limit ${limit}, unreserved ${unreserved}, -c apiReservedConcurrency=${apiReservedConcurrency}`;
    const reservedElsewhere = limit - unreserved;
    const desired = Math.max(1000, reservedElsewhere + apiReservedConcurrency + LAMBDA_MIN_UNRESERVED);
    const raise = awsCommand(
      target,
      `service-quotas request-service-quota-increase --service-code lambda --quota-code ${LAMBDA_CONCURRENCY_QUOTA} --desired-value ${desired}`,
    );
    if (apiReservedConcurrency > 0 && unreserved - apiReservedConcurrency < LAMBDA_MIN_UNRESERVED) {
      return {
        check,
        status: 'fail',
        found: `${found}: the reservation would leave ${unreserved - apiReservedConcurrency} unreserved, Lambda keeps at least ${LAMBDA_MIN_UNRESERVED}`,
        fix: `deploy with -c apiReservedConcurrency=0, or ask for a higher limit: ${raise}`,
      };
    }
    if (apiReservedConcurrency === 0 && limit < LAMBDA_MIN_UNRESERVED) {
      return {
        check,
        status: 'warn',
        found: `${found}: it deploys, but evaluate, deliver and api share ${limit} concurrent executions`,
        fix: raise,
      };
    }
    return { check, status: 'pass', found };
  } catch (error) {
    return unexpectedFailure(check, 'lambda:GetAccountSettings', error);
  }
}

/** No endpoint answers for the region: Amazon Location's places API is not offered there. */
function isEndpointError(error: unknown): boolean {
  return ['EndpointError', 'UnknownEndpoint'].includes(errorName(error)) || errorCode(error) === 'ENOTFOUND';
}

export async function checkGeocoding(geoPlaces: GeoPlacesClient, geocoding: boolean, identity: CallerIdentity): Promise<Row> {
  const check = CHECKS.geocoding;
  if (!geocoding) return { check, status: 'pass', found: 'off (-c geocoding=false): address rules need coordinates' };
  const region = identity.region ?? '<region>';
  try {
    const { ResultItems = [] } = await geoPlaces.send(new GeocodeCommand({ QueryText: 'Berlin', MaxResults: 1 }));
    const results = `${ResultItems.length} result${ResultItems.length === 1 ? '' : 's'}`;
    return { check, status: 'pass', found: `geo-places:Geocode answers in ${region} (${results} for "Berlin")` };
  } catch (error) {
    if (isEndpointError(error)) {
      return {
        check,
        status: 'fail',
        found: `not offered in ${region}: ${errorText(error)}`,
        fix: 'deploy with -c geocoding=false, or pick a region that offers Amazon Location places (--region eu-central-1)',
      };
    }
    if (isAccessDenied(error)) {
      return {
        check,
        status: 'fail',
        found: `geo-places:Geocode denied: ${errorText(error)}`,
        fix: 'allow geo-places:Geocode to these credentials (or lift the SCP that denies it), or deploy with -c geocoding=false',
      };
    }
    return unexpectedFailure(check, 'geo-places:Geocode', error);
  }
}

/** The command of docs/deploy.md §Telegram that stores the bot token, with placeholders for both values. */
function putSecretCommand(target: AwsTarget, name: string, webhookSecret: string): string {
  const value = JSON.stringify({ botToken: '<token from BotFather>', webhookSecret });
  return `${awsCommand(target, `secretsmanager put-secret-value --secret-id ${name} --secret-string '${value}'`)} (docs/deploy.md, Telegram)`;
}

/** What the secret holds, as far as can be said without ever showing a value. */
function telegramSecretFindings(secretString: string | undefined, name: string, target: AwsTarget): [Finding, ...Finding[]] {
  const putSecret = putSecretCommand(target, name, '<its current webhookSecret>');
  if (secretString === undefined) return [{ status: 'fail', found: `${name} holds no SecretString`, fix: putSecret }];
  let value: unknown;
  try {
    value = JSON.parse(secretString);
  } catch {
    // never the parser's message: it quotes the secret
    return [{ status: 'fail', found: `${name} is not JSON`, fix: putSecret }];
  }
  const { botToken, webhookSecret } = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const findings: Finding[] = [];
  if (typeof webhookSecret !== 'string' || webhookSecret === '') {
    findings.push({
      status: 'fail',
      found: 'no webhookSecret',
      fix: `${putSecretCommand(target, name, '<64 letters and digits>')}, then register the webhook again`,
    });
  }
  if (botToken === BOT_TOKEN_PLACEHOLDER) {
    findings.push({ status: 'warn', found: 'botToken is still the placeholder the stack stores', fix: putSecret });
  } else if (typeof botToken !== 'string' || !BOT_TOKEN_SHAPE.test(botToken)) {
    findings.push({ status: 'fail', found: 'botToken is not shaped like a bot token (<digits>:<30 or more letters>)', fix: putSecret });
  }
  const [first, ...rest] = findings;
  return first ? [first, ...rest] : [{ status: 'pass', found: `${name} holds a bot token and a webhook secret` }];
}

export async function checkTelegramSecret(secretsManager: SecretsManagerClient, stack: string, target: AwsTarget): Promise<Row> {
  const check = CHECKS.telegramSecret;
  const name = telegramSecretName(stack);
  try {
    const { SecretString } = await secretsManager.send(new GetSecretValueCommand({ SecretId: name }));
    return rowOf(check, telegramSecretFindings(SecretString, name, target));
  } catch (error) {
    if (errorName(error) === 'ResourceNotFoundException') {
      return {
        check,
        status: 'pass',
        found: `${name} not created yet: the stack creates it; put the bot token after deploying (docs/deploy.md, Telegram)`,
      };
    }
    return unexpectedFailure(check, 'secretsmanager:GetSecretValue', error);
  }
}
