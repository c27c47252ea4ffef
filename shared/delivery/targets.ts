import type { Channel } from '../channels/outcome';
import type { Language, PushDevice, StoredUser } from '../schemas/directory';
import type { StoredRule } from '../schemas/notification';

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
}
export interface PushTarget extends TargetBase {
  channel: 'push';
  device: PushDevice;
  userId: string;
}
export type DeliveryTarget = EmailTarget | TelegramTarget | PushTarget;

/** A target left out on purpose, recorded as `skipped` so the history says why. */
export interface SkippedTarget {
  key: string;
  channel: Channel;
  reason: string;
}

export interface DeliveryPlan {
  targets: DeliveryTarget[];
  skipped: SkippedTarget[];
}

export const targetKeys = {
  email: (address: string) => `email:${address.trim().toLowerCase()}`,
  telegram: (chatId: string) => `telegram:${chatId}`,
  push: (endpointArn: string) => `push:${endpointArn}`,
};

export const DEFAULT_LANGUAGE: Language = 2;

/**
 * Works out every target of an alert from its rule and the rule's recipient users (those that still exist).
 * Side e-mails and the rule's own Telegram chats are written in the rule owner's language, else English.
 * Pure: no I/O.
 */
export function planDelivery(rule: StoredRule, recipients: readonly StoredUser[], ownerLanguage: Language | undefined): DeliveryPlan {
  const targets = new Map<string, DeliveryTarget>();
  const skipped = new Map<string, SkippedTarget>();
  const ruleLanguage = ownerLanguage ?? DEFAULT_LANGUAGE;
  const add = (target: DeliveryTarget) => {
    if (!targets.has(target.key)) targets.set(target.key, target);
  };
  const skip = (target: SkippedTarget) => {
    if (!targets.has(target.key) && !skipped.has(target.key)) skipped.set(target.key, target);
  };

  const users = recipients.filter((user) => rule.recipientIds.includes(user.id));
  for (const user of users) {
    if (!user.isEnabled) {
      if (rule.toEmail) skip({ key: targetKeys.email(user.email), channel: 'email', reason: `user ${user.login} is disabled` });
      continue;
    }
    if (rule.toEmail) add({ key: targetKeys.email(user.email), channel: 'email', address: user.email, language: user.language, userId: user.id });
    if (rule.toTelegram) {
      for (const chat of user.telegramChats) {
        const key = targetKeys.telegram(chat.chatId);
        if (chat.active) add({ key, channel: 'telegram', chatId: chat.chatId, language: user.language, userId: user.id });
        else skip({ key, channel: 'telegram', reason: 'the chat has blocked the bot' });
      }
    }
    if (rule.toMobile) {
      for (const device of user.pushDevices) {
        add({ key: targetKeys.push(device.endpointArn), channel: 'push', device, language: user.language, userId: user.id });
      }
    }
  }
  if (rule.enableSideEmails) {
    for (const address of rule.sideEmails) {
      add({ key: targetKeys.email(address), channel: 'email', address, language: ruleLanguage });
    }
  }
  if (rule.toTelegram) {
    for (const chat of rule.telegrams) {
      const chatId = String(chat.id);
      const key = targetKeys.telegram(chatId);
      skipped.delete(key); // a chat named on the rule itself is always tried
      add({ key, channel: 'telegram', chatId, language: ruleLanguage });
    }
  }
  for (const key of targets.keys()) skipped.delete(key);
  return { targets: [...targets.values()], skipped: [...skipped.values()] };
}
