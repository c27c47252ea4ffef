import type { Channel } from '../channels/outcome';
import type { PreferenceReason } from '../schemas/alert';
import type { Language, PushDevice, StoredUser } from '../schemas/directory';
import type { StoredRule } from '../schemas/notification';
import type { StoredWebhook } from '../schemas/webhook';

/**
 * Where one alert must go: one entry per recipient and channel. `key` names the entry in the alert's
 * `deliveries` map (`email:ops@example.com`, `telegram:12345`, `push:<endpoint ARN>`), which is how a retry
 * knows what already went out.
 */
interface TargetBase {
  key: string;
  channel: Channel;
  language: Language;
  /** The user the target belongs to, when it came from a user (to forget a dead chat or device). */
  userId?: string;
}
export interface EmailTarget extends TargetBase {
  channel: 'email';
  address: string;
}
export interface TelegramTarget extends TargetBase {
  channel: 'telegram';
  chatId: string;
  /** The forum topic the chat's alerts go to. */
  threadId?: number;
  /** Send the event's position after the alert (the rule's telegramLocation). */
  location: boolean;
}
export interface PushTarget extends TargetBase {
  channel: 'push';
  device: PushDevice;
  userId: string;
}
/** A webhook endpoint of the rule's client (rules with `toClient`). */
export interface WebhookTarget extends TargetBase {
  channel: 'webhook';
  endpoint: StoredWebhook;
}
/** A recipient user's verified phone number (rules with `toSms`). */
export interface SmsTarget extends TargetBase {
  channel: 'sms';
  phoneNumber: string;
  userId: string;
}
export type DeliveryTarget = EmailTarget | TelegramTarget | PushTarget | WebhookTarget | SmsTarget;

/** A target left out on purpose, recorded as `skipped` so the history says why. */
export interface SkippedTarget {
  key: string;
  channel: Channel;
  reason: string;
  /** Set when the recipient's own preferences left it out. */
  preference?: PreferenceReason;
}

export interface DeliveryPlan {
  targets: DeliveryTarget[];
  skipped: SkippedTarget[];
  /** Side addresses that have not confirmed yet: their e-mail waits (see consent-hold). */
  held: EmailTarget[];
}

export const targetKeys = {
  email: (address: string) => `email:${address.trim().toLowerCase()}`,
  telegram: (chatId: string) => `telegram:${chatId}`,
  push: (endpointArn: string) => `push:${endpointArn}`,
  webhook: (endpointId: string) => `webhook:${endpointId}`,
  sms: (phoneNumber: string) => `sms:${phoneNumber}`,
};

export const DEFAULT_LANGUAGE: Language = 2;

/** What the deliver function looked up about the rule owner's scope before planning. */
export interface ScopeFacts {
  /** Recipient users that belong to the rule owner's client or a client below it. */
  usersInScope: ReadonlySet<string>;
  /** Chats named on the rule that a user of the owner's scope linked and that still take alerts. */
  linkedChats: ReadonlySet<string>;
  /** Addresses (lower-case) that must get nothing, with the reason. */
  blockedEmails: ReadonlyMap<string, string>;
  /** Side addresses (lower-case) that have not confirmed yet. */
  unconfirmedEmails?: ReadonlySet<string>;
  /** Webhook endpoints of the rule's client, read when the rule has `toClient`. */
  webhooks?: readonly StoredWebhook[];
}

/**
 * Works out every target of an alert from its rule, the rule's recipient users (those that still exist) and
 * what is known of the owner's scope: a recipient of another tenant, a chat nobody of the scope linked (or that
 * sent /stop), an unsubscribed or suppressed address are skipped, with the reason; a side address that has not
 * confirmed yet is held.
 * Side e-mails and the rule's own Telegram chats are written in the rule owner's language, else English.
 * A rule with `toClient` also posts to each enabled webhook endpoint of the rule's client (a disabled one, or
 * one whose `events` or `ruleTypes` leave the alert out, is skipped with its reason).
 * Pure: no I/O.
 */
export function planDelivery(
  rule: StoredRule,
  recipients: readonly StoredUser[],
  ownerLanguage: Language | undefined,
  facts: ScopeFacts,
  /** The alert's kind, for the endpoints' event filters; null for a test alert, which every endpoint of the rule gets. */
  eventKind: string | null,
): DeliveryPlan {
  const targets = new Map<string, DeliveryTarget>();
  const skipped = new Map<string, SkippedTarget>();
  const held = new Map<string, EmailTarget>();
  const ruleLanguage = ownerLanguage ?? DEFAULT_LANGUAGE;
  const add = (target: DeliveryTarget) => {
    if (!targets.has(target.key)) targets.set(target.key, target);
  };
  const skip = (target: SkippedTarget) => {
    if (!targets.has(target.key) && !skipped.has(target.key)) skipped.set(target.key, target);
  };

  const addEmail = (target: EmailTarget) => {
    const blocked = facts.blockedEmails.get(target.address.trim().toLowerCase());
    if (blocked) skip({ key: target.key, channel: 'email', reason: `the address is ${blocked}` });
    else add(target);
  };

  const users = recipients.filter((user) => rule.recipientIds.includes(user.id));
  for (const user of users) {
    if (!facts.usersInScope.has(user.id)) {
      if (rule.toEmail) skip({ key: targetKeys.email(user.email), channel: 'email', reason: `user ${user.login} is not in the rule owner's scope` });
      continue;
    }
    if (!user.isEnabled) {
      if (rule.toEmail) skip({ key: targetKeys.email(user.email), channel: 'email', reason: `user ${user.login} is disabled` });
      continue;
    }
    if (rule.toEmail)
      addEmail({ key: targetKeys.email(user.email), channel: 'email', address: user.email, language: user.language, userId: user.id });
    if (rule.toTelegram) {
      for (const chat of Object.values(user.telegramChats)) {
        const key = targetKeys.telegram(chat.chatId);
        const thread = chat.threadId === undefined ? {} : { threadId: chat.threadId };
        if (chat.active)
          add({
            key,
            channel: 'telegram',
            chatId: chat.chatId,
            ...thread,
            location: rule.telegramLocation,
            language: user.language,
            userId: user.id,
          });
        else skip({ key, channel: 'telegram', reason: 'the chat has blocked the bot' });
      }
    }
    if (rule.toSms) {
      if (user.phoneNumber && user.phoneVerifiedAt)
        add({ key: targetKeys.sms(user.phoneNumber), channel: 'sms', phoneNumber: user.phoneNumber, language: user.language, userId: user.id });
      else if (user.phoneNumber)
        skip({ key: targetKeys.sms(user.phoneNumber), channel: 'sms', reason: `user ${user.login} has not verified the phone number yet` });
    }
    if (rule.toMobile) {
      for (const device of Object.values(user.pushDevices)) {
        add({ key: targetKeys.push(device.endpointArn), channel: 'push', device, language: user.language, userId: user.id });
      }
    }
  }
  if (rule.enableSideEmails) {
    for (const address of rule.sideEmails) {
      const target: EmailTarget = { key: targetKeys.email(address), channel: 'email', address, language: ruleLanguage };
      const lower = address.trim().toLowerCase();
      if (facts.unconfirmedEmails?.has(lower) && !facts.blockedEmails.has(lower)) {
        if (!targets.has(target.key)) held.set(target.key, target);
      } else addEmail(target);
    }
  }
  if (rule.toTelegram) {
    for (const chat of rule.telegrams) {
      const chatId = String(chat.id);
      const key = targetKeys.telegram(chatId);
      const thread = chat.threadId === undefined ? {} : { threadId: chat.threadId };
      if (facts.linkedChats.has(chatId))
        add({ key, channel: 'telegram', chatId, ...thread, location: rule.telegramLocation, language: ruleLanguage });
      else skip({ key, channel: 'telegram', reason: "the chat is not linked by a user of the rule owner's scope, or sent /stop" });
    }
  }
  if (rule.toClient) {
    for (const endpoint of facts.webhooks ?? []) {
      const key = targetKeys.webhook(endpoint.id);
      // only the rule's own client's endpoints, whatever the lookup handed over
      if (endpoint.parentId !== rule.parentId) continue;
      const filteredOut = eventKind === null ? null : webhookFilterRefusal(endpoint, eventKind, rule.type);
      if (filteredOut) skip({ key, channel: 'webhook', reason: filteredOut });
      else if (endpoint.enabled) add({ key, channel: 'webhook', endpoint, language: ruleLanguage });
      else skip({ key, channel: 'webhook', reason: `the endpoint is disabled${endpoint.disabledReason ? ` (${endpoint.disabledReason})` : ''}` });
    }
  }
  for (const key of targets.keys()) {
    skipped.delete(key);
    held.delete(key);
  }
  for (const key of held.keys()) skipped.delete(key);
  return { targets: [...targets.values()], skipped: [...skipped.values()], held: [...held.values()] };
}

/** Why the endpoint's event filter leaves the alert out, or null when it takes it (an empty list takes all). */
function webhookFilterRefusal(endpoint: StoredWebhook, eventKind: string, ruleType: number): string | null {
  if (endpoint.events.length > 0 && !endpoint.events.includes(eventKind)) return `the endpoint does not take ${eventKind} events`;
  if (endpoint.ruleTypes.length > 0 && !endpoint.ruleTypes.includes(ruleType)) return `the endpoint does not take rules of type ${ruleType}`;
  return null;
}
