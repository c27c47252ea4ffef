import type { SendOutcome } from '../channels/outcome';
import { countSegments } from '../channels/sms/segments';
import { fitSmsText } from '../channels/sms/sms-text';
import { smsConfig } from '../config';
import type { Alert, DeliveryStatus, SmsDelivery } from '../schemas/alert';
import { SEVERITIES, type Severity } from '../schemas/severity';
import { isSmsOptedOut, markSmsOptedOut } from '../store/sms-opt-outs';
import { refundSmsSpend, takeSmsSpend } from '../store/sms-spend';
import { MetricName, MetricUnit, metrics } from '../observability/metrics';
import { capReached } from './sms-cap-notice';
import type { ChannelSenders } from './senders';
import { isBelow, severityOf } from './severity';
import { drawSmsAlertLink, storeSmsAlertLink } from './sms-alert-link';
import { claimSmsSend, releaseSmsSend } from '../store/sms-send-claim';
import type { SmsTarget } from './targets';

/** By default only critical alerts go by SMS (`settings.smsMinSeverity`). */
export const DEFAULT_SMS_MIN_SEVERITY: Severity = 'critical';

/** The rule's `settings.smsMinSeverity`, or the default. */
export function smsMinSeverityOf(settings: Readonly<Record<string, string>>): Severity {
  const value = settings.smsMinSeverity;
  return (SEVERITIES as readonly string[]).includes(value ?? '') ? (value as Severity) : DEFAULT_SMS_MIN_SEVERITY;
}

/**
 * What one SMS target's attempt came to: `settled` when a gate decided it without a send the regular path would
 * judge (below the rule's least severity, a country off the allow-list, an opted-out number, an SMS an earlier
 * attempt may have sent already, a refusal as opted out), else the send's outcome with the SMS's segments.
 */
export type SmsStep = { kind: 'settled'; status: DeliveryStatus } | { kind: 'sent'; outcome: SendOutcome; sms: SmsDelivery };

export interface SmsAttempt {
  alert: Alert;
  clientId: string;
  minSeverity: Severity;
  subject: string;
  attempts: number;
  senders: ChannelSenders;
  now: number;
}

export async function attemptSms(target: SmsTarget, attempt: SmsAttempt): Promise<SmsStep> {
  const { alert, clientId, now } = attempt;
  const at = new Date(now).toISOString();
  const link = drawSmsAlertLink();
  const body = fitSmsText(attempt.subject, link.url);
  const segments = countSegments(body).segments;
  const settled = (status: DeliveryStatus['status'], error: string, outcome?: SmsDelivery['outcome']): SmsStep => ({
    kind: 'settled',
    status: { status, at, attempts: attempt.attempts, error, sms: { segments, ...(outcome ? { outcome } : {}) } },
  });
  if (isBelow(severityOf(alert), attempt.minSeverity))
    return settled('skipped', `the alert is ${severityOf(alert)}, below the rule's smsMinSeverity (${attempt.minSeverity})`);
  // libphonenumber-js and its numbering plan (a file beside the bundle) load with a container's first SMS, not at
  // every cold start of the deliver function
  const { isCountryAllowed } = await import('../schemas/phone-plan');
  const { segmentPrices, smsCostMicroUsd } = await import('../channels/sms/prices');
  if (!isCountryAllowed(target.phoneNumber, smsConfig().SMS_COUNTRIES))
    return settled('skipped', "the number's country is not one this installation sends SMS to", 'countryNotAllowed');
  if (await isSmsOptedOut(clientId, target.phoneNumber)) return settled('skipped', 'the number opted out of SMS (it replied STOP)', 'optedOut');
  if (!(await claimSmsSend(alert.alertId, target.key, now)))
    return settled('sent', 'an earlier attempt sent it, or may have before it stopped: an SMS is never sent twice');
  const config = smsConfig();
  const cost = smsCostMicroUsd(target.phoneNumber, segments, segmentPrices(config.SMS_PRICES));
  if (!(await takeSmsSpend(clientId, cost, Math.round(config.SMS_MONTHLY_CAP_USD * 1_000_000), now))) {
    await capReached(clientId, config.SMS_MONTHLY_CAP_USD, attempt.senders, now);
    return settled('skipped', `the client's monthly SMS spend cap ($${config.SMS_MONTHLY_CAP_USD}) is reached`, 'capReached');
  }
  // a UCS-2 text (ru, az) with a long API host has no room for the link: fitSmsText left it out, so nothing to store
  if (body.includes(link.url)) {
    try {
      await storeSmsAlertLink(link, alert, target, now);
    } catch (error) {
      // nothing was sent: give back what the gates took, so that the retry sends it
      await refundSmsSpend(clientId, cost, now);
      await releaseSmsSend(alert.alertId, target.key);
      throw error;
    }
  }
  const outcome = await attempt.senders.sms({ to: target.phoneNumber, body, context: { alertId: alert.alertId } });
  if (outcome.status !== 'sent') await refundSmsSpend(clientId, cost, now);
  switch (outcome.status) {
    case 'sent':
      metrics.addMetric(MetricName.SmsSent, MetricUnit.Count, 1);
      metrics.addMetric(MetricName.SmsSpendMicroUsd, MetricUnit.Count, cost);
      return { kind: 'sent', outcome: { status: 'sent' }, sms: { segments, messageId: outcome.messageId } };
    case 'optedOut':
      await markSmsOptedOut(clientId, target.phoneNumber, outcome.error, now);
      return {
        kind: 'settled',
        status: { status: 'failed', at, attempts: attempt.attempts + 1, error: outcome.error, sms: { segments, outcome: 'optedOut' } },
      };
    case 'failed':
      return { kind: 'sent', outcome, sms: { segments } };
    case 'retry':
      await releaseSmsSend(alert.alertId, target.key);
      return { kind: 'sent', outcome, sms: { segments } };
  }
}
