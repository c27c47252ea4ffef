import { CHECKS, LAMBDA_MIN_UNRESERVED, MIN_BOOTSTRAP_VERSION, type CheckId } from './checks';
import { DEFAULT_TOOLKIT_STACK_NAME } from './options';
import { wrap } from './table';

interface CheckDoc {
  reads: string;
  pass: string;
  warn?: string;
  fail: string;
}

/** Keyed by check, so a check without its documentation does not compile. */
const CHECK_DOCS: Record<CheckId, CheckDoc> = {
  credentials: {
    reads: 'STS GetCallerIdentity, and the region the SDK resolves.',
    pass: 'the account id and region the stack would deploy to.',
    fail: 'no region, or no usable credentials; fix with aws configure --profile <name> or aws sso login --profile <name>.',
  },
  bootstrap: {
    reads: 'CloudFormation DescribeStacks of the toolkit stack (--toolkit-stack-name), its BootstrapVersion output.',
    pass: `BootstrapVersion ${MIN_BOOTSTRAP_VERSION} or later.`,
    fail: `no toolkit stack, or a version below ${MIN_BOOTSTRAP_VERSION}, which the template's CheckBootstrapVersion rule refuses; fix with npx cdk bootstrap aws://<account>/<region>.`,
  },
  senderIdentity: {
    reads: "SESv2 GetEmailIdentity of --sender, else of its domain (the SenderAddress parameter's identity).",
    pass: 'the address or its domain is verified for sending, with DKIM SUCCESS.',
    warn: 'no --sender given (not checked), or verified but DKIM not SUCCESS: publish the DKIM CNAMEs.',
    fail: 'neither the address nor its domain is verified for sending; fix with aws sesv2 create-email-identity --email-identity <domain> and its DKIM CNAMEs.',
  },
  sesAccount: {
    reads: "SESv2 GetAccount: sending enabled, production access, SendQuota's Max24HourSend and MaxSendRate.",
    pass: 'sending enabled, out of the sandbox, and -c sesMaxSendRate within MaxSendRate.',
    warn: 'in the sandbox (only verified recipients, 1 e-mail/s, 200/day: deploy with -c sesMaxSendRate=1), or -c sesMaxSendRate above MaxSendRate.',
    fail: 'sending disabled for the account.',
  },
  lambdaConcurrency: {
    reads: "Lambda GetAccountSettings: the account's concurrent executions and how many are unreserved, against -c apiReservedConcurrency.",
    pass: 'the reservation, if any, leaves Lambda its unreserved minimum, and the account limit is 100 or more.',
    warn: `no reservation, but an account limit below ${LAMBDA_MIN_UNRESERVED} (new accounts have 10): it deploys, but evaluate, deliver and api share it; ask for more with aws service-quotas request-service-quota-increase.`,
    fail: `a reservation that would leave fewer than ${LAMBDA_MIN_UNRESERVED} unreserved, which Lambda refuses; deploy with -c apiReservedConcurrency=0 or ask for a higher limit.`,
  },
  geocoding: {
    reads: 'Amazon Location GeoPlaces Geocode of "Berlin" (one result), only with -c geocoding=true (the default).',
    pass: 'Geocode answers, or geocoding is off.',
    fail: 'access denied (the IAM reason is shown), or places not offered in the region; deploy with -c geocoding=false or pick another region.',
  },
  telegramSecret: {
    reads: "Secrets Manager GetSecretValue of '<stack>/telegram'; its values are never shown.",
    pass: 'not created yet (the stack creates it), or it holds a bot token and a webhook secret.',
    warn: 'the bot token is still the placeholder: put the BotFather token with aws secretsmanager put-secret-value (docs/deploy.md, Telegram).',
    fail: 'not JSON, no webhookSecret, or a botToken not shaped like <digits>:<30 or more letters>.',
  },
  smsIdentity: {
    reads:
      'End User Messaging SMS DescribePools, DescribePhoneNumbers or DescribeSenderIds of -c smsOriginationIdentity, as its ARN names one; only with -c smsCountries.',
    pass: 'SMS off (skipped), or the identity exists in the region, is ACTIVE and takes TRANSACTIONAL messages.',
    warn: 'not ACTIVE yet, not TRANSACTIONAL, or a sender id (one country) with -c smsCountries naming others.',
    fail: 'countries without -c smsOriginationIdentity (the stack leaves SMS off), an identity of another region, or none such in the account.',
  },
  smsAccount: {
    reads:
      'End User Messaging SMS DescribeSpendLimits (TEXT_MESSAGE_MONTHLY_SPEND_LIMIT) and DescribeAccountAttributes (ACCOUNT_TIER); only with -c smsCountries.',
    pass: "SMS off (skipped), or out of the sandbox with a monthly spend limit of at least one client's cap (-c smsMonthlyCapUsd).",
    warn: "the account's limit is below one client's cap (one client could stop every client's SMS for the month; raise it with set-text-message-spend-limit-override or a support case), or the sandbox (verified numbers only).",
    fail: 'a spend limit of $0: every SMS would be refused.',
  },
};

const WIDTH = 100;
const indent = (prefix: string, text: string) =>
  wrap(text, WIDTH - prefix.length).map((line, index) => `${index === 0 ? prefix : ' '.repeat(prefix.length)}${line}`);

function checkSection(id: CheckId): string[] {
  const doc = CHECK_DOCS[id];
  const labelled = (label: string, text: string | undefined) => (text === undefined ? [] : indent(`    ${label.padEnd(6)}`, text));
  return [
    `  ${CHECKS[id]}`,
    ...labelled('reads', doc.reads),
    ...labelled('pass', doc.pass),
    ...labelled('warn', doc.warn),
    ...labelled('fail', doc.fail),
  ];
}

export const USAGE = [
  'Usage: npm run preflight -- [--region R] [--profile P] [--stack NAME] [--sender ADDRESS] [-c key=value ...]',
  '                            [--toolkit-stack-name NAME] [--help]',
  '',
  ...indent(
    '',
    'Read-only checks of an AWS account before the first cdk deploy. Prints one row per check: pass, warn or fail, what was found, and the command that fixes it. Exits 1 when a row fails, else 0 (2 on a bad option).',
  ),
  '',
  'Options:',
  "  --region R                 region to check (default: AWS_REGION or the profile's region)",
  '  --profile P                named profile of the AWS config (default: AWS_PROFILE or the default chain)',
  "  --stack NAME               the stack's name (default: -c stackName, else Fleetwatch)",
  '  --sender ADDRESS           the SenderAddress deploy parameter',
  '  -c, --context key=value    a CDK context value, as cdk deploy -c takes it; repeatable, over cdk.json\'s "context"',
  `  --toolkit-stack-name NAME  the CDK bootstrap stack (default: ${DEFAULT_TOOLKIT_STACK_NAME})`,
  '  -h, --help                 this text',
  '',
  'Checks:',
  ...(Object.keys(CHECKS) as CheckId[]).flatMap(checkSection),
  '',
].join('\n');
