import {
  DescribeAccountAttributesCommand,
  DescribePhoneNumbersCommand,
  DescribePoolsCommand,
  DescribeSenderIdsCommand,
  DescribeSpendLimitsCommand,
  type PinpointSMSVoiceV2Client,
} from '@aws-sdk/client-pinpoint-sms-voice-v2';
import type { StackContext } from '../context';
import { CHECKS, type CallerIdentity } from './checks';
import { awsCommand, type AwsTarget } from './clients';
import { errorName, errorText, unexpectedFailure } from './errors';
import { rowOf, type Finding, type Row } from './row';

const SMS_OFF = 'skipped: SMS off (no -c smsCountries)';

/** What the stack's SMS settings say; SMS is off without countries. */
export type SmsContext = Pick<StackContext, 'smsCountries' | 'smsOriginationIdentity' | 'smsMonthlyCapUsd'>;

/** `arn:aws:sms-voice:<region>:<account>:<type>/<id>`, a sender id's ending in `/<country>`. */
const IDENTITY_ARN = /^arn:aws[a-z-]*:sms-voice:([a-z0-9-]+):\d{12}:(phone-number|pool|sender-id)\/(.+)$/;

function countriesOf(context: SmsContext): string[] {
  return context.smsCountries
    .split(',')
    .map((code) => code.trim().toUpperCase())
    .filter(Boolean);
}

interface IdentityState {
  found: string;
  status?: string;
  messageType?: string;
}

async function describeIdentity(sms: PinpointSMSVoiceV2Client, kind: string, arn: string, id: string): Promise<IdentityState> {
  if (kind === 'pool') {
    const { Pools = [] } = await sms.send(new DescribePoolsCommand({ PoolIds: [arn] }));
    const pool = Pools[0];
    return { found: `pool ${pool?.PoolId ?? id}`, status: pool?.Status, messageType: pool?.MessageType };
  }
  if (kind === 'phone-number') {
    const { PhoneNumbers = [] } = await sms.send(new DescribePhoneNumbersCommand({ PhoneNumberIds: [arn] }));
    const number = PhoneNumbers[0];
    return {
      found: `phone number ${number?.PhoneNumber ?? id} (${number?.NumberType ?? '?'})`,
      status: number?.Status,
      messageType: number?.MessageType,
    };
  }
  const [senderId = id, country = ''] = id.split('/');
  const { SenderIds = [] } = await sms.send(new DescribeSenderIdsCommand({ SenderIds: [{ SenderId: arn, IsoCountryCode: country }] }));
  const sender = SenderIds[0];
  return {
    found: `sender id ${sender?.SenderId ?? senderId} for ${sender?.IsoCountryCode ?? country}${sender?.Registered === false ? ', not registered' : ''}`,
    status: sender ? 'ACTIVE' : undefined,
    messageType: sender?.MessageTypes?.includes('TRANSACTIONAL') ? 'TRANSACTIONAL' : sender?.MessageTypes?.[0],
  };
}

/**
 * The identity SMS are sent from (-c smsOriginationIdentity): it must exist in the region the stack deploys to, be
 * active, and take transactional messages (alerts and codes are sent as TRANSACTIONAL); a sender id serves one country.
 */
export async function checkSmsIdentity(
  sms: PinpointSMSVoiceV2Client,
  context: SmsContext,
  identity: CallerIdentity,
  target: AwsTarget,
): Promise<Row> {
  const check = CHECKS.smsIdentity;
  const countries = countriesOf(context);
  if (countries.length === 0) return { check, status: 'pass', found: SMS_OFF };
  const create = `create a pool or phone number in the End User Messaging SMS console (or ${awsCommand(target, 'pinpoint-sms-voice-v2 request-phone-number ...')}), then deploy with -c smsOriginationIdentity=<its ARN> (docs/deploy.md, SMS)`;
  const parsed = IDENTITY_ARN.exec(context.smsOriginationIdentity);
  if (!parsed) {
    return {
      check,
      status: 'fail',
      found: `-c smsCountries=${context.smsCountries} without -c smsOriginationIdentity: the stack leaves SMS off`,
      fix: create,
    };
  }
  const [arn, region, kind, id] = parsed as unknown as [string, string, string, string];
  if (identity.region && region !== identity.region) {
    return {
      check,
      status: 'fail',
      found: `${arn} is in ${region}; the stack deploys to ${identity.region}, whose SMS cannot send from it`,
      fix: create,
    };
  }
  try {
    const state = await describeIdentity(sms, kind, arn, id);
    if (state.status === undefined) return { check, status: 'fail', found: `no ${kind} ${id} in ${region}`, fix: create };
    const findings: [Finding, ...Finding[]] = [{ status: 'pass', found: `${state.found}, ${state.status}` }];
    if (state.status !== 'ACTIVE') findings.push({ status: 'warn', found: `not active yet (${state.status}): sends fail until it is` });
    if (state.messageType !== 'TRANSACTIONAL') {
      findings.push({
        status: 'warn',
        found: `message type ${state.messageType ?? 'unknown'}: fleetwatch sends TRANSACTIONAL, which a promotional identity may not carry`,
        fix: 'use a pool or number of message type TRANSACTIONAL',
      });
    }
    const senderCountry = kind === 'sender-id' ? id.split('/')[1] : undefined;
    const others = senderCountry ? countries.filter((country) => country !== senderCountry) : [];
    if (others.length > 0) {
      findings.push({
        status: 'warn',
        found: `a sender id serves ${senderCountry} only; SMS to ${others.join(', ')} would be refused`,
        fix: `deploy with -c smsCountries=${senderCountry}, or use a pool holding an identity for each country`,
      });
    }
    return rowOf(check, findings);
  } catch (error) {
    if (errorName(error) === 'ResourceNotFoundException')
      return { check, status: 'fail', found: `no ${kind} ${id} in ${region}: ${errorText(error)}`, fix: create };
    const action = kind === 'pool' ? 'DescribePools' : kind === 'phone-number' ? 'DescribePhoneNumbers' : 'DescribeSenderIds';
    return unexpectedFailure(check, `sms-voice:${action}`, error);
  }
}

/**
 * The account's side of SMS. Its monthly spend limit (TEXT_MESSAGE_MONTHLY_SPEND_LIMIT, in US dollars) is shared by
 * every client, and past it the service refuses every SMS until the month ends; the rule is to warn when it is below
 * one client's cap (-c smsMonthlyCapUsd), since then a single client can stop SMS for all the others. A new account's
 * limit is $1. The account tier (ACCOUNT_TIER) other than PRODUCTION is the sandbox: SMS reach verified numbers only.
 */
export async function checkSmsAccount(sms: PinpointSMSVoiceV2Client, context: SmsContext, target: AwsTarget): Promise<Row> {
  const check = CHECKS.smsAccount;
  if (countriesOf(context).length === 0) return { check, status: 'pass', found: SMS_OFF };
  const cap = context.smsMonthlyCapUsd;
  try {
    const { SpendLimits = [] } = await sms.send(new DescribeSpendLimitsCommand({}));
    const limit = SpendLimits.find((each) => each.Name === 'TEXT_MESSAGE_MONTHLY_SPEND_LIMIT');
    const { AccountAttributes = [] } = await sms.send(new DescribeAccountAttributesCommand({}));
    const tier = AccountAttributes.find((each) => each.Name === 'ACCOUNT_TIER')?.Value;
    const enforced = limit?.EnforcedLimit;
    const findings: [Finding, ...Finding[]] = [
      {
        status: 'pass',
        found: `monthly SMS spend limit $${enforced ?? '?'} for the account, $${cap} per client (-c smsMonthlyCapUsd); tier ${tier ?? 'unknown'}`,
      },
    ];
    if (enforced === undefined || enforced <= 0) {
      findings.push({
        status: 'fail',
        found: 'no monthly SMS spend to spend: every SMS would be refused',
        fix: 'ask AWS Support for an SMS spend limit increase (docs/deploy.md, SMS)',
      });
    } else if (enforced < cap) {
      const override = limit?.MaxLimit !== undefined && cap <= limit.MaxLimit;
      findings.push({
        status: 'warn',
        found: `the account's limit is below one client's cap: a single client can use it up and stop every client's SMS until the month ends`,
        fix: override
          ? awsCommand(target, `pinpoint-sms-voice-v2 set-text-message-spend-limit-override --monthly-limit ${Math.ceil(cap)}`)
          : `ask AWS Support for an SMS spend limit increase, or deploy with -c smsMonthlyCapUsd=${enforced} (docs/deploy.md, SMS)`,
      });
    }
    if (tier !== 'PRODUCTION') {
      findings.push({
        status: 'warn',
        found: 'sandbox: SMS reach only verified destination numbers',
        fix: `verify test numbers (${awsCommand(target, 'pinpoint-sms-voice-v2 create-verified-destination-number --destination-phone-number <+number>')}) and ask to leave the sandbox in the End User Messaging SMS console (docs/deploy.md, SMS)`,
      });
    }
    return rowOf(check, findings);
  } catch (error) {
    return unexpectedFailure(check, 'sms-voice:DescribeSpendLimits / DescribeAccountAttributes', error);
  }
}
