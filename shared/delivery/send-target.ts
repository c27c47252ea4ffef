import type { Channel, SendOutcome } from '../channels/outcome';
import { describeError } from '../channels/outcome';
import { removePushDevice } from '../channels/push/register';
import { signingSecrets } from '../channels/webhook/signing-secrets';
import { webhookMessageId } from '../channels/webhook/standard-signature';
import { logger } from '../observability/logger';
import type { Alert } from '../schemas/alert';
import { severityOf } from '../rules/severity';
import { markTelegramChatInactive } from '../store/telegram-links';
import { disableWebhook } from '../store/webhooks-store';
import type { RenderedNotification } from './render';
import type { ChannelSenders } from './senders';
import type { DeliveryTarget } from './targets';
import { PUSH_ALERT_CATEGORY, withActionLinks, type AcknowledgeAction } from './acknowledge-action';

/** Sending one alert's notification to one target, on its channel; a throw is a passing problem. */
export async function send(
  target: DeliveryTarget,
  notification: RenderedNotification,
  alert: Alert,
  senders: ChannelSenders,
  headers: { name: string; value: string }[],
  webhookBody: () => string,
  now: number,
  action: AcknowledgeAction | null = null,
): Promise<SendOutcome> {
  try {
    switch (target.channel) {
      case 'email': {
        const email = action?.channel === 'email' ? withActionLinks(notification, action.links) : notification;
        return await senders.email({ to: target.address, subject: email.subject, text: email.text, html: email.html, headers });
      }
      case 'telegram':
        return await senders.telegram(target.chatId, {
          html: notification.telegram,
          text: notification.text,
          ...(action?.channel === 'telegram' ? { keyboard: action.keyboard } : {}),
          ...(target.threadId === undefined ? {} : { threadId: target.threadId }),
          ...(target.location && alert.event.latitude !== null && alert.event.longitude !== null
            ? { location: { latitude: alert.event.latitude, longitude: alert.event.longitude } }
            : {}),
        });
      case 'push':
        return await senders.push(target.device, {
          title: notification.subject,
          body: notification.text,
          data: {
            alertId: alert.alertId,
            vehicleId: String(alert.vehicleId),
            ruleId: String(alert.ruleId),
            kind: alert.event.kind,
            severity: severityOf(alert),
          },
          ...(action?.channel === 'push' ? { action: { category: PUSH_ALERT_CATEGORY, label: action.label, url: action.url } } : {}),
        });
      case 'webhook':
        return await senders.webhook({
          url: target.endpoint.url,
          secrets: signingSecrets(target.endpoint, now),
          scheme: target.endpoint.signatureScheme,
          body: webhookBody(),
          idempotencyKey: alert.alertId,
          messageId: webhookMessageId(alert.alertId, target.endpoint.id),
          log: { endpointId: target.endpoint.id, alertId: alert.alertId, event: alert.event.kind },
        });
      case 'sms': {
        // deliver sends SMS through attemptSms (its gates and claim); this is the plain send
        const outcome = await senders.sms({ to: target.phoneNumber, body: notification.subject, context: { alertId: alert.alertId } });
        if (outcome.status === 'sent') return { status: 'sent' };
        if (outcome.status === 'optedOut') return { status: 'failed', error: outcome.error };
        return outcome;
      }
    }
  } catch (error) {
    return { status: 'retry', error: describeError(error) };
  }
}

/** Which target, for a log line: the endpoint or chat id, never an address or URL (they may carry secrets). */
export function targetLabel(target: DeliveryTarget): string {
  switch (target.channel) {
    case 'webhook':
      return `webhook ${target.endpoint.id}`;
    case 'telegram':
      return `telegram chat ${target.chatId}`;
    default:
      return target.channel;
  }
}

/**
 * A chat that blocked the bot is marked inactive; a disabled push endpoint is removed from its user and
 * deleted in SNS, so that the app registering its token again gets a fresh, enabled endpoint; a webhook
 * endpoint that answered 410 is disabled (it stays listed, with the reason, until its client deletes it).
 */
export async function forgetTarget(target: DeliveryTarget, reason: string, now: number): Promise<void> {
  try {
    if (target.channel === 'webhook') await disableWebhook(target.endpoint.parentId, target.endpoint.id, reason, now);
    if (!target.userId) return;
    if (target.channel === 'telegram') await markTelegramChatInactive(target.userId, target.chatId);
    if (target.channel === 'push') await removePushDevice(target.userId, target.device.endpointArn, { deleteEndpoint: true });
  } catch (error) {
    logger.warn('could not forget a dead target', { channel: target.channel as Channel, error: describeError(error) });
  }
}
