import pLimit from 'p-limit';
import { webhookPayload } from '../channels/webhook/payload';
import { logger } from '../observability/logger';
import type { Alert, DeliveryStatus } from '../schemas/alert';
import type { Language } from '../schemas/directory';
import type { StoredRule } from '../schemas/notification';
import {
  claimAlert,
  finishAlert,
  recordDelivery,
  releaseAlert,
  reopenTarget,
  scheduleRetry,
  waitForDue,
  type RetryRecord,
} from '../store/alerts/alert-store';
import type { DeliveryStats } from './delivery-stats';
import { ClientTree } from './client-tree';
import { listUnsubscribeHeaders } from './links';
import { loadRule, loadUsers, loadVehicle } from '../store/recipients';
import { lookUpScope, type ScopeLookup } from './scope-facts';
import { unsubscribeToken } from '../store/email-consent/unsubscribe';
import type { RenderedNotification } from './render';
import { alertNotification } from './alert-notification';
import type { ChannelSenders } from './senders';
import { MAX_QUEUE_WAIT_SECONDS, RETRY_ATTEMPTS, spanText } from './retry-backoff';
import { afterPassingFailure, deferTarget, gaveUpReason, heldTooLongReason, holdDeadline, nextAttemptOf, wakeOf, type Attempt } from './target-retry';
import { deadLetterTarget } from './target-dead-letter';
import { planDelivery, type DeliveryTarget, type EmailTarget, type SkippedTarget, type TelegramTarget } from './targets';
import { holdUntilConfirmed, settleHeldTargets } from './consent-hold';
import { forgetTarget, send, targetLabel } from './send-target';
import { throughCircuit } from './circuit-gate';
import { countsAsFailure, HOLD_RECHECK_MS, probeFailedReason } from './circuit-breaker';
import { recordWebhookAttempt } from '../store/webhook-deliveries';
import { acknowledgeAction, withActionLinks, type AcknowledgeAction } from './acknowledge-action';
import { holdEmailForDigest, holdForQuietHours } from './digest-hold';
import { applyPreferences, type PreferredPlan } from './recipient-preferences';
import { severityOf } from './severity';
import { sendQuota } from '../channels/email/send-quota';
import { clearEndedEpisode } from './episode-end';
import { escalationRule } from './escalation-targets';
import { getStoredAlert } from '../store/alerts/alert-lifecycle';
import { ESCALATED_KIND } from '../rules/event-kinds';
import type { Severity } from '../schemas/severity';
import { attemptSms, smsMinSeverityOf } from './sms-attempt';
import type { SendOutcome } from '../channels/outcome';
import type { SmsDelivery } from '../schemas/alert';

/** How long one invocation holds an alert; longer than the deliver function's timeout. */
export const DELIVERY_LEASE_MS = 5 * 60_000;
/** The longest wait a queue message holds; a longer one waits on the due index. */
export const MAX_QUEUE_WAIT_MS = MAX_QUEUE_WAIT_SECONDS * 1000;
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
   * The queue's maxReceiveCount: a safety net for invocations that crash, never the retry budget (targets count
   * their own attempts). On the last receive a wait, however short, goes to the due index rather than back to the
   * queue, so the queue never dead-letters a request that is still to be retried.
   */
  maxReceiveCount: number;
  /** A target recorded `failed` to open again and send (a redriven DLQ record of it). */
  reopen?: string;
  now?: () => number;
}

/**
 * - done: the alert is settled, or waits on the due index for its next attempt (or there is nothing to do:
 *   missing, already finished);
 * - retry: the alert's next attempt is due within `delaySeconds` (the queue message holds it), or, without a
 *   delay, another invocation holds the alert; try again later.
 * Targets that can never be delivered are on the deliveries DLQ already, one record each.
 */
export type DeliverResult = { result: 'done' } | { result: 'retry'; reason: string; delaySeconds?: number };

/** Settled entries of the `deliveries` map are never sent again; a `held` one still waits. */
function isSettled(status: DeliveryStatus | undefined): boolean {
  return status !== undefined && status.status !== 'held';
}

export async function deliverAlert(alertId: string, options: DeliverOptions): Promise<DeliverResult> {
  const now = options.now ?? Date.now;
  if (options.reopen !== undefined) {
    const reopened = await reopenTarget(alertId, options.reopen, now());
    if (reopened === 'busy') return { result: 'retry', reason: 'another invocation is delivering this alert' };
    if (reopened === 'reopened')
      logger.info('a target given up on is opened again: its DLQ record was redriven', { alertId, target: options.reopen });
  }
  const claim = await claimAlert(alertId, now(), DELIVERY_LEASE_MS, options.messageId);
  switch (claim.outcome) {
    case 'missing':
      logger.warn('alert not found; nothing to deliver', { alertId });
      return { result: 'done' };
    case 'finished':
      return { result: 'done' };
    case 'busy':
      // on the last receive the queue would dead-letter it: the alert is in the outbox, which enqueues it again
      if (isLastReceive(options)) return { result: 'done' };
      return { result: 'retry', reason: 'another invocation is delivering this alert' };
    case 'duplicate':
      logger.info('second copy of a delivery request dropped: the alert already has a retry waiting on the queue', {
        alertId,
        nextAttemptAt: new Date(claim.nextAttemptAt).toISOString(),
      });
      return { result: 'done' };
    case 'invalid':
      logger.error('alert item does not match its schema', { alertId, error: claim.error });
      await finishAlert(alertId, 'failed', now(), { error: `invalid alert item: ${claim.error}` });
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

interface DeliveryContext {
  rule: StoredRule;
  vehicleName: string;
  scope: ScopeLookup;
  plan: PreferredPlan;
  /** The login of each recipient user, by id (who a push device's acknowledge link speaks for). */
  logins: Map<string, string>;
}

const isLastReceive = (options: DeliverOptions) => options.receiveCount >= options.maxReceiveCount;

/** What every target's attempt of one alert shares. */
interface Attempting {
  alert: Alert;
  retries: Record<string, RetryRecord>;
  options: DeliverOptions;
  now: () => number;
  statuses: Record<string, DeliveryStatus>;
  render: (language: Language) => RenderedNotification;
  emailHeaders: (address: string) => Promise<{ name: string; value: string }[]>;
  webhookBody: () => string;
  loginOf: (userId: string) => string | undefined;
  /** The alert its notifications offer to acknowledge: itself, or for an escalation the alert it escalates. */
  acknowledging: Alert | null;
  /** The rule's client: whose digests held e-mails join. */
  clientId: string;
  /** The account's SES daily quota is nearly used: e-mails wait for their recipient's digest instead of going out. */
  digest: boolean;
  /** Targets inside their user's quiet hours, with when those end: they wait for the user's quiet-hours digest. */
  quietUntil: ReadonlyMap<string, number>;
  /** The attempt is the alert's only open target and nothing is held: its outcome, once final, finishes the alert. */
  finishes: boolean;
  /** The rule's least severity for SMS. */
  smsMinSeverity: Severity;
}

async function deliverClaimed(
  alert: Alert,
  retries: Record<string, RetryRecord>,
  options: DeliverOptions,
  now: () => number,
): Promise<DeliverResult> {
  const context = await loadDeliveryContext(alert, options, now);
  if ('failure' in context) {
    await finishAlert(alert.alertId, 'failed', now(), { error: context.failure });
    return { result: 'done' };
  }
  await clearEndedEpisode(alert, context.rule, now());
  const statuses: Record<string, DeliveryStatus> = { ...alert.deliveries };
  await recordSkipped(alert, context.plan.skipped, statuses, retries, now());
  const held = await settleHeldTargets(alert, context.rule.parentId, context.plan, statuses, now());
  const open = context.plan.targets.filter((target) => !isSettled(statuses[target.key]));
  const acknowledging = alert.event.kind === ESCALATED_KIND ? await getStoredAlert(String(alert.event.values.escalatedAlertId)) : alert;
  // the quota is read (from the function's cache) only when an e-mail is to go out now
  const digest =
    open.some((target) => target.channel === 'email' && !context.plan.quietUntil.has(target.key)) && (await sendQuota.mode(now())) !== 'one-by-one';
  const attempts = await attemptAll(open, {
    alert,
    retries,
    options,
    now,
    statuses,
    acknowledging,
    clientId: context.rule.parentId,
    digest,
    quietUntil: context.plan.quietUntil,
    finishes: open.length === 1 && held.length === 0,
    smsMinSeverity: smsMinSeverityOf(context.rule.settings),
    ...sharedContent(alert, context),
  });
  return settle(alert, context.rule.parentId, attempts, held, statuses, options, now);
}

/** What every target of the alert is sent, each piece made once and only when a target needs it. */
function sharedContent(
  alert: Alert,
  { rule, vehicleName, scope, logins }: DeliveryContext,
): Pick<Attempting, 'render' | 'emailHeaders' | 'webhookBody' | 'loginOf'> {
  let webhookBody: string | undefined;
  return {
    loginOf: (userId) => logins.get(userId),
    render: alertNotification(alert, rule, vehicleName),
    emailHeaders: async (address) => {
      const key = address.trim().toLowerCase();
      return listUnsubscribeHeaders(scope.unsubscribeTokens.get(key) ?? (await unsubscribeToken(rule.id, key)));
    },
    webhookBody: () => (webhookBody ??= JSON.stringify(webhookPayload(alert, vehicleName))),
  };
}

/**
 * Attempts every open target, a few at a time. Every target is attempted even when one throws (a store write
 * failed): the targets that went out are recorded, so the retry that follows the rethrown error sends none of
 * them twice.
 */
async function attemptAll(targets: readonly DeliveryTarget[], attempting: Attempting): Promise<Attempt[]> {
  const limit = pLimit(PARALLEL_SENDS);
  const settled = await Promise.allSettled(targets.map((target) => limit(() => attemptTarget(target, attempting))));
  const rejected = settled.find((result) => result.status === 'rejected');
  if (rejected) throw rejected.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<Attempt>).value);
}

/**
 * The rule (for an escalation, with its escalation targets as recipients), and its vehicle when it belongs to
 * the rule's client; the users, their scope and the plan.
 */
async function loadDeliveryContext(alert: Alert, options: DeliverOptions, now: () => number): Promise<DeliveryContext | { failure: string }> {
  const stored = await loadRule(alert.ruleId);
  if (!stored) return { failure: `rule ${alert.ruleId} no longer exists` };
  const rule = alert.event.kind === ESCALATED_KIND ? escalationRule(stored, alert) : stored;
  // alerts reach only the vehicle's owners: the rule's client or a client below it
  const tree = new ClientTree();
  const vehicle = await loadVehicle(alert.vehicleId);
  if (!vehicle || !(await tree.isWithin(vehicle.parentId, rule.parentId))) {
    return { failure: `vehicle ${alert.vehicleId} does not belong to the client of rule ${rule.id}` };
  }
  const users = await loadUsers(rule.userId ? [...rule.recipientIds, rule.userId] : rule.recipientIds);
  const ownerLanguage = users.find((user) => user.id === rule.userId)?.language;
  const scope = await lookUpScope(rule, users, tree, options.senders, now(), true, onCallOf(alert));
  return {
    rule,
    vehicleName: vehicle.name,
    scope,
    plan: applyPreferences(planDelivery(rule, users, ownerLanguage, scope.facts, alert.event.kind), users, severityOf(alert), now()),
    logins: new Map(users.map((user) => [user.id, user.login])),
  };
}

async function recordSkipped(
  alert: Alert,
  skipped: readonly SkippedTarget[],
  statuses: Record<string, DeliveryStatus>,
  retries: Readonly<Record<string, RetryRecord>>,
  now: number,
): Promise<void> {
  for (const target of skipped) {
    if (isSettled(statuses[target.key])) continue;
    const heldBy = retries[target.key]?.heldBy;
    // an endpoint disabled while its circuit held the alert (after days open, or by its client): the delivery
    // failed, and is logged so, so that the endpoint's recovery sends it once it is enabled again
    const status: DeliveryStatus =
      heldBy !== undefined && target.channel === 'webhook'
        ? {
            status: 'failed',
            at: new Date(now).toISOString(),
            attempts: retries[target.key]?.attempts ?? 0,
            error: `held by its open circuit until ${target.reason}`,
          }
        : {
            status: 'skipped',
            at: new Date(now).toISOString(),
            attempts: 0,
            error: target.reason,
            ...(target.preference ? { reason: target.preference } : {}),
          };
    if (status.status === 'failed') await logHeldWebhook(alert, target.key, status);
    await recordDelivery(alert.alertId, target.key, status);
    statuses[target.key] = status;
  }
}

/** A webhook delivery a circuit held that failed without a send of its own, in the endpoint's log, where a recovery finds it. */
async function logHeldWebhook(alert: Alert, key: string, status: DeliveryStatus): Promise<void> {
  await recordWebhookAttempt(key.slice('webhook:'.length), {
    alertId: alert.alertId,
    event: alert.event.kind,
    at: status.at,
    status: 'failed',
    httpStatus: null,
    latencyMs: 0,
    error: status.error ?? null,
  }).catch((error: unknown) => logger.warn('could not record a webhook attempt', { alertId: alert.alertId, target: key, error }));
}

/**
 * Sends to one target whose next attempt has come and records what came of it: sent, failed for good (and on the
 * DLQ), or to retry on the schedule; a target whose next attempt has not come is left alone. A target its
 * destination's open circuit holds is looked at whenever its alert is (the drain wakes it once the circuit
 * closes), and held again while the circuit stays open.
 */
async function attemptTarget(target: DeliveryTarget, attempting: Attempting): Promise<Attempt> {
  const { alert, retries, options, now } = attempting;
  const heldBy = retries[target.key]?.heldBy;
  const nextAttemptAt = nextAttemptOf(retries[target.key]);
  if (nextAttemptAt > now() && heldBy === undefined) return { outcome: 'waiting', key: target.key, nextAttemptAt };
  const action = attempting.acknowledging && (await acknowledgeAction(attempting.acknowledging, target, attempting.loginOf, now()));
  const quietUntil = attempting.quietUntil.get(target.key);
  if (quietUntil !== undefined && (target.channel === 'email' || target.channel === 'telegram')) {
    return holdInQuietHours(target, action, quietUntil, retries[target.key]?.attempts ?? 0, attempting);
  }
  if (target.channel === 'email' && attempting.digest) return holdInDigest(target, action, retries[target.key]?.attempts ?? 0, attempting);
  const headers = target.channel === 'email' ? await attempting.emailHeaders(target.address) : [];
  let outcome: SendOutcome;
  let probed: string | null = null;
  let sms: { sms: SmsDelivery } | Record<string, never> = {};
  if (target.channel === 'sms') {
    // SMS has its own guards (a claim per send, opt-outs, the spend cap) and no circuit: a text is never probed
    const step = await attemptSms(target, {
      alert,
      clientId: attempting.clientId,
      minSeverity: attempting.smsMinSeverity,
      subject: attempting.render(target.language).subject,
      attempts: retries[target.key]?.attempts ?? 0,
      senders: options.senders,
      now: now(),
    });
    if (step.kind === 'settled') return settleTarget(target, step.status, attempting);
    outcome = step.outcome;
    sms = { sms: step.sms };
  } else {
    const gated = await throughCircuit(target, { ...alert, heldBy, deadline: holdDeadline(alert.createdAt) }, now(), () =>
      send(target, attempting.render(target.language), alert, options.senders, headers, attempting.webhookBody, now(), action),
    );
    if (gated.kind === 'held') return holdByCircuit(target, gated.destination, gated.reason, false, attempting);
    ({ outcome, probed } = gated);
  }
  const attempt: TargetAttempt = { target, number: (retries[target.key]?.attempts ?? 0) + 1, at: new Date(now()).toISOString() };
  // SES refused it over the daily quota: it waits for the digest, which goes out once the quota returns
  if (target.channel === 'email' && outcome.status === 'retry' && outcome.overQuota) return holdInDigest(target, action, attempt.number, attempting);
  // a held target sent as the probe is the circuit's: failing, it is held again without spending one of its
  // attempts (a target whose own attempt came due and went out as the probe spent it, as any attempt does)
  if (probed !== null && heldBy !== undefined && countsAsFailure(outcome)) {
    return holdByCircuit(target, probed, probeFailedReason(probed, outcome.error), true, attempting);
  }
  let status: DeliveryStatus;
  if (outcome.status === 'sent') {
    status = { status: 'sent', at: attempt.at, attempts: attempt.number, ...sms };
    options.stats.countSent(target.channel);
  } else if (outcome.status === 'failed') {
    status = { status: 'failed', at: attempt.at, attempts: attempt.number, error: outcome.error, ...sms };
    options.stats.countFailed(target.channel);
    logger.warn(`delivery failed for good: ${outcome.error}; sent to the deliveries DLQ`, { ...where(alert, attempt), error: outcome.error });
    if (outcome.gone) await forgetTarget(target, outcome.error, now());
    await deadLetterTarget(alert.alertId, target.key, outcome.error);
  } else {
    const next = afterPassingFailure(attempt.number, outcome.error, now(), outcome.retryAfterSeconds);
    if (next) {
      logger.warn(`delivery attempt ${attempt.number} of ${RETRY_ATTEMPTS} failed: ${outcome.error}; retried in ${spanText(next.delaySeconds)}`, {
        ...where(alert, attempt),
        error: outcome.error,
        nextAttemptAt: next.record.nextAttemptAt,
      });
      return { outcome: 'retry', key: target.key, record: next.record };
    }
    const reason = gaveUpReason(attempt.number, outcome.error);
    status = { status: 'failed', at: attempt.at, attempts: attempt.number, error: reason };
    options.stats.countFailed(target.channel);
    logger.error(`delivery given up after attempt ${attempt.number}: ${outcome.error}; sent to the deliveries DLQ`, {
      ...where(alert, attempt),
      error: outcome.error,
    });
    await deadLetterTarget(alert.alertId, target.key, reason);
  }
  return settleTarget(target, status, attempting);
}

/** Records a target's final status: at once, or in the write that finishes the alert when it was its last. */
async function settleTarget(target: DeliveryTarget, status: DeliveryStatus, attempting: Attempting): Promise<Attempt> {
  const { alert, now, statuses } = attempting;
  statuses[target.key] = status;
  if (attempting.finishes) {
    await finishAlert(alert.alertId, finalStatus(Object.values(statuses)), now(), { last: { key: target.key, status }, due: alert });
    return { outcome: 'finished' };
  }
  // recorded at once: a retry after a later failure must not send this one again
  await recordDelivery(alert.alertId, target.key, status);
  return { outcome: 'recorded' };
}

/**
 * A target its destination's open circuit holds waits, its attempts as they were: until the sweep drains it once
 * the circuit closes, and at the latest HOLD_RECHECK_MS on, when it is looked at again. Held past its deadline (as
 * long as the retry schedule would have kept it), it is given up on and goes to the DLQ like a target whose
 * attempts ran out; a webhook delivery given up on without a request of its own (`probed`: the probe's is logged
 * already) is logged as failed, for the endpoint's recovery.
 */
async function holdByCircuit(target: DeliveryTarget, destination: string, reason: string, probed: boolean, attempting: Attempting): Promise<Attempt> {
  const { alert, retries, options, now } = attempting;
  const attempts = retries[target.key]?.attempts ?? 0;
  const deadline = holdDeadline(alert.createdAt);
  const context = { alertId: alert.alertId, channel: target.channel, target: targetLabel(target), destination };
  if (now() < deadline) {
    if (retries[target.key]?.heldBy !== destination) logger.warn(`delivery held: ${reason}; sent once the circuit closes`, context);
    return deferTarget(retries, target.key, Math.min(now() + HOLD_RECHECK_MS, deadline), reason, now(), destination);
  }
  const failure = heldTooLongReason(attempts, destination, reason);
  const status: DeliveryStatus = { status: 'failed', at: new Date(now()).toISOString(), attempts, error: failure };
  options.stats.countFailed(target.channel);
  logger.error(`delivery given up: ${failure}; sent to the deliveries DLQ`, context);
  if (target.channel === 'webhook' && !probed) await logHeldWebhook(alert, target.key, status);
  await deadLetterTarget(alert.alertId, target.key, failure);
  return settleTarget(target, status, attempting);
}

/** Holds an e-mail for its recipient's digest, as it would have gone out (with its acknowledge link). */
async function holdInDigest(target: EmailTarget, action: AcknowledgeAction | null, attempts: number, attempting: Attempting): Promise<Attempt> {
  const notification = attempting.render(target.language);
  const email = action?.channel === 'email' ? withActionLinks(notification, action.links) : notification;
  const { alert, clientId, now, statuses } = attempting;
  statuses[target.key] = await holdEmailForDigest(alert, clientId, target, email, attempts, now());
  return { outcome: 'recorded' };
}

/**
 * Holds an e-mail or Telegram message for its user's quiet-hours digest; an e-mail as it would have gone out
 * (with its acknowledge link), a message by its subject.
 */
async function holdInQuietHours(
  target: EmailTarget | TelegramTarget,
  action: AcknowledgeAction | null,
  until: number,
  attempts: number,
  attempting: Attempting,
): Promise<Attempt> {
  const { alert, now, statuses } = attempting;
  // only a recipient user's targets have quiet hours (applyPreferences)
  if (target.userId === undefined) throw new Error(`target ${target.key} of alert ${alert.alertId} has quiet hours but no user`);
  const notification = attempting.render(target.language);
  const content = target.channel === 'email' && action?.channel === 'email' ? withActionLinks(notification, action.links) : notification;
  statuses[target.key] = await holdForQuietHours(alert, { ...target, userId: target.userId }, content, until, attempts, now());
  return { outcome: 'recorded' };
}

/** One attempt at one target: which, its number (1 for the first), and when. */
interface TargetAttempt {
  target: DeliveryTarget;
  number: number;
  at: string;
}

const where = (alert: Alert, { target, number }: TargetAttempt) => ({
  alertId: alert.alertId,
  channel: target.channel,
  target: targetLabel(target),
  attempt: number,
});

/**
 * After the attempts: when a target is still open, the alert waits for the earliest of their next attempts, on the
 * queue when the queue can hold the wait, else on the due index; otherwise hold what waits for a confirmation, or
 * finish.
 */
async function settle(
  alert: Alert,
  clientId: string,
  attempts: readonly Attempt[],
  held: readonly EmailTarget[],
  statuses: Record<string, DeliveryStatus>,
  options: DeliverOptions,
  now: () => number,
): Promise<DeliverResult> {
  const wakeAt = wakeOf(attempts);
  if (wakeAt !== undefined) {
    const records = Object.fromEntries(attempts.flatMap((attempt) => (attempt.outcome === 'retry' ? [[attempt.key, attempt.record]] : [])));
    const reason = attempts.flatMap((attempt) => (attempt.outcome === 'retry' ? [`${attempt.key}: ${attempt.record.error}`] : [])).join('; ');
    const waitMs = wakeAt - now();
    // a copy of the request during a long wait attempted nothing: the wait stays as it is, on the due index
    if (Object.keys(records).length === 0 && alert.retryAt !== undefined && Date.parse(alert.retryAt) === wakeAt) {
      await releaseAlert(alert.alertId);
      return { result: 'done' };
    }
    if (waitMs <= MAX_QUEUE_WAIT_MS && !isLastReceive(options)) {
      await scheduleRetry(alert, options.messageId, wakeAt, records);
      return { result: 'retry', reason: reason || 'targets wait for their next attempt', delaySeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
    }
    await waitForDue(alert, wakeAt, records);
    logger.info('delivery waits for the sweep to hand it back', { alertId: alert.alertId, retryAt: new Date(wakeAt).toISOString() });
    return { result: 'done' };
  }
  if (held.length) {
    const hold = await holdUntilConfirmed(alert, clientId, held);
    return hold === 'held' ? { result: 'done' } : { result: 'retry', reason: 'a held address confirmed meanwhile' };
  }
  if (attempts.some((attempt) => attempt.outcome === 'finished')) return { result: 'done' };
  await finishAlert(alert.alertId, finalStatus(Object.values(statuses)), now(), { due: alert });
  return { result: 'done' };
}

/** `failed` when something had to go out and nothing did; otherwise `delivered`. */
export function finalStatus(statuses: readonly DeliveryStatus[]): 'delivered' | 'failed' {
  const anySent = statuses.some((status) => status.status === 'sent');
  const anyFailed = statuses.some((status) => status.status === 'failed');
  return !anySent && anyFailed ? 'failed' : 'delivered';
}

/** The users an escalation's rotas had on call when it fired (buildEscalationItem); none for any other alert. */
function onCallOf(alert: Alert): Set<string> {
  const named = alert.event.kind === ESCALATED_KIND ? alert.event.values.onCallUserIds : undefined;
  return new Set(typeof named === 'string' && named !== '' ? named.split(',') : []);
}
