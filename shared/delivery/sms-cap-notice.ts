import { describeError } from '../channels/outcome';
import { logger } from '../observability/logger';
import { MetricName, MetricUnit, metrics } from '../observability/metrics';
import { getUsers, userIdsOfClient } from '../store/directory-store';
import { claimCapNotice } from '../store/sms-spend';
import { renderSmsCapNotice } from './render';
import type { ChannelSenders } from './senders';

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
      const notice = renderSmsCapNotice(user.language, { month, capUsd });
      try {
        await senders.email({ to: user.email, subject: notice.subject, text: notice.text, html: notice.html, headers: [] });
        for (const chat of Object.values(user.telegramChats).filter((linked) => linked.active))
          await senders.telegram(chat.chatId, { html: notice.telegram, text: notice.text });
      } catch (error) {
        logger.warn('a cap notice could not go out', { clientId, userId: user.id, error: describeError(error) });
      }
    }),
  );
}
