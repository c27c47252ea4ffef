import { ruleChain } from '../rules/rule-chain';
import type { Alert } from '../schemas/alert';
import type { StoredRule } from '../schemas/notification';
import { SEVERITIES } from '../schemas/severity';

/**
 * The rule as an escalation sees it: the targets of the chain's level that fired, and whoever its rotas had on
 * call then (named on the escalation when it fired), in place of its own recipients, so that an escalation is
 * looked up and planned exactly like an alert (scope, linked chats, confirmed side addresses, unsubscribes). Its
 * users get it on every channel they have, and by SMS (a verified number) only when the level has `sms`; webhooks
 * get none. A level taken out of the rule since it fired reaches the people on call it named, and no one else.
 */
export function escalationRule(rule: StoredRule, escalation: Pick<Alert, 'event'>): StoredRule {
  const values = escalation.event.values;
  const levelIndex = typeof values.escalationLevel === 'number' ? values.escalationLevel : 0;
  const onCall = typeof values.onCallUserIds === 'string' && values.onCallUserIds !== '' ? values.onCallUserIds.split(',') : [];
  const level = ruleChain(rule)?.levels[levelIndex];
  const userIds = [...new Set([...(level?.userIds ?? []), ...onCall])];
  const emails = level?.emails ?? [];
  return {
    ...rule,
    // a level with `sms` is an explicit decision to wake its people: escalateMinSeverity already decided that the
    // alert escalates, so the rule's smsMinSeverity (meant for its own alerts) does not hold the escalation back
    settings: { ...rule.settings, smsMinSeverity: SEVERITIES[0] },
    recipientIds: userIds,
    toEmail: true,
    toTelegram: true,
    toMobile: true,
    toSms: level?.sms ?? false,
    toClient: false,
    telegrams: (level?.telegrams ?? []).map((id) => ({ id, info: '' })),
    telegramLocation: false,
    enableSideEmails: emails.length > 0,
    sideEmails: emails,
  };
}
