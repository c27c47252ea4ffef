import { describeError } from '../channels/outcome';
import { logger } from '../observability/logger';
import { MetricName, MetricUnit, metrics } from '../observability/metrics';
import type { Language } from '../schemas/directory';
import { getUsers, userIdsOfClient } from '../store/directory-store';
import { claimCapNotice } from '../store/sms-spend';
import type { ChannelSenders } from './senders';

const WORDS: Record<Language, { subject: string; text: (month: string, capUsd: number) => string }> = {
  1: {
    subject: 'fleetwatch: достигнут месячный лимит расходов на SMS',
    text: (month, cap) =>
      `Расходы вашего клиента на SMS за ${month} достигли лимита ($${cap}). До конца месяца оповещения по SMS не отправляются; e-mail и Telegram работают как прежде.`,
  },
  2: {
    subject: 'fleetwatch: the monthly SMS spend cap is reached',
    text: (month, cap) =>
      `Your client's SMS spend for ${month} reached its cap ($${cap}). Until the month ends, no alert goes by SMS; e-mail and Telegram go on as before.`,
  },
  3: {
    subject: 'fleetwatch: aylıq SMS xərc limitinə çatıldı',
    text: (month, cap) =>
      `Müştərinizin ${month} üçün SMS xərci limitə ($${cap}) çatdı. Ay bitənə qədər SMS bildirişləri göndərilmir; e-poçt və Telegram əvvəlki kimi işləyir.`,
  },
};

/**
 * Past the cap: counts it for the operators' alarm, and tells the client's users once a month, by e-mail and in
 * their linked Telegram chats. The notice is claimed before it goes out: at most once, even if a send fails.
 */
export async function capReached(clientId: string, capUsd: number, senders: ChannelSenders, now: number): Promise<void> {
  metrics.addMetric(MetricName.SmsCapReached, MetricUnit.Count, 1);
  if (!(await claimCapNotice(clientId, now))) return;
  const month = new Date(now).toISOString().slice(0, 7);
  const users = (await getUsers(await userIdsOfClient(clientId))).filter((user) => user.isEnabled);
  logger.warn('a client reached its monthly SMS spend cap; its users are told', { clientId, month, users: users.length });
  await Promise.all(
    users.map(async (user) => {
      const words = WORDS[user.language];
      const text = words.text(month, capUsd);
      try {
        await senders.email({ to: user.email, subject: words.subject, text, html: `<p>${text}</p>`, headers: [] });
        for (const chat of Object.values(user.telegramChats).filter((linked) => linked.active))
          await senders.telegram(chat.chatId, { html: text, text });
      } catch (error) {
        logger.warn('a cap notice could not go out', { clientId, userId: user.id, error: describeError(error) });
      }
    }),
  );
}
