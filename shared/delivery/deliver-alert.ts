import type { Channel, SendOutcome } from '../channels/outcome';
import { describeError } from '../channels/outcome';
import { removePushDevice } from '../channels/push/register';
import { webhookPayload } from '../channels/webhook/payload';
import { logger } from '../observability/logger';
import type { Alert, DeliveryStatus } from '../schemas/alert';
import type { Language } from '../schemas/directory';
import type { StoredRule } from '../schemas/notification';
import { markTelegramChatInactive } from '../store/telegram-links';
import { disableWebhook } from '../store/webhooks-store';
import { claimAlert, finishAlert, parkAlert, recordDelivery, recordRetry, releaseAlert, scheduleRetry, type RetryRecord } from './alert-store';
import type { DeliveryStats } from './delivery-stats';
import { ClientTree } from './client-tree';
import { listUnsubscribeHeaders } from './links';
import { loadRule, loadUsers, loadVehicle } from './recipients';
import { lookUpScope } from './scope-facts';
import { unsubscribeToken } from '../store/email-consent';
import { renderNotification, type RenderedNotification } from './render';
import type { ChannelSenders } from './senders';
import { webhookRetryDelaySeconds } from './retry-backoff';
import { planDelivery, type DeliveryTarget } from './targets';
import { buildTemplateData } from './template-data';
import { holdUntilConfirmed, settleHeldTargets } from './consent-hold';

/** How long one invocation holds an alert; longer than the deliver function's timeout. */
export const DELIVERY_LEASE_MS = 5 * 60_000;
/** Targets sent to at the same time, within one alert. */
const PARALLEL_SENDS = 4;

export interface DeliverOptions {
  senders: ChannelSenders;
  stats: DeliveryStats;
  /** The queue message's id: the one message that may carry the alert's next attempt (see scheduleRetry). */
  messageId: string;
  /** How many times the queue has handed out this message (ApproximateReceiveCount). */
  receiveCount: number;
  /**
   * The queue's maxReceiveCount, also the most attempts one target gets: on the last receive, or the target's
   * last attempt, a target still failing for a passing reason is given up on for now: the alert is parked and
   * its request goes to the DLQ with the reason.
   */
  maxReceiveCount: number;
  now?: () => number;
}

/**
 * - done: the alert is settled (or there is nothing to do: missing, already finished);
 * - retry: some target hit a passing problem, or another invocation holds the alert; try again later;
 * - dead-letter: the last receive, and some target still hits a passing problem: the alert is parked (out of
 *   the outbox, unsent targets open) and the request belongs on the DLQ with `reason`, to be redriven.
 * A retry may name `delaySeconds`: the backoff before the next receive (webhooks back off exponentially);
 * without it the queue's visibility timeout applies.
 */
export type DeliverResult =
  | { result: 'done' }
  | { result: 'retry'; reason: string; delaySeconds?: number }
  | { result: 'dead-letter'; reason: string };

/** Settled entries of the `deliveries` map are never sent again; a `held` one still waits. */
function isSettled(status: DeliveryStatus | undefined): boolean {
  return status !== undefined && status.status !== 'held';
}

export async function deliverAlert(alertId: string, options: DeliverOptions): Promise<DeliverResult> {
  const now = options.now ?? Date.now;
  const claim = await claimAlert(alertId, now(), DELIVERY_LEASE_MS, options.messageId);
  switch (claim.outcome) {
    case 'missing':
      logger.warn('alert not found; nothing to deliver', { alertId });
      return { result: 'done' };
    case 'finished':
      return { result: 'done' };
    case 'busy':
      return { result: 'retry', reason: 'another invocation is delivering this alert' };
    case 'duplicate':
      logger.info('second copy of a delivery request dropped: the alert already has a retry waiting on the queue', {
        alertId,
        nextAttemptAt: new Date(claim.nextAttemptAt).toISOString(),
      });
      return { result: 'done' };
    case 'invalid':
      logger.error('alert item does not match its schema', { alertId, error: claim.error });
      await finishAlert(alertId, 'failed', now(), `invalid alert item: ${claim.error}`);
      return { result: 'done' };
  }
  const { alert, retries } = claim.claimed;
  try {
    return await deliverClaimed(alert, retries, options, now);
  } catch (error) {
    await releaseAlert(alertId).catch(() => undefined);
    throw error;
  }
}

async function deliverClaimed(
  alert: Alert,
  retries: Record<string, RetryRecord>,
  options: DeliverOptions,
  now: () => number,
): Promise<DeliverResult> {
  const rule = await loadRule(alert.ruleId);
  if (!rule) {
    await finishAlert(alert.alertId, 'failed', now(), `rule ${alert.ruleId} no longer exists`);
    return { result: 'done' };
  }
  // alerts reach only the vehicle's owners: the rule's client or a client below it
  const tree = new ClientTree();
  const vehicle = await loadVehicle(alert.vehicleId);
  if (!vehicle || !(await tree.isWithin(vehicle.parentId, rule.parentId))) {
    await finishAlert(alert.alertId, 'failed', now(), `vehicle ${alert.vehicleId} does not belong to the client of rule ${rule.id}`);
    return { result: 'done' };
  }
  const users = await loadUsers(rule.userId ? [...rule.recipientIds, rule.userId] : rule.recipientIds);
  const ownerLanguage = users.find((user) => user.id === rule.userId)?.language;
  const scope = await lookUpScope(rule, users, tree, options.senders, now());
  const plan = planDelivery(rule, users, ownerLanguage, scope.facts);
  const statuses: Record<string, DeliveryStatus> = { ...alert.deliveries };

  for (const skipped of plan.skipped) {
    if (isSettled(statuses[skipped.key])) continue;
    const status: DeliveryStatus = { status: 'skipped', at: new Date(now()).toISOString(), attempts: 0, error: skipped.reason };
    await recordDelivery(alert.alertId, skipped.key, status);
    statuses[skipped.key] = status;
  }
  const held = await settleHeldTargets(alert, rule.parentId, plan, statuses, now());

  const open = plan.targets.filter((target) => !isSettled(statuses[target.key]));
  const renderer = open.length ? notificationRenderer(alert, rule, vehicle.name) : undefined;
  const unsubscribeHeaders = async (address: string) => {
    const key = address.trim().toLowerCase();
    return listUnsubscribeHeaders(scope.unsubscribeTokens.get(key) ?? (await unsubscribeToken(rule.id, key)));
  };
  const retryReasons: string[] = [];
  // per retrying target: its own backoff, or undefined for the queue's visibility timeout
  const retryDelays: (number | undefined)[] = [];
  const givenUp: string[] = [];
  let webhookBody: string | undefined;
  const bodyForWebhooks = () => (webhookBody ??= JSON.stringify(webhookPayload(alert, vehicle.name)));
  await forEachLimited(open, PARALLEL_SENDS, async (target) => {
    const notification = renderer!(target.language);
    const headers = target.channel === 'email' ? await unsubscribeHeaders(target.address) : [];
    const outcome = await send(target, notification, alert, options.senders, headers, bodyForWebhooks);
    const attempts = (retries[target.key]?.attempts ?? 0) + 1;
    const at = new Date(now()).toISOString();
    const where = { alertId: alert.alertId, channel: target.channel, target: targetLabel(target), attempt: attempts };
    let status: DeliveryStatus | undefined;
    if (outcome.status === 'sent') {
      status = { status: 'sent', at, attempts };
      options.stats.countSent(target.channel);
    } else if (outcome.status === 'failed') {
      status = { status: 'failed', at, attempts, error: outcome.error };
      options.stats.countFailed(target.channel);
      logger.warn(`delivery failed for good: ${outcome.error}`, { ...where, error: outcome.error });
      if (outcome.gone) await forgetTarget(target, outcome.error, now());
    } else {
      // a passing problem: the target stays open for the next attempt, or for a redrive from the DLQ
      const last = options.receiveCount >= options.maxReceiveCount || attempts >= options.maxReceiveCount;
      if (!last) {
        const delay = target.channel === 'webhook' ? webhookRetryDelaySeconds(attempts) : undefined;
        const nextAttemptAt = delay === undefined ? undefined : new Date(now() + delay * 1000).toISOString();
        await recordRetry(alert.alertId, target.key, { attempts, error: outcome.error, at, ...(nextAttemptAt ? { nextAttemptAt } : {}) });
        logger.warn(`delivery attempt ${attempts} of ${options.maxReceiveCount} failed: ${outcome.error}; retried${delay === undefined ? ' later' : ` in ${delay} s`}`, {
          ...where,
          error: outcome.error,
          ...(nextAttemptAt ? { nextAttemptAt } : {}),
        });
        retryReasons.push(`${target.channel}: ${outcome.error}`);
        retryDelays.push(delay);
        return;
      }
      await recordRetry(alert.alertId, target.key, { attempts, error: outcome.error, at });
      options.stats.countFailed(target.channel);
      logger.error(`delivery parked after attempt ${attempts}: ${outcome.error}; its request is on the deliveries DLQ until redriven`, { ...where, error: outcome.error });
      givenUp.push(`${target.key}: ${outcome.error}`);
      return;
    }
    // recorded at once: a retry after a later failure must not send this one again
    await recordDelivery(alert.alertId, target.key, status);
    statuses[target.key] = status;
  });

  if (retryReasons.length) {
    const delays = retryDelays.filter((delay): delay is number => delay !== undefined);
    const delaySeconds = delays.length === retryDelays.length ? Math.min(...delays) : undefined;
    // without a delay of its own the message comes back after the queue's visibility timeout; the holder's
    // grace (HOLDER_GRACE_MS) covers that
    await scheduleRetry(alert.alertId, options.messageId, now() + (delaySeconds ?? 0) * 1000);
    return { result: 'retry', reason: retryReasons.join('; '), ...(delaySeconds !== undefined ? { delaySeconds } : {}) };
  }
  if (givenUp.length) {
    const reason = `parked after the last attempt: ${givenUp.join('; ')}`;
    await parkAlert(alert.alertId, now(), reason);
    return { result: 'dead-letter', reason };
  }
  if (held.length) {
    const hold = await holdUntilConfirmed(alert.alertId, rule.parentId, held);
    return hold === 'held' ? { result: 'done' } : { result: 'retry', reason: 'a held address confirmed meanwhile' };
  }
  await finishAlert(alert.alertId, finalStatus(Object.values(statuses)), now());
  return { result: 'done' };
}

/** `failed` when something had to go out and nothing did; otherwise `delivered`. */
export function finalStatus(statuses: readonly DeliveryStatus[]): 'delivered' | 'failed' {
  const anySent = statuses.some((status) => status.status === 'sent');
  const anyFailed = statuses.some((status) => status.status === 'failed');
  return !anySent && anyFailed ? 'failed' : 'delivered';
}

function notificationRenderer(alert: Alert, rule: StoredRule, vehicleName: string): (language: Language) => RenderedNotification {
  const override = {
    subject: rule.settings.messageSubject?.trim() || undefined,
    body: rule.settings.messageTemplate?.trim() || undefined,
  };
  const rendered = new Map<Language, RenderedNotification>();
  return (language) => {
    let notification = rendered.get(language);
    if (!notification) {
      const data = buildTemplateData({ alert, vehicleName, timezone: rule.timezone, language });
      notification = renderNotification({ kind: alert.event.kind, language, data, override });
      rendered.set(language, notification);
    }
    return notification;
  };
}

async function send(
  target: DeliveryTarget,
  notification: RenderedNotification,
  alert: Alert,
  senders: ChannelSenders,
  headers: { name: string; value: string }[],
  webhookBody: () => string,
): Promise<SendOutcome> {
  try {
    switch (target.channel) {
      case 'email':
        return await senders.email({ to: target.address, subject: notification.subject, text: notification.text, html: notification.html, headers });
      case 'telegram':
        return await senders.telegram(target.chatId, { html: notification.telegram, text: notification.text });
      case 'push':
        return await senders.push(target.device, {
          title: notification.subject,
          body: notification.text,
          data: { alertId: alert.alertId, vehicleId: String(alert.vehicleId), ruleId: String(alert.ruleId), kind: alert.event.kind },
        });
      case 'webhook':
        return await senders.webhook({ url: target.endpoint.url, secret: target.endpoint.secret, body: webhookBody(), idempotencyKey: alert.alertId });
    }
  } catch (error) {
    return { status: 'retry', error: describeError(error) };
  }
}

/** Which target, for a log line: the endpoint or chat id, never an address or URL (they may carry secrets). */
function targetLabel(target: DeliveryTarget): string {
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
async function forgetTarget(target: DeliveryTarget, reason: string, now: number): Promise<void> {
  try {
    if (target.channel === 'webhook') await disableWebhook(target.endpoint.parentId, target.endpoint.id, reason, now);
    if (!target.userId) return;
    if (target.channel === 'telegram') await markTelegramChatInactive(target.userId, target.chatId);
    if (target.channel === 'push') await removePushDevice(target.userId, target.device.endpointArn, { deleteEndpoint: true });
  } catch (error) {
    logger.warn('could not forget a dead target', { channel: target.channel as Channel, error: describeError(error) });
  }
}

async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const errors: unknown[] = [];
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (error) {
        errors.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (errors.length) throw errors[0];
}
