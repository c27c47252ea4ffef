import pLimit from 'p-limit';
import { describeError, type SendOutcome } from '../channels/outcome';
import { signingSecrets } from '../channels/webhook/signing-secrets';
import { webhookMessageId } from '../channels/webhook/standard-signature';
import type { Language } from '../schemas/directory';
import type { StoredRule } from '../schemas/notification';
import type { TestSendResult, TestTargetOutcome } from '../schemas/test-send';
import { putTestResult } from '../store/test-sends';
import { ClientTree } from './client-tree';
import { formatEventTime } from './format-time';
import { loadRule, loadUsers } from '../store/recipients';
import { renderTestNotification, type RenderedNotification } from './render';
import { lookUpScope } from './scope-facts';
import type { ChannelSenders } from './senders';
import { planDelivery, type DeliveryTarget, type ScopeFacts, type SkippedTarget } from './targets';

/** Targets sent to at the same time, as for an alert. */
const PARALLEL_SENDS = 4;

/**
 * Sends a rule's test alert now, to the targets an alert of the rule would reach: the same plan, scope checks
 * and consent (an unconfirmed side address gets neither the test nor a confirmation link). One attempt per
 * target, no retries; nothing is written to the alerts table, the rule, the vehicles or the targets (a chat or
 * endpoint found dead is reported, not forgotten). The outcomes are recorded for the API to answer.
 */
export async function sendTestAlert(testId: string, ruleId: number, senders: ChannelSenders, now: number): Promise<TestSendResult> {
  const rule = await loadRule(ruleId);
  const targets = rule ? await testTargets(rule, testId, senders, now) : [];
  const result: TestSendResult = { testId, ruleId, finishedAt: new Date(now).toISOString(), targets };
  await putTestResult(result, now);
  return result;
}

async function testTargets(rule: StoredRule, testId: string, senders: ChannelSenders, now: number): Promise<TestTargetOutcome[]> {
  const users = await loadUsers(rule.userId ? [...rule.recipientIds, rule.userId] : rule.recipientIds);
  const ownerLanguage = users.find((user) => user.id === rule.userId)?.language;
  const { facts } = await lookUpScope(rule, users, new ClientTree(), senders, now, false);
  const plan = planDelivery(rule, users, ownerLanguage, facts, null);
  const render = (language: Language) =>
    renderTestNotification(language, { rule: rule.name, time: formatEventTime(new Date(now).toISOString(), rule.timezone, language) });
  const limit = pLimit(PARALLEL_SENDS);
  const sent = await Promise.all(
    plan.targets.map((target) =>
      limit(async () => outcomeOf(target, await sendTest(target, render(target.language), senders, { rule, testId, now }))),
    ),
  );
  return [
    ...sent,
    ...plan.held.map((target): TestTargetOutcome => ({
      channel: 'email',
      target: target.key,
      outcome: 'notConfirmed',
      reason: 'the side address has not confirmed yet',
    })),
    ...plan.skipped.map((target) => skippedOutcome(target, facts)),
  ];
}

/** The test alert to one target, on its channel; a throw is reported as a failure (a test is not retried). */
async function sendTest(
  target: DeliveryTarget,
  notification: RenderedNotification,
  senders: ChannelSenders,
  test: { rule: StoredRule; testId: string; now: number },
): Promise<SendOutcome> {
  const { rule, testId, now } = test;
  try {
    switch (target.channel) {
      case 'email':
        return await senders.email({
          to: target.address,
          subject: notification.subject,
          text: notification.text,
          html: notification.html,
          headers: [],
        });
      case 'telegram':
        return await senders.telegram(target.chatId, { html: notification.telegram, text: notification.text });
      case 'push':
        return await senders.push(target.device, {
          title: notification.subject,
          body: notification.text,
          data: { testId, ruleId: String(rule.id), kind: 'test' },
        });
      case 'webhook':
        return await senders.webhook({
          url: target.endpoint.url,
          secrets: signingSecrets(target.endpoint, now),
          scheme: target.endpoint.signatureScheme,
          body: JSON.stringify({
            type: 'test',
            testId,
            createdAt: new Date(now).toISOString(),
            parentId: rule.parentId,
            rule: { id: rule.id, type: rule.type, name: rule.name },
            text: notification.text,
          }),
          idempotencyKey: testId,
          messageId: webhookMessageId(testId, target.endpoint.id),
        });
      case 'sms':
        return { status: 'failed', error: 'a test alert is not sent by SMS, which costs money per message' };
    }
  } catch (error) {
    return { status: 'retry', error: describeError(error) };
  }
}

function outcomeOf(target: DeliveryTarget, outcome: SendOutcome): TestTargetOutcome {
  const base = { channel: target.channel, target: target.key };
  return outcome.status === 'sent' ? { ...base, outcome: 'sent' } : { ...base, outcome: 'failed', reason: outcome.error };
}

/** Why the plan left a target out, as a test outcome: an unlinked chat, a blocked address, or a failure with the plan's reason. */
function skippedOutcome(target: SkippedTarget, facts: ScopeFacts): TestTargetOutcome {
  const base = { channel: target.channel, target: target.key, reason: target.reason };
  if (target.channel === 'telegram') return { ...base, outcome: 'notLinked' };
  const blocked = target.channel === 'email' ? facts.blockedEmails.get(target.key.slice('email:'.length)) : undefined;
  if (blocked === 'unsubscribed' || blocked === 'suppressed') return { ...base, outcome: blocked };
  return { ...base, outcome: 'failed' };
}
